"""SWE hooks: the builder writes an issue-style problem statement from a fix; the reviewer checks it.

The writer sees the fix's diff without its tests, so it can describe the
behaviour that was wrong, and the tests added with the fix apart, as the
behaviour its statement must state exactly (the names, inputs, results and
errors a solver cannot guess). Its statement must describe the symptom and
the expected behaviour, never the fix: one that shows diff syntax or quotes a
line the fix or its tests add (imports aside) is sent back. The reviewer, in a
call of its own, checks that the statement states what the tests check,
hides the fix, and describes the bug the fix fixes; a rewrite it rejects is
not used.
"""

from __future__ import annotations

import re
from typing import Collection, Sequence

from pydantic import BaseModel, Field

from taskforge.agents.client import Agents, Reply
from taskforge.agents.context import Part
from taskforge.agents.material import parts_fit
from taskforge.agents.separation import certify
from taskforge.agents.verdicts import SEVERITY, Review, review_model

WRITER_SYSTEM = (
    "You write GitHub issues. From a commit that fixed a bug — its message, the diff of the fix, and the tests "
    "added with it — write the issue a user would have filed before the fix: what they did, what happened, what "
    "they expected, with a minimal example if one helps. The tests check the fixed behaviour exactly: a developer "
    "who reads only your issue must know exactly what has to happen — which function or command, with which "
    "inputs, and the expected result or error (its type, and its message where the tests check it). Never "
    "describe or hint at the fix (no changed code, no file or line of the patch, no diff), and never mention or "
    "quote the tests."
)
REVIEWER_SYSTEM = (
    "You review the problem statement of a software-repair task that someone else wrote from a fix. A solver will "
    "see only the statement and the repository as it was before the fix; hidden tests, shown to you, decide "
    "whether its repair is right. Your main job: verify that the statement states exactly the behaviour those "
    "tests check, so that a solver who follows it to the letter passes them and never has to guess a name, an "
    "error type, a message or a value the tests check. Verify too that it does not give the fix away (no changed "
    "code, file or line of the patch) and that it describes the bug the fix fixes, with nothing in the fix or the "
    f"tests contradicting it. {SEVERITY}"
)
MIN_QUOTED_CHARS = 12
_DIFF_MARKERS = ("diff --git", "\n@@ ", "\n+++ ", "\n--- a/")
_FILE = re.compile(r"^diff --git a/(\S+) b/", re.M)
_TEST_PATH = re.compile(r"(^|/)(tests?|testing)/|(^|/)test_[^/]*$|_tests?\.py$|(^|/)conftest\.py$")
_IMPORT = re.compile(r"^(import\s+\S|from\s+\S+\s+import\s)")


class ProblemStatement(BaseModel):
    """An issue text for an SWE task."""

    title: str = Field(description="the issue title, one line")
    statement: str = Field(description="the issue body: steps, observed and expected behaviour")


StatementReview = review_model("StatementReview", "The reviewer's verdict on an SWE problem statement.", {
    "behaviour_stated": "a developer who reads only the statement knows exactly the behaviour the tests check "
                        "(what is called, with which inputs, what must result)",
    "fix_hidden": "the statement does not describe or hint at how the fix is written",
    "faithful": "the statement describes the bug the fix fixes, and nothing in the fix or the tests contradicts it",
})


def split_diff(diff: str) -> tuple[str, str]:
    """A unified diff split into the fix (files that are not tests) and the tests (test files and folders)."""
    starts = [m.start() for m in _FILE.finditer(diff)]
    if not starts:
        return diff, ""
    fix, tests = [diff[: starts[0]]], []
    for begin, end in zip(starts, [*starts[1:], len(diff)]):
        chunk = diff[begin:end]
        (tests if _TEST_PATH.search(_FILE.match(chunk).group(1)) else fix).append(chunk)
    return "".join(fix), "".join(tests)


def changed_lines(diff: str) -> set[str]:
    """The lines a unified diff adds that are long enough to give it away if quoted (imports aside: a statement
    may well name the module it is about)."""
    added = {line[1:].strip() for line in diff.splitlines() if line.startswith("+") and not line.startswith("+++")}
    removed = {line[1:].strip() for line in diff.splitlines() if line.startswith("-") and not line.startswith("---")}
    return {line for line in added - removed if len(line) >= MIN_QUOTED_CHARS and not _IMPORT.match(line)}


def fix_leaks(text: str, fix: str, tests: str = "") -> list[str]:
    """What in `text` gives the fix away: diff syntax, or a line quoted from what the fix or its tests add."""
    problems = [f"it contains diff syntax ({marker.strip()!r})" for marker in _DIFF_MARKERS if marker in f"\n{text}"]
    problems += [f"it quotes a line the fix adds: {line!r}" for line in sorted(changed_lines(fix)) if line in text]
    problems += [f"it quotes a line of the new tests: {line!r}" for line in sorted(changed_lines(tests))
                 if line in text]
    return problems


def _material(commit_message: str, fix: str, tests: str, issue_text: str | None, symptoms: str | None = None,
              required_names: Sequence[str] = ()) -> list[Part]:
    """The commit, the fix and its tests, as the writer and the reviewer read them (the diffs cut first)."""
    parts = [Part(f"# Commit message\n\n{commit_message}", keep=True)]
    if issue_text:
        parts.append(Part(f"# Linked issue text\n\n{issue_text}", keep=True))
    if symptoms:
        parts.append(Part("# What the failing tests printed before the fix (describe these symptoms)\n\n"
                          f"{symptoms}", unit="lines"))
    if required_names:
        parts.append(Part("# Names the statement must give (the tests call them and the fix adds them)\n\n"
                          + ", ".join(required_names), keep=True))
    parts.append(Part(f"# The fix (for understanding only; never reveal it)\n\n```diff\n{fix}\n```", unit="lines"))
    parts.append(Part("# The tests added with the fix (the behaviour to state exactly; never quote them)\n\n"
                      f"```diff\n{tests or '(no test files in this diff)'}\n```", unit="lines"))
    return parts


def write_problem_statement(agents: Agents, *, repo: str, fix: str, tests: str, commit_message: str, subject: str,
                            issue_text: str | None = None, symptoms: str | None = None,
                            required_names: Sequence[str] = ()) -> Reply[ProblemStatement]:
    """Ask the builder for the issue of the fix in `fix`, stating exactly what `tests` check."""
    shown = parts_fit([Part(f"Repository: {repo}", keep=True),
                       *_material(commit_message, fix, tests, issue_text, symptoms, required_names)],
                      view="the diffs cut to their first and last lines")

    def check(reply: ProblemStatement) -> None:
        """The statement must not give the fix away, and must name the interface the tests call."""
        text = f"{reply.title}\n{reply.statement}"
        problems = fix_leaks(text, fix, tests)
        problems += [f"it never names {name!r}" for name in required_names if name not in text]
        if problems:
            raise ValueError("the statement cannot be used: " + "; ".join(problems))

    return agents.ask("builder", WRITER_SYSTEM, shown, ProblemStatement, purpose="swe_problem_statement",
                      family="swe", subject=subject, check=check)


def review_problem_statement(agents: Agents, statement: ProblemStatement, *, fix: str, tests: str,
                             commit_message: str, subject: str, built_by: Collection[str] = ()) -> Reply[Review]:
    """Ask the reviewer whether `statement` states what `tests` check and hides `fix`; `built_by` lists the call
    ids that wrote it, and a review from one of them is refused (`RoleSeparationError`)."""
    shown = parts_fit([Part(f"# The problem statement (all the solver reads)\n\n{statement.title}\n\n"
                            f"{statement.statement}", keep=True), *_material(commit_message, fix, tests, None)],
                      view="the diffs cut to their first and last lines")
    return certify(agents, "reviewer", REVIEWER_SYSTEM, shown, StatementReview, purpose="review", family="swe",
                   subject=subject, built_by=built_by)


def rewrite_problem_statement(agents: Agents, *, repo: str, diff: str, commit_message: str, subject: str,
                              issue_text: str | None = None, symptoms: str | None = None,
                              required_names: Sequence[str] = ()) -> Reply[ProblemStatement]:
    """The builder's problem statement of the fix in `diff` (the whole commit diff, tests included: they are
    split apart here), used only once the reviewer accepts it. `subject` is the instance id; `issue_text`, when
    the history links an issue, is given as material to rewrite; `symptoms` is what the failing tests printed
    before the fix; `required_names` must each appear in the statement (the interface the hidden tests call). On `skipped` (no builder, or no reviewer to
    check a rewrite) or `failed` (a reply that keeps quoting the fix, a rejected or failed review) the builder
    keeps its deterministic statement."""
    reason = agents.skip_reason("builder") or agents.skip_reason("reviewer")
    if reason:
        return Reply(status="skipped", reason=reason)
    fix, tests = split_diff(diff)
    written = write_problem_statement(agents, repo=repo, fix=fix, tests=tests, commit_message=commit_message,
                                      subject=subject, issue_text=issue_text, symptoms=symptoms,
                                      required_names=required_names)
    if not written.ok:
        return written
    review = review_problem_statement(agents, written.value, fix=fix, tests=tests, commit_message=commit_message,
                                      subject=subject, built_by=[written.call.call_id])
    if not review.ok:
        return Reply(status="failed", reason=f"review {review.reason}", call=written.call)
    if not review.value.accepted:
        return Reply(status="failed", reason=f"the reviewer rejected it: {review.value.rejection()}",
                     call=written.call)
    return written
