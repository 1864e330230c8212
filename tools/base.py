"""What every family's tool environment offers: tools in OpenAI function format, a call that turns an action into
the text the solver observes, `submit`, and the submission the task's own reward grades."""

from __future__ import annotations

import json
from typing import Any, Protocol

from taskforge.schemas import TaskforgeError

SUBMIT = "submit"
MAX_OBSERVATION_CHARS = 10_000
"""The most characters of one observation the solver is shown (the head and tail of a longer one)."""


class ToolEnvironmentError(TaskforgeError):
    """A task's tool environment cannot be opened here (its snapshot, environment or data dir is missing)."""


class ToolEnvironment(Protocol):
    """The tools of one task for one solver attempt.

    `tools` lists the callable tools (OpenAI function format, `submit` last);
    `call` runs one of them and returns what the solver observes (a tool's own
    failure is an observation, never raised); after `submit`, `submitted` is
    true and `submission()` is the reply the task's reward grades (a patch, a
    submission CSV, the deliverables as JSON, an answer). `close` releases what
    the environment holds (a sandbox session).
    """

    family: str
    submitted: bool

    @property
    def tools(self) -> list[dict[str, Any]]: ...

    def call(self, name: str, arguments: dict[str, Any] | str) -> str: ...

    def submission(self) -> str: ...

    def close(self) -> None: ...


def function(name: str, description: str, properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    """A tool in OpenAI function format."""
    return {"type": "function", "function": {
        "name": name, "description": description,
        "parameters": {"type": "object", "properties": properties, "required": required,
                       "additionalProperties": False}}}


ANSWER_SUBMIT = function(
    SUBMIT, "Submit your final answer, written exactly in the form the task asks for. This ends the attempt.",
    {"answer": {"type": "string", "description": "the final answer in the form the task asks for"}}, ["answer"])
WORKSPACE_SUBMIT = function(
    SUBMIT, "Submit the workspace as it is now (your changes and the files you were asked to write). This ends "
            "the attempt.", {}, [])


def arguments_of(arguments: dict[str, Any] | str) -> dict[str, Any]:
    """A tool call's arguments as a mapping (agent loops pass them as a JSON string or already decoded)."""
    if isinstance(arguments, str):
        decoded = json.loads(arguments) if arguments.strip() else {}
    else:
        decoded = arguments
    if not isinstance(decoded, dict):
        raise ValueError("the arguments must be a JSON object")
    return dict(decoded)


def clipped(text: str, limit: int = MAX_OBSERVATION_CHARS) -> str:
    """`text`, or its head and tail around a marker saying how much was cut when it is longer than `limit`."""
    if len(text) <= limit:
        return text
    half = limit // 2
    return f"{text[:half]}\n[… {len(text) - 2 * half} characters cut …]\n{text[-half:]}"


def unknown_tool(name: str, tools: list[dict[str, Any]]) -> str:
    """The observation for a call of a tool the environment does not offer."""
    names = ", ".join(tool["function"]["name"] for tool in tools)
    return f"error: no tool {name!r} here; tools: {names}"
