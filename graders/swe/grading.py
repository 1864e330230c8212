"""Grading of SWE tasks as small pure functions: test logs to status maps, status maps to verdicts.

The definitions are SWE-bench's: a test counts as passed when it PASSED or
XFAILed; FAIL_TO_PASS are the tests that fail (or do not exist) before the
solution and pass after it; PASS_TO_PASS pass both before and after; a
submission resolves a task when every FAIL_TO_PASS test passes and every
PASS_TO_PASS test still passes (or is skipped). A test whose outcome changes
between repeated runs of the same code is flaky and is in neither list.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable

PASSED, FAILED, SKIPPED, ERROR, XFAIL, XPASS = "PASSED", "FAILED", "SKIPPED", "ERROR", "XFAIL", "XPASS"
STATUSES = (PASSED, FAILED, SKIPPED, ERROR, XFAIL, XPASS)
StatusMap = dict[str, str]

_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_STATUS_FIRST = re.compile(rf"^({'|'.join(STATUSES)})\s+(\S+)")
_TEST_FIRST = re.compile(rf"^(\S+::\S+)\s+({'|'.join(STATUSES)})(?:\s|$)")
_SKIP_SUMMARY = re.compile(r"^\[\d+\]")


def parse_pytest_log(log: str) -> StatusMap:
    """Test id → status from the output of `pytest -rA` (the short summary and verbose lines).

    Skip summaries (`SKIPPED [2] file.py:10: reason`) name no test and are ignored;
    the last status seen for a test wins.
    """
    statuses: StatusMap = {}
    for raw in log.splitlines():
        line = _ANSI.sub("", raw).strip()
        status_first = _STATUS_FIRST.match(line)
        if status_first:
            status, test = status_first.groups()
            if status == SKIPPED and _SKIP_SUMMARY.match(test):
                continue
            statuses[test] = status
            continue
        test_first = _TEST_FIRST.match(line)
        if test_first:
            statuses[test_first[1]] = test_first[2]
    return statuses


LOG_PARSERS: dict[str, Callable[[str], StatusMap]] = {"pytest": parse_pytest_log}
"""Log parsers by the name a recipe gives (`recipe["log_parser"]`)."""


def is_passing(test: str, statuses: StatusMap) -> bool:
    """The test ran and passed (an expected failure counts as passing)."""
    return statuses.get(test) in (PASSED, XFAIL)


def is_kept(test: str, statuses: StatusMap) -> bool:
    """A PASS_TO_PASS test is kept when it passes or is skipped."""
    return is_passing(test, statuses) or statuses.get(test) == SKIPPED


@dataclass(frozen=True)
class Harvest:
    """FAIL_TO_PASS / PASS_TO_PASS from one run before and repeated runs after the solution, flaky tests dropped."""

    fail_to_pass: list[str]
    pass_to_pass: list[str]
    flaky: list[str]
    fail_to_fail: list[str] = field(default_factory=list)
    pass_to_fail: list[str] = field(default_factory=list)


def harvest(before: StatusMap, after_runs: list[StatusMap]) -> Harvest:
    """Classify every test seen after the solution by its outcome before it; flaky ones (outcomes differ
    between the repeated runs after the solution) are set aside."""
    if not after_runs:
        raise ValueError("harvest needs at least one run after the solution")
    tests = sorted(set().union(*after_runs))
    flaky = [t for t in tests if len({is_passing(t, run) for run in after_runs}) > 1]
    f2p, p2p, f2f, p2f = [], [], [], []
    for test in tests:
        if test in flaky:
            continue
        after = is_passing(test, after_runs[0])
        before_ok = is_passing(test, before)
        (p2p if before_ok and after else f2p if after else p2f if before_ok else f2f).append(test)
    return Harvest(fail_to_pass=f2p, pass_to_pass=p2p, flaky=flaky, fail_to_fail=f2f, pass_to_fail=p2f)


@dataclass(frozen=True)
class Verdict:
    """How one run of the held-out tests grades against a task: which listed tests succeeded or failed."""

    f2p_success: list[str]
    f2p_failure: list[str]
    p2p_success: list[str]
    p2p_failure: list[str]
    patch_applied: bool = True

    @property
    def resolved(self) -> bool:
        """SWE-bench's FULL resolution: the patch applied, every FAIL_TO_PASS passes, every PASS_TO_PASS kept.

        A task with no FAIL_TO_PASS test is resolved by any patch that keeps
        PASS_TO_PASS, the empty one included: the no-op check rejects such tasks.
        """
        return self.patch_applied and not self.f2p_failure and not self.p2p_failure

    @property
    def score(self) -> float:
        """1.0 when resolved, else 0.0 (SWE-bench grades issue repair as all or nothing)."""
        return 1.0 if self.resolved else 0.0

    def summary(self) -> dict[str, object]:
        """A JSON-ready record of the verdict (stored with check results)."""
        return {"resolved": self.resolved, "patch_applied": self.patch_applied,
                "FAIL_TO_PASS": {"success": self.f2p_success, "failure": self.f2p_failure},
                "PASS_TO_PASS": {"success": self.p2p_success, "failure": self.p2p_failure}}


def grade(statuses: StatusMap, fail_to_pass: list[str], pass_to_pass: list[str]) -> Verdict:
    """Grade one run's status map against a task's FAIL_TO_PASS and PASS_TO_PASS lists."""
    return Verdict(
        f2p_success=[t for t in fail_to_pass if is_passing(t, statuses)],
        f2p_failure=[t for t in fail_to_pass if not is_passing(t, statuses)],
        p2p_success=[t for t in pass_to_pass if is_kept(t, statuses)],
        p2p_failure=[t for t in pass_to_pass if not is_kept(t, statuses)],
    )


def fails_a_listed_test(statuses: StatusMap, fail_to_pass: list[str], pass_to_pass: list[str]) -> bool:
    """Whether a listed test the run reached fails it: a FAIL_TO_PASS test that ran and did not pass, or a
    PASS_TO_PASS test that ran and was not kept. A run stopped at its first failure grades 0 exactly when this
    holds (the tests it reached ran as in the whole run; the others are unknown)."""
    return (any(t in statuses and not is_passing(t, statuses) for t in fail_to_pass)
            or any(t in statuses and not is_kept(t, statuses) for t in pass_to_pass))


def unapplied(fail_to_pass: list[str], pass_to_pass: list[str]) -> Verdict:
    """The verdict on a submission whose patch does not apply: nothing succeeded."""
    return Verdict(f2p_success=[], f2p_failure=list(fail_to_pass), p2p_success=[],
                   p2p_failure=list(pass_to_pass), patch_applied=False)
