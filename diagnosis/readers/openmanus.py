"""OpenManus's console logs (MAST's GAIA traces of OpenManus): loguru records `<date> <time> | <LEVEL> | <where> -
<message>`, a message running on over the lines after it.

The planning flow's `Plan creation result` (the plan that follows it) is an assistant step of `PlanningFlow`.
Each `✨ <agent>'s thoughts: …` is a turn of that agent (an assistant step); the `🔧 Tool arguments: …` after it
are its tool calls, named by the `🧰 Tools being prepared: [...]` before them, and `🎯 Tool '<name>' completed its
mission! Result: …` answers them (a tool step; an error when the result reports `'success': False` or starts with
`Error`). The flow's closing summary is printed under the token count of the model call that wrote it (an
`app.llm` record with more lines): a step of `PlanningFlow`; the recap `__main__` prints after it (`Step <n>: …`)
repeats earlier outputs and is not read. The prompt typed at `Enter your prompt:` is not in the log, so the episode has
no question; nor does the log hold a verdict: ungraded.
"""

from __future__ import annotations

import ast
import re
from typing import Any, Iterator

from taskforge.diagnosis.readers.base import SourceFile, json_arguments
from taskforge.diagnosis.readers.text_log import head_text, log_episode, log_text, records, ungraded
from taskforge.schemas import Episode, InputError

FORMAT = "openmanus"
RECORD = re.compile(r"(?:Enter your prompt: )?\d{4}-\d\d-\d\d [\d:.]+ \| \w+ +\| (?P<where>\S+) - ")
"""A record's start: at a line's start, or right after a streamed reply that ended without a newline."""
PLAN = "Plan creation result:"
THOUGHTS = re.compile(r"^✨ (?P<agent>\S+?)'s thoughts:[ \t]*")
PREPARED = re.compile(r"^🧰 Tools being prepared: (?P<names>\[.*\])")
ARGUMENTS = re.compile(r"^🔧 Tool arguments: ")
RESULT = re.compile(r"^🎯 Tool '(?P<tool>[^']+)' completed its mission! Result: (?:Observed output of cmd `[^`]+` "
                    r"executed:\n)?")
FAILED = re.compile(r"'success': False|^Error", re.M)


def sniff(source: SourceFile) -> bool:
    """A console log of OpenManus's agents (`app.agent.…` records)."""
    head = head_text(source)
    return any(m.group("where").startswith(("app.agent.", "app.flow.")) for m in RECORD.finditer(head))


def read(source: SourceFile) -> Iterator[Episode | InputError]:
    """The run as one episode (ungraded, without a question)."""
    parts = records(log_text(source), RECORD)
    steps: list[dict[str, Any]] = []
    prepared: list[str] = []
    for match, text in parts:
        text = text.rstrip()
        thoughts, names, result = THOUGHTS.match(text), PREPARED.match(text), RESULT.match(text)
        if text.startswith(PLAN):
            steps.append(dict(role="assistant", content=text, actor="PlanningFlow", tool_calls=[]))
        elif thoughts:
            steps.append(dict(role="assistant", content=text[thoughts.end():], actor=thoughts.group("agent"),
                              tool_calls=[]))
        elif names:
            prepared = list(ast.literal_eval(names.group("names")))
        elif ARGUMENTS.match(text) and steps and prepared:
            turn = steps[-1]
            turn["tool_calls"].append({"id": f"call-{len(steps) - 1}-{len(turn['tool_calls'])}",
                                       "name": prepared.pop(0), "arguments": json_arguments(text.split(": ", 1)[1])})
        elif result:
            _answer(steps, result.group("tool"), text[result.end():])
        elif match.group("where").startswith("app.llm") and "\n" in text:
            steps.append(dict(role="assistant", content=text.split("\n", 1)[1].strip(), actor="PlanningFlow",
                              tool_calls=[]))
    if not any(step["role"] == "assistant" for step in steps):
        raise InputError(source.name, "OpenManus log without an agent's turn")
    stem = source.name.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    return iter([log_episode(source, FORMAT, stem, steps, ungraded(), {})])


def _answer(steps: list[dict[str, Any]], tool: str, output: str) -> None:
    """A tool's result as the answer to the earliest call of that tool not yet answered."""
    answered = {step.get("tool_call_id") for step in steps}
    call = next((c for s in reversed(steps) if s["role"] == "assistant" for c in s["tool_calls"]
                 if c["name"] == tool and c["id"] not in answered), None)
    failed = bool(FAILED.search(output))
    steps.append(dict(role="tool", content=output.strip(), tool_call_id=call["id"] if call else None,
                      is_error=failed, error=f"{tool} failed" if failed else None))
