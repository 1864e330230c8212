"""Candidate changes from a repository's history: fixes that change source and tests together.

The first-parent line of the history is walked newest first. A merge commit
stands for its whole pull request (diffed against its first parent, as a
GitHub PR is diffed against its base); any other commit for itself. A change
is a candidate when it touches at least one Python source file and at least
one test file, within limits on files and hunks (SWE-rebench keeps 1–15
files), and has no binary files.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from dataclasses import dataclass, field

import git

from taskforge.builders.swe.problem import linked_issues, pull_request_number
from taskforge.graders.swe.patch import SplitDiff, split_diff, runnable_test_files


@dataclass(frozen=True)
class Limits:
    """Bounds on what counts as a candidate change."""

    max_files: int = 15
    max_hunks: int = 40
    max_commits: int = 2000


@dataclass(frozen=True)
class Candidate:
    """One change of the history: the fix commit, its base, the split diff and what the messages say."""

    fix_commit: str
    base_commit: str
    message: str
    created_at: str
    first_commit_at: str
    pull_number: int | None
    issue_numbers: tuple[int, ...]
    diff: SplitDiff
    test_files: tuple[str, ...]


@dataclass
class MiningReport:
    """What the walk saw: candidates, and the commits it passed over by reason."""

    scanned: int = 0
    candidates: list[Candidate] = field(default_factory=list)
    skipped: Counter = field(default_factory=Counter)


def iso_utc(moment: dt.datetime) -> str:
    """A timestamp as SWE-bench writes `created_at`: ISO 8601 in UTC with a `Z`."""
    return moment.astimezone(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _skip_reason(diff: SplitDiff, runnable_tests: list[str], limits: Limits) -> str | None:
    if not diff.test_files:
        return "no_test_change"
    if not diff.source_files:
        return "no_source_change"
    if not any(path.endswith(".py") for path in diff.source_files):
        return "no_python_source_change"
    if not runnable_tests:
        return "no_runnable_test_file"
    if len(diff.source_files) + len(diff.test_files) > limits.max_files:
        return "too_many_files"
    if diff.hunks > limits.max_hunks:
        return "too_many_hunks"
    if diff.has_binary:
        return "binary_change"
    return None


def _branch_commits(repo: git.Repo, commit: git.Commit) -> list[git.Commit]:
    """The commits a merge brings in (oldest first); just the commit itself for a plain commit."""
    if len(commit.parents) < 2:
        return [commit]
    shas = repo.git.rev_list("--reverse", f"{commit.parents[0].hexsha}..{commit.parents[1].hexsha}").split()
    return [repo.commit(sha) for sha in shas] or [commit]


def mine(repo: git.Repo, head: str, limits: Limits = Limits()) -> MiningReport:
    """Walk the first-parent history from `head`, newest first, and collect candidate changes."""
    report = MiningReport()
    shas = repo.git.rev_list("--first-parent", f"--max-count={limits.max_commits}", head).split()
    for sha in shas:
        report.scanned += 1
        commit = repo.commit(sha)
        if not commit.parents:
            report.skipped["root_commit"] += 1
            continue
        base = commit.parents[0].hexsha
        diff = split_diff(repo.git.diff("--full-index", "--no-renames", "--no-color", "--no-ext-diff", base, sha)
                          + "\n")
        runnable = [p for p in runnable_test_files(diff.test_patch) if p.endswith(".py")]
        reason = _skip_reason(diff, runnable, limits)
        if reason:
            report.skipped[reason] += 1
            continue
        branch = _branch_commits(repo, commit)
        message = commit.message if len(commit.parents) < 2 else "\n".join(
            [commit.message] + [c.message for c in branch if len(c.parents) < 2])
        report.candidates.append(Candidate(
            fix_commit=sha, base_commit=base, message=message.strip(),
            created_at=iso_utc(min(c.authored_datetime for c in branch)),
            first_commit_at=iso_utc(min(c.committed_datetime for c in branch)),
            pull_number=pull_request_number(commit.message),
            issue_numbers=tuple(linked_issues(message)), diff=diff, test_files=tuple(runnable),
        ))
    return report
