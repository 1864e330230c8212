"""The SWE statement parts: the issue the solver reads describes symptoms, never the fix, and states the
interface the hidden tests need (see `taskforge.graders.swe.statement` for what counts).

The statement is read from the prompt the solver sees (the `<issue>` block of
the user message), and the names already in the repository are looked up in
the task's snapshot (its work tree is the base commit: the leakage audit fails a snapshot whose tree differs),
as are the test files the expected exceptions and warnings are read from (`graders.swe.expectations`).
"""

from __future__ import annotations

import re
from pathlib import Path

from taskforge.graders.swe.expectations import hidden_test_expectations
from taskforge.graders.swe.safe_git import names_in_tree, text_in_tree
from taskforge.graders.swe.harness import cache_root
from taskforge.graders.swe.specification import unspecified_behaviour
from taskforge.graders.swe.statement import names_the_fix, patch_names, unstated_interface
from taskforge.schemas import Task, ValidationResult
from taskforge.schemas.swe import SwePayload, SweReference

_ISSUE = re.compile(r"<issue>\n?(.*?)\n?</issue>", re.DOTALL)


def shown_statement(task: Task) -> str:
    """The issue as the solver sees it: the `<issue>` blocks of the prompt, else all of the user's messages."""
    visible = "\n".join(message.content for message in task.prompt if message.role == "user")
    blocks = _ISSUE.findall(visible)
    return "\n".join(blocks) if blocks else visible


def _statement_and_names(task: Task) -> tuple[str, str, str, set[str], Path]:
    """The statement as shown, the fix, the test patch, the names the patches use that the base commit has, and
    the snapshot (the work tree at the base commit)."""
    reference = SweReference.of(task)
    snapshot = cache_root() / task.environment["snapshot"]
    existing = names_in_tree(snapshot, patch_names(reference.patch, reference.test_patch, snapshot))
    return shown_statement(task), reference.patch, reference.test_patch, existing, snapshot


class StatementHidesFix:
    """A part of SWE `leakage`: rejects a statement that names the fix (a change title, the fix commit's
    subject, a quoted line of the fix, an internal name only the fix introduces)."""

    name = "statement_hides_fix"

    def applies_to(self, task: Task) -> bool:
        return task.family == "swe"

    def run(self, task: Task) -> ValidationResult:
        statement, patch, test_patch, existing, snapshot = _statement_and_names(task)
        problems = names_the_fix(statement, patch, test_patch, SweReference.of(task).fix_message, existing, snapshot)
        return ValidationResult(check=self.name, passed=not problems, score=0.0 if problems else 1.0,
                                reason="; ".join(problems) or None)


def unstated_expectations(task: Task, statement: str) -> list[str]:
    """What the FAIL_TO_PASS tests expect to be raised or warned (re-read with `ast` from the test patch over the
    snapshot's files) that the statement does not state. The list of FAIL_TO_PASS tests is the stored one: the
    execution part rejects a task whose list differs from what its runs give."""
    snapshot = cache_root() / task.environment["snapshot"]
    expected = hidden_test_expectations(SweReference.of(task).test_patch, lambda path: text_in_tree(snapshot, path),
                                        list(SwePayload.of(task).FAIL_TO_PASS))
    return list(dict.fromkeys(e.text for found in expected.values() for e in found if not e.stated_in(statement)))


class StatementStatesInterface:
    """A part of SWE `reference`: rejects a task whose hidden tests call a name only the solution brings and the
    statement never mentions, or expect an exception or warning (and its message pattern) the statement never
    states (no solver could pass them without the reference), or whose statement, written from symptoms, shows
    only that new names are missing while their docstrings say too little to specify a behaviour
    (`graders.swe.specification`: the hidden tests then check a format no statement gives)."""

    name = "statement_states_interface"

    def applies_to(self, task: Task) -> bool:
        return task.family == "swe"

    def run(self, task: Task) -> ValidationResult:
        statement, patch, test_patch, existing, snapshot = _statement_and_names(task)
        unstated = unstated_interface(statement, patch, test_patch, existing, snapshot)
        expectations = unstated_expectations(task, statement)
        unspecified = unspecified_behaviour(statement, patch, test_patch, existing, snapshot)
        problems = ([f"the hidden tests call {', '.join(unstated)}, which the statement never mentions"] if unstated
                    else []) + ([f"the hidden tests expect what the statement never states: {'; '.join(expectations)}"]
                                if expectations else []) + ([unspecified] if unspecified else [])
        return ValidationResult(check=self.name, passed=not problems, score=0.0 if problems else 1.0,
                                reason="; ".join(problems) or None)
