"""Builder hook for the SWE family: an issue-style problem statement written from a fix's diff and message.

The writer sees the diff so it can describe the behaviour that was wrong; its
statement must describe the symptom and the expected behaviour, never the fix.
A statement that quotes a changed line of the diff, or diff syntax, is sent back.
"""

from __future__ import annotations

from typing import Sequence

from pydantic import BaseModel, Field

from taskforge.agents.client import Agents, Reply

SYSTEM = (
    "You write GitHub issues. From a commit that fixed a bug (its message and diff), write the issue a user "
    "would have filed before the fix: what they did, what happened, what they expected, with a minimal example "
    "if one helps. Never describe or hint at the fix: no changed code, no file or line of the patch, no diff."
)
MIN_QUOTED_CHARS = 12
_DIFF_MARKERS = ("diff --git", "\n@@ ", "\n+++ ", "\n--- a/")


class ProblemStatement(BaseModel):
    """An issue text for an SWE task."""

    title: str = Field(description="the issue title, one line")
    statement: str = Field(description="the issue body: steps, observed and expected behaviour")


def changed_lines(diff: str) -> set[str]:
    """The added lines of a unified diff that are long enough to give the fix away if quoted."""
    added = {line[1:].strip() for line in diff.splitlines() if line.startswith("+") and not line.startswith("+++")}
    removed = {line[1:].strip() for line in diff.splitlines() if line.startswith("-") and not line.startswith("---")}
    return {line for line in added - removed if len(line) >= MIN_QUOTED_CHARS}


def fix_leaks(text: str, diff: str) -> list[str]:
    """What in `text` gives the fix away: diff syntax, or a changed line quoted from the diff."""
    problems = [f"it contains diff syntax ({marker.strip()!r})" for marker in _DIFF_MARKERS if marker in f"\n{text}"]
    problems += [f"it quotes a line the fix adds: {line!r}" for line in sorted(changed_lines(diff)) if line in text]
    return problems


def rewrite_problem_statement(agents: Agents, *, repo: str, diff: str, commit_message: str, subject: str,
                              issue_text: str | None = None, symptoms: str | None = None,
                              required_names: Sequence[str] = ()) -> Reply[ProblemStatement]:
    """Ask the builder for a problem statement of the fix in `diff` (the whole commit diff, tests included).

    `subject` is the instance id the statement is for; `issue_text`, when the
    history links an issue, is given as material to rewrite; `symptoms` is what
    the failing tests printed before the fix; `required_names` must each appear
    in the statement (the interface the hidden tests call). A reply that quotes
    the fix or leaves out a required name is repaired like any invalid reply, then reported failed;
    on `skipped` or `failed` the builder keeps its deterministic statement.
    """
    parts = [f"Repository: {repo}", f"Commit message:\n{commit_message}"]
    if issue_text:
        parts.append(f"Linked issue text:\n{issue_text}")
    if symptoms:
        parts.append(f"What the failing tests printed before the fix (describe these symptoms):\n{symptoms}")
    if required_names:
        parts.append("The statement must name each of these, which the tests call and the fix adds: "
                     + ", ".join(required_names))
    parts.append(f"Diff of the fix (for your understanding only; do not reveal it):\n{diff}")

    def check(reply: ProblemStatement) -> None:
        """The statement must not give the fix away, and must name the interface the tests call."""
        text = f"{reply.title}\n{reply.statement}"
        problems = fix_leaks(text, diff)
        problems += [f"it never names {name!r}" for name in required_names if name not in text]
        if problems:
            raise ValueError("the statement cannot be used: " + "; ".join(problems))

    return agents.ask("builder", SYSTEM, "\n\n".join(parts), ProblemStatement, purpose="swe_problem_statement",
                      family="swe", subject=subject, check=check)
