"""Candidate changes from a repository's history: fixes that change source and tests together.

The first-parent line of the history is walked newest first, back to the
cutoff date (`since`: the trained model's knowledge cutoff, so a nightly cycle
keeps mining changes the model cannot have seen, as SWE-rebench does). A merge
commit stands for its whole pull request (diffed against its first parent, as
a GitHub PR is diffed against its base); any other commit for itself. A change
is a candidate when it touches at least one Python source file and at least
one test file, within limits on files and hunks (SWE-rebench keeps 1–15
files), and has no binary files.

Parents are read as git sees them (`rev-list --parents`), so a shallow clone's
boundary commits, whose parents are not there, are skipped as
`shallow_boundary`, and a commit git cannot read is skipped as
`unreadable_commit`: the walk never stops for one commit.

Automated maintenance commits (pre-commit autoupdates, dependency bumps) are
skipped as `maintenance_commit`: they touch tests without a behaviour to fix.

`select` orders the candidates for building: changes that add a test function
first (a behaviour the old code lacks), then multi-file, multi-hunk fixes, then
newest first; and keeps one task per function (a candidate that changes a function a
preferred one already changes is dropped).
"""

from __future__ import annotations

import datetime as dt
import re
from collections import Counter
from dataclasses import dataclass, field

import git

from taskforge.graders.swe.functions import touched_functions
from taskforge.builders.swe.problem import linked_issues, pull_request_number
from taskforge.builders.swe.versioning import file_at
from taskforge.graders.swe.patch import SplitDiff, is_test_path, runnable_test_files, split_diff, split_files


@dataclass(frozen=True)
class Limits:
    """Bounds on what counts as a candidate change."""

    max_files: int = 15
    max_hunks: int = 40
    max_commits: int = 2000
    since: str | None = None
    """ISO date (midnight UTC) or timestamp: only changes committed on or after it are mined (None: the whole
    history)."""


@dataclass(frozen=True)
class Candidate:
    """One change of the history: the fix commit, its base, the split diff and what the messages say."""

    fix_commit: str
    base_commit: str
    message: str
    created_at: str
    first_commit_at: str
    committed_at: str
    pull_number: int | None
    issue_numbers: tuple[int, ...]
    diff: SplitDiff
    test_files: tuple[str, ...]
    functions: tuple[str, ...] = ()

    @property
    def source_hunks(self) -> int:
        """Hunks of the solution patch (the test patch's not counted)."""
        return sum(piece.hunks for piece in split_files(self.diff.patch))


@dataclass
class MiningReport:
    """What the walk saw: candidates, and the commits it passed over by reason."""

    scanned: int = 0
    candidates: list[Candidate] = field(default_factory=list)
    skipped: Counter = field(default_factory=Counter)
    boundary: list[str] = field(default_factory=list)
    """Commits of a shallow clone whose parent is missing (they could not be diffed)."""


def iso_utc(moment: dt.datetime) -> str:
    """A timestamp as SWE-bench writes `created_at`: ISO 8601 in UTC with a `Z`."""
    return moment.astimezone(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


_MAINTENANCE = re.compile(r"pre-commit[.-]ci|pre-commit autoupdate|^(chore|build)\(deps|^bump |dependabot|renovate",
                          re.IGNORECASE | re.MULTILINE)
_NEW_TEST = re.compile(r"^\+\s*(?:async\s+)?def test\w*\(", re.MULTILINE)


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


def _branch_commits(repo: git.Repo, parents: list[str], sha: str) -> list[git.Commit]:
    """The commits a merge brings in (oldest first); just the commit itself for a plain commit."""
    if len(parents) < 2:
        return [repo.commit(sha)]
    shas = repo.git.rev_list("--reverse", f"{parents[0]}..{parents[1]}").split()
    return [repo.commit(s) for s in shas] or [repo.commit(sha)]


def _functions(repo: git.Repo, base: str, fix: str, patch: str) -> tuple[str, ...]:
    """The functions (`path::name`) a solution patch changes, read in the files before and after it."""
    names: set[str] = set()
    for piece in split_files(patch):
        if piece.path.endswith(".py"):
            names |= touched_functions(piece.path, piece.text, file_at(repo, base, piece.old_path),
                                       file_at(repo, fix, piece.new_path))
    return tuple(sorted(names))


def _first_parent_line(repo: git.Repo, head: str, limits: Limits) -> list[tuple[str, list[str], list[str]]]:
    """`(sha, parents, paths changed against the first parent)` along the first-parent line from `head`,
    newest first, as git sees the parents (one `git log`)."""
    since = [f"--since={limits.since} 00:00:00 +0000" if len(limits.since) == 10 else f"--since={limits.since}"
             ] if limits.since else []
    listing = repo.git.log("--first-parent", "--diff-merges=first-parent", "--no-renames", "--name-only",
                           "--format=%x00%H %P", f"--max-count={limits.max_commits}", *since, head)
    walk = []
    for entry in listing.split("\x00")[1:]:
        header, *paths = entry.strip("\n").split("\n")
        sha, *parents = header.split()
        walk.append((sha, parents, [p for p in paths if p]))
    return walk


def _path_skip_reason(paths: list[str]) -> str | None:
    """The reason to pass over a change from its paths alone (before diffing it)."""
    if not any(is_test_path(p) for p in paths):
        return "no_test_change"
    sources = [p for p in paths if not is_test_path(p)]
    if not sources:
        return "no_source_change"
    return None if any(p.endswith(".py") for p in sources) else "no_python_source_change"


def _candidate(repo: git.Repo, sha: str, parents: list[str], limits: Limits, report: MiningReport) -> Candidate | None:
    base = parents[0]
    diff = split_diff(repo.git.diff("--full-index", "--no-renames", "--no-color", "--no-ext-diff", base, sha) + "\n")
    runnable = [p for p in runnable_test_files(diff.test_patch) if p.endswith(".py")]
    commit = repo.commit(sha)
    reason = _skip_reason(diff, runnable, limits) or ("maintenance_commit" if _MAINTENANCE.search(commit.message)
                                                       else None)
    if reason:
        report.skipped[reason] += 1
        return None
    branch = _branch_commits(repo, parents, sha)
    message = commit.message if len(parents) < 2 else "\n".join(
        [commit.message] + [c.message for c in branch if len(c.parents) < 2])
    return Candidate(
        fix_commit=sha, base_commit=base, message=message.strip(),
        created_at=iso_utc(min(c.authored_datetime for c in branch)),
        first_commit_at=iso_utc(min(c.committed_datetime for c in branch)),
        committed_at=iso_utc(commit.committed_datetime),
        pull_number=pull_request_number(commit.message),
        issue_numbers=tuple(linked_issues(message)), diff=diff, test_files=tuple(runnable),
        functions=_functions(repo, base, sha, diff.patch),
    )


def mine(repo: git.Repo, head: str, limits: Limits = Limits(), shallow: frozenset[str] = frozenset()) -> MiningReport:
    """Walk the first-parent history from `head`, newest first, and collect candidate changes; `shallow` names
    the boundary commits of a shallow clone (their parents are missing)."""
    report = MiningReport()
    for sha, parents, paths in _first_parent_line(repo, head, limits):
        report.scanned += 1
        if not parents:
            report.skipped["shallow_boundary" if sha in shallow else "root_commit"] += 1
            report.boundary += [sha] if sha in shallow else []
            continue
        reason = _path_skip_reason(paths)
        if reason:
            report.skipped[reason] += 1
            continue
        try:
            candidate = _candidate(repo, sha, parents, limits, report)
        except (git.GitCommandError, ValueError):
            report.skipped["unreadable_commit"] += 1
            continue
        if candidate is not None:
            report.candidates.append(candidate)
    return report


def preference(candidate: Candidate) -> tuple[int, int, int]:
    """How much a change is worth as a task: one that adds a test function first, then more files (up to 3) and
    more hunks (up to 4)."""
    adds_test = _NEW_TEST.search(candidate.diff.test_patch) is not None
    return -adds_test, -min(len(candidate.diff.source_files), 3), -min(candidate.source_hunks, 4)


def select(candidates: list[Candidate]) -> list[Candidate]:
    """The candidates in build order (preferred first, then newest first), one task per function: a candidate
    that changes a function a preferred candidate already changes is left out."""
    kept, used = [], set()
    for candidate in sorted(candidates, key=preference):
        functions = set(candidate.functions)
        if functions & used:
            continue
        used |= functions
        kept.append(candidate)
    return kept
