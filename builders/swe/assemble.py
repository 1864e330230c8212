"""A candidate change, its statement, environment and harvested test lists, put together as a task."""

from __future__ import annotations

from typing import Any

from taskforge.builders.swe.mining import Candidate
from taskforge.builders.swe.problem import Statement
from taskforge.graders.swe.grading import Harvest
from taskforge.schemas import Message
from taskforge.schemas.swe import repository_group

KIND = "issue_repair"
TIME_BUDGET_S = 3600
SYSTEM = ("You are a software engineer working in a git repository. Resolve the issue by editing the "
          "repository's non-test files; hidden tests will check your change.")


def instance_id(repo: str, candidate: Candidate) -> str:
    """SWE-bench's id, `owner__name-<pull number>`; a change with no pull request uses its commit instead."""
    suffix = str(candidate.pull_number) if candidate.pull_number else candidate.fix_commit[:12]
    return f"{repo.replace('/', '__')}-{suffix}"


def user_prompt(repo: str, base_commit: str, statement: str) -> str:
    """What the solver reads: the issue, and where the repository stands."""
    return (f"The repository {repo} is checked out in your workspace at commit {base_commit}.\n\n"
            f"<issue>\n{statement.strip()}\n</issue>\n\n"
            "Edit the source so that the issue is resolved. Do not change the tests; your change is graded by "
            "running tests you cannot see.")


def payload_for(repo: str, candidate: Candidate, statement: Statement, version: str, setup_commit: str,
                recipe: dict[str, Any], harvest: Harvest) -> dict[str, Any]:
    """The SWE-bench instance fields a solver's harness needs (solution and test patch stay in the reference)."""
    return {
        "instance_id": instance_id(repo, candidate), "repo": repo, "base_commit": candidate.base_commit,
        "problem_statement": statement.text, "hints_text": statement.hints, "statement_origin": statement.origin,
        "created_at": candidate.created_at, "committed_at": candidate.committed_at, "version": version, "environment_setup_commit": setup_commit,
        "pull_number": candidate.pull_number, "issue_numbers": list(candidate.issue_numbers),
        "FAIL_TO_PASS": harvest.fail_to_pass, "PASS_TO_PASS": harvest.pass_to_pass,
        "environment_recipe": recipe, "source_group": repository_group(repo),
    }


def prompt_for(repo: str, candidate: Candidate, statement: Statement) -> list[Message]:
    """The chat messages of the task."""
    return [Message(role="system", content=SYSTEM),
            Message(role="user", content=user_prompt(repo, candidate.base_commit, statement.text))]
