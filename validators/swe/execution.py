"""The SWE family's execution checks: no-op and reference, graded in the sandbox (network off).

Both re-derive FAIL_TO_PASS / PASS_TO_PASS from runs of the held-out tests
(what the test patch touches, read off it again: see `held_out_targets`) from
the task's snapshot: once with the test patch alone, `repeats` times with the
solution too — never from the lists the task stores. The no-op check grades
the empty patch against the derived lists and the stored ones: it must fail
both. The reference check grades the solution, every repeat, against the
stored lists and requires them to equal the derived ones (a FAIL_TO_PASS test
that passes before the patch, or one left out, is named). The runs come from
the run cache (`runs/` in the SWE cache, keyed by the content hash of snapshot,
environment, recipe, test files, both patches and repeats), so at build time
they are the builder's own session, and a changed patch is run again.
"""

from __future__ import annotations

from typing import Any

from taskforge.graders.swe.grading import Harvest, Verdict, grade, harvest
from taskforge.graders.swe.safe_git import line_counts
from taskforge.graders.swe.harness import Outcomes, TaskBed, cache_root, cached_runs
from taskforge.graders.swe.patch import held_out_targets, split_files
from taskforge.schemas import Task, ValidationResult
from taskforge.schemas.swe import SweGrader, SwePayload, SweReference

MIN_REPEATS = 3


def task_bed(task: Task) -> TaskBed:
    """The task's test bed, running the held-out tests as the test patch gives them (read off it again)."""
    test_patch = SweReference.of(task).test_patch
    snapshot = cache_root() / task.environment["snapshot"]
    sizes = line_counts(snapshot, [piece.old_path for piece in split_files(test_patch)])
    targets = tuple(held_out_targets(test_patch, sizes))
    return TaskBed.of(task.payload, task.grader, task.environment, test_files=targets)


def outcomes_for(task: Task) -> Outcomes:
    """The runs of a task in the sandbox (from the run cache when the same runs were made before)."""
    reference = SweReference.of(task)
    repeats = max(MIN_REPEATS, SweGrader.of(task).repeats)
    return cached_runs(task_bed(task), reference.patch, reference.test_patch, repeats, label="swe-validate")


def derived_lists(outcomes: Outcomes) -> Harvest:
    """FAIL_TO_PASS / PASS_TO_PASS as the runs give them."""
    return harvest(outcomes.empty.statuses, [run.statuses for run in outcomes.solution])


def list_differences(task: Task, derived: Harvest, before: dict[str, str]) -> list[str]:
    """How the stored lists differ from the derived ones, test by test."""
    problems = []
    payload = SwePayload.of(task)
    stored_f2p, stored_p2p = set(payload.FAIL_TO_PASS), set(payload.PASS_TO_PASS)
    for test in sorted(stored_f2p - set(derived.fail_to_pass)):
        why = ("passes before the patch" if before.get(test) in ("PASSED", "XFAIL") else
               "is flaky" if test in derived.flaky else "does not pass with the solution")
        problems.append(f"FAIL_TO_PASS names {test}, which {why}")
    problems += [f"FAIL_TO_PASS leaves out {test}, which fails before the patch and passes after it"
                 for test in sorted(set(derived.fail_to_pass) - stored_f2p)]
    problems += [f"PASS_TO_PASS names {test}, which does not pass both before and after the patch"
                 for test in sorted(stored_p2p - set(derived.pass_to_pass))]
    problems += [f"PASS_TO_PASS leaves out {test}" for test in sorted(set(derived.pass_to_pass) - stored_p2p)]
    return problems


class SweNoOpCheck:
    """Grades the empty patch against the derived lists and the stored ones: it must resolve neither (a task
    with no FAIL_TO_PASS test always fails here)."""

    name = "swe_noop"

    def applies_to(self, task: Task) -> bool:
        return task.family == "swe"

    def run(self, task: Task) -> ValidationResult:
        outcomes = outcomes_for(task)
        derived = derived_lists(outcomes)
        on_derived = grade(outcomes.empty.statuses, derived.fail_to_pass, derived.pass_to_pass)
        on_stored = grade(outcomes.empty.statuses, SwePayload.of(task).FAIL_TO_PASS, SwePayload.of(task).PASS_TO_PASS)
        detail: dict[str, Any] = {"verdict": on_stored.summary(), "derived_verdict": on_derived.summary(),
                                  "run": outcomes.empty.summary(), "runs_cached": outcomes.cached}
        if on_derived.resolved or on_stored.resolved:
            lists = SwePayload.of(task).FAIL_TO_PASS if on_stored.resolved else derived.fail_to_pass
            why = ("there is no FAIL_TO_PASS test: the held-out tests already pass at the base commit"
                   if not lists else "the empty patch passes every FAIL_TO_PASS test")
            return ValidationResult(check=self.name, passed=False, score=1.0,
                                    reason=f"the empty patch resolves the task ({why})", detail=detail)
        return ValidationResult(check=self.name, passed=True, score=0.0, detail=detail)


class SweReferenceCheck:
    """Grades the solution in every repeated run against the stored lists, which must equal the lists the runs
    give: the solution must resolve the task every time."""

    name = "swe_reference"

    def applies_to(self, task: Task) -> bool:
        return task.family == "swe"

    def run(self, task: Task) -> ValidationResult:
        outcomes = outcomes_for(task)
        if not outcomes.solution_applied:
            return ValidationResult(check=self.name, passed=False, score=0.0,
                                    reason="the solution patch does not apply")
        f2p, p2p = SwePayload.of(task).FAIL_TO_PASS, SwePayload.of(task).PASS_TO_PASS
        verdicts: list[Verdict] = [grade(run.statuses, f2p, p2p) for run in outcomes.solution]
        scores = [verdict.score for verdict in verdicts]
        failing = sorted({t for v in verdicts for t in v.f2p_failure + v.p2p_failure})
        problems = list_differences(task, derived_lists(outcomes), outcomes.empty.statuses)
        if failing:
            problems.insert(0, f"the solution does not resolve the task; failing: {', '.join(failing[:5])}")
        detail = {"scores": scores, "verdicts": [v.summary() for v in verdicts],
                  "runs": [run.summary() for run in outcomes.solution], "runs_cached": outcomes.cached}
        return ValidationResult(check=self.name, passed=not problems, score=min(scores) if not problems else 0.0,
                                reason="; ".join(problems[:6]) or None, detail=detail)
