"""The problem statement of a candidate: the linked issue's text where it is known, else the commit message.

Issues are linked the way GitHub links them (`fixes #12`, `closes #12` …) in the
commit or pull-request message. Issue texts come from an issues export beside
the history (JSON lines of `number`, `title`, `body` and optionally `comments`
with `createdAt` and `body`, as `gh issue list --json` writes them); comments
made before the fix was first committed become the hints, as in SWE-bench.
Where an endpoint is configured, the builder agent (`taskforge.agents.swe`) rewrites the
text into the issue a user would have filed; a rewrite that quotes the fix is
sent back, and a rewrite that fails or is skipped leaves the raw text.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from pathlib import Path

from taskforge.agents.client import Agents
from taskforge.agents.swe import rewrite_problem_statement
from taskforge.schemas import InputError

LINK_KEYWORDS = ("close", "closes", "closed", "fix", "fixes", "fixed", "resolve", "resolves", "resolved")
_LINK = re.compile(rf"\b(?:{'|'.join(LINK_KEYWORDS)})\b:?\s+#(\d+)", re.IGNORECASE)
_MERGE_LINE = re.compile(r"^Merge (?:pull request|branch|remote-tracking branch) .*$", re.IGNORECASE)
_PR_SUFFIX = re.compile(r"\s*\(#(\d+)\)\s*$")
_MERGED_PR = re.compile(r"^Merge pull request #(\d+)", re.IGNORECASE)
_TRAILER = re.compile(r"^(Signed-off-by|Co-authored-by|Reviewed-by|Acked-by|Change-Id):", re.IGNORECASE)


def linked_issues(message: str) -> list[int]:
    """Issue numbers a message says it closes, fixes or resolves, in order, without repeats."""
    return list(dict.fromkeys(int(n) for n in _LINK.findall(message)))


def pull_request_number(message: str) -> int | None:
    """The pull request a commit merges (`Merge pull request #N`) or was squashed from (`subject (#N)`)."""
    first = message.strip().splitlines()[0] if message.strip() else ""
    for pattern in (_MERGED_PR, _PR_SUFFIX):
        match = pattern.search(first)
        if match:
            return int(match[1])
    return None


def message_statement(message: str) -> str:
    """A commit message as a problem statement: merge headers, PR suffixes, trailers, link words and repeated
    lines (a pull request's title is often also its first commit's subject) removed."""
    lines: list[str] = []
    for line in message.strip().splitlines():
        if _MERGE_LINE.match(line) or _TRAILER.match(line):
            continue
        line = _LINK.sub("", _PR_SUFFIX.sub("", line)).rstrip(" .,;")
        if not line.strip() or line not in lines:
            lines.append(line)
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()


@dataclass(frozen=True)
class Issue:
    """One issue of an issues export, with its comments as (created_at, body) pairs."""

    number: int
    title: str
    body: str
    comments: tuple[tuple[str, str], ...] = ()


def load_issues(path: Path) -> dict[int, Issue]:
    """Issues by number from a JSON-lines export; a bad line is an input error naming the file and line."""
    issues = {}
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            raw = json.loads(line)
            comments = tuple((str(c.get("createdAt") or c.get("created_at") or ""), str(c.get("body") or ""))
                             for c in raw.get("comments") or [])
            issues[int(raw["number"])] = Issue(int(raw["number"]), str(raw.get("title") or ""),
                                               str(raw.get("body") or ""), comments)
        except (json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
            raise InputError(str(path), f"line {lineno} is not an issue record ({type(exc).__name__})") from None
    return issues


@dataclass(frozen=True)
class Statement:
    """The problem statement, the hints, where the text came from (`issue`, `commit`, `rewritten`), and how the
    agent's rewrite went (`ok`, `skipped`, `failed`, with the reason)."""

    text: str
    hints: str
    origin: str
    rewrite: str = "skipped"
    rewrite_reason: str | None = None


def problem_statement(message: str, issues: dict[int, Issue], diff: str, repo: str, first_commit_at: str,
                      subject: str, agents: Agents) -> Statement:
    """The statement of a candidate: linked issue texts (SWE-bench joins `title\\nbody`), else the message,
    rewritten by the builder agent when it answers. Hints are the linked issues' comments made before
    `first_commit_at` (ISO 8601, UTC). `diff` is the whole change, tests included (the agent's material)."""
    linked = [issues[n] for n in linked_issues(message) if n in issues]
    if linked:
        hints = "\n".join(body for issue in linked for at, body in issue.comments if at and at < first_commit_at)
        raw = Statement("".join(f"{i.title}\n{i.body}\n" for i in linked), hints, "issue")
    else:
        raw = Statement(message_statement(message), "", "commit")
    reply = rewrite_problem_statement(agents, repo=repo, diff=diff, commit_message=message, subject=subject,
                                      issue_text=raw.text if linked else None)
    if reply.ok and reply.value is not None:
        return Statement(f"{reply.value.title}\n{reply.value.statement}", raw.hints, "rewritten", "ok")
    return replace(raw, rewrite=reply.status, rewrite_reason=reply.reason)
