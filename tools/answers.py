"""Tool environments of the families whose submission is an answer: literature (search and read over the task's
collection snapshot, then submit) and long-context (the documents are in the prompt: submit only)."""

from __future__ import annotations

from typing import Any

from taskforge.graders.literature.environment import TOOLS as SEARCH_TOOLS
from taskforge.graders.literature.environment import SearchEnvironment, environment_for
from taskforge.schemas.locations import Location
from taskforge.tools.base import ANSWER_SUBMIT, SUBMIT, arguments_of, clipped, unknown_tool


class AnswerEnvironment:
    """Submit an answer, after calling the family's own tools (`search`: the literature search environment, or
    none). The submission is the answer as submitted."""

    def __init__(self, family: str, search: SearchEnvironment | None = None):
        self.family = family
        self.search = search
        self.submitted = False
        self._answer = ""

    @property
    def tools(self) -> list[dict[str, Any]]:
        return [*(SEARCH_TOOLS if self.search is not None else []), ANSWER_SUBMIT]

    def call(self, name: str, arguments: dict[str, Any] | str) -> str:
        try:
            args = arguments_of(arguments)
        except ValueError as exc:
            return f"error: {exc}"
        if name == SUBMIT:
            self._answer, self.submitted = str(args.get("answer", "")), True
            return "submitted"
        if self.search is not None and name in ("search", "read"):
            return clipped(self.search.call(name, args))
        return unknown_tool(name, self.tools)

    def submission(self) -> str:
        return self._answer

    def close(self) -> None:
        """Nothing to release (the search index is shared within the process)."""


def literature_environment(environment: dict[str, Any], data_dir: Location | None) -> AnswerEnvironment:
    """A literature task's tools over its collection snapshot under `data_dir` (a data dir or a release folder)."""
    return AnswerEnvironment("literature", environment_for(environment, data_dir))
