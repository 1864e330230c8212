"""The SWE family's contract: SWE-bench instance fields and the environment recipe (payload); the fix,
the held-out test patch and the fix commit (reference); how the held-out tests are run and read (grader)."""

from __future__ import annotations

from typing import Any

from pydantic import model_validator

from taskforge.schemas.family import FamilyGrader, FamilyPayload, FamilyReference

SOURCE_GROUP_PREFIX = "repo:"


def repository_group(repo: str) -> str:
    """The source group of a repository's tasks: `repo:<owner/name>`, lower-cased as GitHub compares names."""
    return f"{SOURCE_GROUP_PREFIX}{repo.lower()}"


class SwePayload(FamilyPayload):
    """A SWE-bench instance (`FAIL_TO_PASS` has at least one test for a task that can be accepted)."""

    instance_id: str
    repo: str
    base_commit: str
    problem_statement: str
    hints_text: str
    created_at: str
    committed_at: str
    version: str
    environment_setup_commit: str
    FAIL_TO_PASS: list[str]
    PASS_TO_PASS: list[str]
    environment_recipe: dict[str, Any]
    issue_numbers: list[int]
    pull_number: int | None
    statement_origin: str
    source_group: str = ""
    """What the task shares its source with: every task of one repository, at any commit, is one group
    (`repository_group`; a row written before the field reads it from `repo`). A release keeps a group in one
    split (`store/splits.py`): a later commit's workspace holds an earlier task's fix."""

    @model_validator(mode="before")
    @classmethod
    def _group_from_repo(cls, value: Any) -> Any:
        if isinstance(value, dict) and not value.get("source_group") and isinstance(value.get("repo"), str):
            return {**value, "source_group": repository_group(value["repo"])}
        return value


class SweReference(FamilyReference):
    """The solution patch, the held-out test patch, and the commit that fixed the issue with its message."""

    patch: str
    test_patch: str
    fix_commit: str
    fix_message: str = ""


class SweGrader(FamilyGrader):
    """The held-out test files, how their log is parsed, the time limit and the reference repeats."""

    harness: str
    log_parser: str
    test_files: list[str]
    timeout_s: float = 300.0
    repeats: int
