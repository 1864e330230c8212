"""The SWE statement check: the issue the solver reads describes symptoms, never the fix, and states the
interface the hidden tests need (see `taskforge.graders.swe_statement` for what counts).

The statement is read from the prompt the solver sees (the `<issue>` block of
the user message), and the names already in the repository are looked up in
the task's snapshot (its work tree is the base commit: the leakage audit fails a snapshot whose tree differs).
"""

from __future__ import annotations

import re

from taskforge.graders.swe_git import names_in_tree
from taskforge.graders.swe_harness import cache_root
from taskforge.graders.swe_statement import names_the_fix, patch_names, unstated_interface
from taskforge.schemas import Task, ValidationResult

_ISSUE = re.compile(r"<issue>\n?(.*?)\n?</issue>", re.DOTALL)


def shown_statement(task: Task) -> str:
    """The issue as the solver sees it: the `<issue>` blocks of the prompt, else all of the user's messages."""
    visible = "\n".join(message.content for message in task.prompt if message.role == "user")
    blocks = _ISSUE.findall(visible)
    return "\n".join(blocks) if blocks else visible


class SweStatementCheck:
    """Rejects a statement that names the fix, or that leaves out a name the hidden tests call and only the
    solution brings."""

    name = "statement"

    def applies_to(self, task: Task) -> bool:
        return task.family == "swe"

    def run(self, task: Task) -> ValidationResult:
        statement = shown_statement(task)
        patch, test_patch = task.reference["patch"], task.reference["test_patch"]
        existing = names_in_tree(cache_root() / task.environment["snapshot"], patch_names(patch, test_patch))
        problems = names_the_fix(statement, patch, test_patch, task.reference.get("fix_message", ""), existing)
        unstated = unstated_interface(statement, patch, test_patch, existing)
        if unstated:
            problems.append(f"the hidden tests call {', '.join(unstated)}, which the statement never mentions")
        return ValidationResult(check=self.name, passed=not problems, score=0.0 if problems else 1.0,
                                reason="; ".join(problems) or None)
