"""Rule-based diagnosis: one or more small pure rules per failure mode of the taxonomy.

Each rule reads signals from an episode's steps (`taskforge.diagnosis.signals`) and returns
a Finding (mode, evidence steps, signal values, confidence) or None. Rules run
only on failed, graded, model-caused episodes (see `taskforge.diagnosis.diagnose`);
`infrastructure_finding` decides first whether the failure was the
infrastructure's. Confidences are set so that a specific signal (a discarded
paper, a violated assumption) outranks a generic one (a clean run before a wrong
answer).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Callable

from taskforge.diagnosis.finding import Finding
from taskforge.diagnosis.signals import (FULL_TRACEBACK, PLAN_INTENT, TEST_FAILURE, WARNING_HINTS, WARNING_SIGN, Call,
                                        assistant_after, assistant_lowered, assistant_steps, assistant_text,
                                        assistant_texts, calls, code_runs, evidence_text, expected_answer, failed,
                                        final_answer, mentions, observations_lowered, observations_text, changes,
                                        fact_origin, first_executed_turn, first_statement, has_traceback, led,
                                        near_identical_groups, per_episode, plan_turns, reads, retrieved,
                                        runs_of_tests, searches, solution_changes, source_ids, task_text,
                                        test_locators, texts_after, tool_steps, unreferenced_observations,
                                        unsupported_claims, words)
from taskforge.schemas import Episode, FailureMode

Rule = Callable[[Episode], "Finding | None"]

MIN_REPEATS = 3
FEW_QUERIES = 2
FEW_SOURCES = 3
AMPLE_SOURCES = 4
STUCK_RETRIEVALS = 6
STUCK_SWITCHES = 3
DRIFT_STEPS = 3
ON_TOPIC = 0.3
OFF_TOPIC = 0.15
FEW_ACTIONS = 1
FORMAT_ERRORS = 3
REFUSALS_RECOVERED_FROM = ("swe",)
"""Families whose runs recover from refused actions as often when they succeed: there only `FORMAT_ERRORS`
refusals never recovered from are the mode."""
UNSUPPORTED_FACTS = 2
"""Facts (numbers, names) an answer's turn must state without support for the answer to count as unsupported
(calibration part of TRAIL: fires on 35 of 80 runs, 60 % of them annotated with a language-only hallucination
against 38 % of all runs; 70 % of those annotated)."""
UNSUPPORTED_CONFIDENCE = 0.4
"""An answer resting on unsupported facts is weak evidence (TRAIL calibration: 60 % precision against 38 % for
always naming the mode): below every specific finding."""
HARNESS_CONFIDENCE = 0.8
"""A failure the evaluation harness's own test results show (a test named, failing after the patch)."""
SHOWN_TESTS = 5
CLEAN_RUN_CONFIDENCE = {"swe": 0.3}
"""A submitted patch that failed is an implementation error by default, but nothing in the trace shows where:
for SWE runs this finding is the fallback, below any confident rule."""
NO_ANSWER_CONFIDENCE = 0.4
"""A run that ended on a clean code run without an answer: the code failed to produce one, but nothing says how."""

DISMISSAL = led("nidoesu", r"not relevant|irrelevant|discard|not useful|off[- ]topic|exclude|skip(?:ping)?|"
                           r"ignore|doesn't (?:help|address)|does not (?:help|address)|unrelated", re.I)
DISMISSED_TEST = re.compile(
    r"unrelated to (?:my|our|the|these|this) (?:change|fix|modification|edit|patch)|pre-?existing "
    r"(?:failure|issue|error|problem|bug|test)|not (?:related|due) to (?:my|our|the|this) (?:change|fix|patch)|"
    r"(?:was|were|is|are) already failing|fail(?:s|ed|ing)? (?:even |also )?(?:before|without) (?:my|our|the|this) "
    r"(?:change|fix|patch)|(?:failure|error)s? (?:is|are|seems?|appears?) (?:to be )?(?:unrelated|environment|flaky)",
    re.I)
DISMISSAL_HINTS = ("unrelated", "existing", "not related", "not due", "fail", "environment", "flaky")
"""What every match of `DISMISSED_TEST` holds (lower-cased); see `mentions`."""
REPOSITORY_TESTS = re.compile(r"pytest\s+(?:-\S+\s+)*\S*tests?/|runtests\.py|bin/test\b|-m unittest \S*tests?|\btox\b")
"""A run of the repository's own test suite (not a scratch script the agent wrote)."""
NEW_FILE = re.compile(r"^diff --git a/(\S+) b/\S+\nnew file mode", re.M)
TEST_PATH = re.compile(r"(?:^|/)(?:tests?|testing)(?:/|_)|(?:^|/)test_\w+\.py$|_tests?\.py$|(?:^|/)conftest\.py$",
                       re.I)
GIVE_UP = re.compile(r"\b(cannot|can't|could not|couldn't|unable to|give up|giving up|not possible|no way to)\b", re.I)
FINDING = led("raftmehvcp", r"\b(result|answer|found|total|mean|average|median|estimate[d]?|half-life|value|"
                            r"count|p-value|accuracy|rate|first)\b[\w -]{0,30}?\s*(?:\bis\b|\bwas\b|=|:)\s*"
                            r"([-+]?\d[\d.,]*(?:e[-+]?\d+)?|[A-Za-z]+-?\d[\w.-]*)",
              re.I)
"""A stated result: a named quantity and a value that holds a digit (`total = 42`, `first drift: S-14`); a bare
word after `is` (`value is used`) is not a finding."""
FINDING_HINTS = ("result", "answer", "found", "total", "mean", "average", "median", "estimate", "half-life", "value",
                 "count", "accuracy", "rate", "first")
"""What every match of `FINDING` holds (lower-cased); see `mentions`."""
INFRASTRUCTURE_ERROR = re.compile(r"connection (?:refused|reset|error)|no space left|sandbox|container (?:died|exited|"
                                  r"crashed)|service unavailable|\b50[234]\b|rate limit|out of memory|\boom\b|"
                                  r"timed? ?out|timeout", re.I)
CUT_OFF = re.compile(r"limit|exit_cost|exit_context|budget|maximum iteration", re.I)
TIMEOUT = re.compile(r"timed? ?out|timeout|time limit|execution_time|timeexceeded", re.I)
ASSUMPTIONS: tuple[tuple[str, re.Pattern[str], re.Pattern[str]], ...] = (
    ("normality", re.compile(r"not normal|non-normal|shapiro[^\n]*p(?:[-_ ]?value)?\s*[=:]\s*0\.0[0-4]|skewed", re.I),
     re.compile(r"ttest|t_test|f_oneway|anova|pearsonr|zscore", re.I)),
    ("stationarity", re.compile(r"non-?stationary|unit root|adf[^\n]*p(?:[-_ ]?value)?\s*[=:]\s*0\.(?:[1-9]|0[5-9])",
                                re.I),
     re.compile(r"ARIMA|SARIMAX|\bVAR\(|grangercausality", re.I)),
    ("independence", re.compile(r"autocorrelat|durbin-watson\s*[=:]\s*(?:0\.\d|[3-4]\.\d)", re.I),
     re.compile(r"\bols\(|linregress|LinearRegression", re.I)),
    ("class balance", re.compile(r"imbalanced|class imbalance|minority class", re.I),
     re.compile(r"accuracy_score", re.I)),
)
ANY_VIOLATION = re.compile("|".join(f"(?:{violation.pattern})" for _, violation, _ in ASSUMPTIONS), re.I)
VIOLATION_HINTS = ("normal", "skew", "stationar", "unit root", "adf", "autocorrelat", "durbin", "imbalanc",
                   "minority class")
"""What every violation above holds (lower-cased); see `mentions`."""
ANY_METHOD = re.compile("|".join(f"(?:{method.pattern})" for _, _, method in ASSUMPTIONS), re.I)


def repeated_actions(episode: Episode) -> Finding | None:
    """Near-identical calls (same tool, ≥60 % shared argument tokens) repeated without new information.

    Re-running a test or script after a change is verification, never repetition: a change between two
    calls of a group starts a new run of repeats. Changes themselves (writing a script again, editing a line
    again) each make something new and are not repeats.
    """
    changed = [c.step for c in changes(episode)]
    best: list[Call] = []
    groups = near_identical_groups([c for c in calls(episode) if not c.is_submit and not c.is_change])
    for group in (g for g in groups if len(g) >= MIN_REPEATS):
        for run in _unchanged_runs(group, changed):
            if len(run) < MIN_REPEATS:
                continue
            observations = [c.observation.content.strip() for c in run if c.observation is not None]
            distinct = len(set(observations))
            all_failed = all(failed(c.observation) for c in run if c.observation is not None) and observations
            if (distinct == 1 or distinct * 2 <= len(observations) or all_failed) and len(run) > len(best):
                best = run
    if not best:
        return None
    observations = [c.observation.content.strip() for c in best if c.observation is not None]
    distinct = len(set(observations))
    exact = len({c.arguments for c in best}) == 1
    confidence = min(0.95, 0.5 + 0.1 * (len(best) - MIN_REPEATS + 1) + (0.15 if distinct <= 1 else 0.0))
    return Finding(
        mode=FailureMode.REPEATS_UNPRODUCTIVE_APPROACH, steps=[c.step for c in best[1:]],
        signals={"tool": best[0].name, "repeats": len(best), "distinct_observations": distinct,
                 "identical_arguments": exact},
        confidence=round(confidence, 3), decisive=best[MIN_REPEATS - 1].step,
        explanation=f"called {best[0].name} {len(best)} times with {'identical' if exact else 'near-identical'} "
                    f"arguments and no change in between; {distinct} distinct result(s) came back",
    )


def _unchanged_runs(group: list[Call], changed: list[int]) -> list[list[Call]]:
    """A group of near-identical calls split wherever a change was made between two of them."""
    runs: list[list[Call]] = [[group[0]]]
    for previous, call in zip(group, group[1:]):
        if any(previous.step < step < call.step for step in changed):
            runs.append([call])
        else:
            runs[-1].append(call)
    return runs


@per_episode
def _sources_seen(episode: Episode) -> set[str]:
    """Source ids that appeared in any observation (asked by several rules of one episode)."""
    return {i for s in tool_steps(episode) for i in source_ids(s.content)}


def insufficient_exploration(episode: Episode) -> Finding | None:
    """An answer given after one or two distinct queries that surfaced only a handful of sources."""
    answer = final_answer(episode)
    queries = searches(episode)
    if answer is None or (not queries and episode.family != "literature"):
        return None
    distinct_queries = len(near_identical_groups(queries))
    seen = _sources_seen(episode)
    if distinct_queries > FEW_QUERIES or len(seen) > FEW_SOURCES:
        return None
    return Finding(
        mode=FailureMode.INSUFFICIENT_EXPLORATION, steps=[answer.step],
        signals={"queries": len(queries), "distinct_queries": distinct_queries, "sources_seen": len(seen),
                 "sources_cited": len(source_ids(answer.text))},
        confidence=0.65 if len(seen) <= 1 else 0.55,
        explanation=f"answered after {distinct_queries} distinct quer(y/ies) that surfaced {len(seen)} source(s)",
    )


def premature_discard(episode: Episode) -> Finding | None:
    """A retrieved source dismissed as irrelevant and never cited, though it was the evidence needed."""
    if not DISMISSAL.search(assistant_text(episode)):
        return None
    answer = final_answer(episode)
    cited = source_ids(answer.text) if answer else set()
    gold = {str(g).lower() for g in episode.metadata.get("gold_sources", [])}
    seen: set[str] = set()
    for step in episode.steps:
        if step.role == "tool":
            seen |= source_ids(step.content)
        elif step.role == "assistant" and (answer is None or step.index != answer.step) \
                and DISMISSAL.search(step.content):
            dropped = sorted((source_ids(step.content) & seen) - cited)
            if dropped:
                is_gold = bool(gold & set(dropped))
                return Finding(
                    mode=FailureMode.PREMATURE_DISCARD, steps=[step.index],
                    signals={"discarded": dropped, "sources_seen": len(seen), "sources_cited": len(cited),
                             "discarded_gold": is_gold},
                    confidence=0.8 if is_gold else 0.6,
                    explanation=f"dismissed {', '.join(dropped)} after retrieving it and never cited it",
                )
    return None


def poor_evidence_selection(episode: Episode) -> Finding | None:
    """Many sources retrieved, but the answer cites ones never read, or none of those that were read."""
    answer = final_answer(episode)
    if answer is None:
        return None
    seen = _sources_seen(episode)
    opened = {i for c in reads(episode) for i in source_ids(c.text)}
    cited = source_ids(answer.text)
    if len(seen) < AMPLE_SOURCES or not cited or not opened:
        return None
    cited_unread = sorted(cited - opened)
    read_uncited = sorted(opened - cited)
    if not cited_unread and cited & opened:
        return None
    return Finding(
        mode=FailureMode.POOR_EVIDENCE_SELECTION, steps=[answer.step],
        signals={"sources_seen": len(seen), "sources_read": len(opened), "sources_cited": len(cited),
                 "cited_unread": cited_unread, "read_uncited": read_uncited},
        confidence=0.6,
        explanation=f"of {len(seen)} sources seen and {len(opened)} read, the answer cites "
                    f"{len(cited_unread)} never read",
    )


def stuck_exploring(episode: Episode) -> Finding | None:
    """Searching and reading alternate again and again and the episode ends without an answer."""
    if final_answer(episode) is not None:
        return None
    found, opened = searches(episode), reads(episode)
    retrievals = sorted(found + opened, key=lambda c: c.step)
    if len(retrievals) < STUCK_RETRIEVALS:
        return None
    search_ids = {id(c) for c in found}
    kinds = ["search" if id(c) in search_ids else "read" for c in retrievals]
    switches = sum(1 for a, b in zip(kinds, kinds[1:]) if a != b)
    if switches < STUCK_SWITCHES:
        return None
    return Finding(
        mode=FailureMode.EXPLORE_SELECT_STUCK, steps=[retrievals[-1].step],
        signals={"searches": kinds.count("search"), "reads": kinds.count("read"), "switches": switches,
                 "answered": False},
        confidence=0.6,
        explanation=f"switched {switches} times between searching and reading over {len(retrievals)} retrievals "
                    "and never answered",
    )


def method_outside_assumptions(episode: Episode) -> Finding | None:
    """Output showed an assumption violated (non-normal, non-stationary …), then a method relying on it was run.

    The observations are searched once for any violation; only then each step (and each call once for any
    method), and only a hit is looked at assumption by assumption.
    """
    if not mentions(observations_lowered(episode), VIOLATION_HINTS) \
            or not ANY_VIOLATION.search(observations_text(episode)):
        return None
    violated: dict[str, int] = {}
    for step in episode.steps:
        if step.role == "tool" and len(violated) < len(ASSUMPTIONS) and ANY_VIOLATION.search(step.content):
            for name, violation, _ in ASSUMPTIONS:
                if name not in violated and violation.search(step.content):
                    violated[name] = step.index
        if not violated:
            continue
        for call in step.tool_calls:
            if not ANY_METHOD.search(call.arguments):
                continue
            for name, _, method in ASSUMPTIONS:
                match = method.search(call.arguments)
                if name in violated and match:
                    return Finding(
                        mode=FailureMode.METHOD_OUTSIDE_ASSUMPTIONS, steps=[violated[name], step.index],
                        signals={"assumption": name, "violation_step": violated[name], "method": match.group(0)},
                        confidence=0.75,
                        explanation=f"applied {match.group(0)} after step {violated[name]} showed {name} violated",
                    )
    return None


def ignored_warning_sign(episode: Episode) -> Finding | None:
    """A run of the agent's code printed a sign the result is wrong (NaN, non-convergence …) and no later step
    took it up. Harness notices, installer output and denials ("No divide by zero warnings!") are not signs."""
    if not mentions(observations_lowered(episode), WARNING_HINTS) or not WARNING_SIGN.search(observations_text(episode)):
        return None
    for call in code_runs(episode):
        obs = call.observation
        if failed(obs) or not call.runs_program or not mentions(obs.content.lower(), WARNING_HINTS) \
                or not WARNING_SIGN.search(obs.content):
            continue
        match = WARNING_SIGN.search(evidence_text(obs.content))
        if not match:
            continue
        later = texts_after(episode, obs.index)
        term = match.group(0).lower()
        if later and not any(term in text or "warning" in text for text in map(str.lower, later)):
            return Finding(
                mode=FailureMode.IGNORED_WARNING_SIGN, steps=[obs.index],
                signals={"warning": match.group(0), "acknowledged": False, "steps_after": len(later)},
                confidence=0.65, decisive=obs.index,
                explanation=f"output said {match.group(0)!r} and no later step took it up",
            )
    return None


def unresolved_traceback(episode: Episode) -> Finding | None:
    """The last code run (submission left out) raised a traceback and the agent answered anyway."""
    runs = code_runs(episode)
    answer = final_answer(episode)
    if not runs or answer is None or FULL_TRACEBACK not in runs[-1].observation.content:
        return None
    tracebacks = sum(1 for c in runs if FULL_TRACEBACK in c.observation.content)
    return Finding(
        mode=FailureMode.IMPLEMENTATION_ERROR, steps=[runs[-1].observation.index],
        signals={"tracebacks": tracebacks, "code_runs": len(runs), "unresolved": True},
        confidence=0.7, decisive=runs[-1].step,
        explanation=f"the last of {len(runs)} code runs ended in a traceback, then the agent answered",
    )


def clean_run_wrong_answer(episode: Episode) -> Finding | None:
    """The code ran without error and printed output, but the answer built on it failed: the code is wrong.

    The decisive step is, for a patch, its last edit; for an answer, the first turn whose action ran (the result
    the rest built on), or the earlier turn that introduced the facts that action used (`fact_origin`).
    For SWE runs this is the fallback of every failed submission, with a low confidence; a run whose verdict came
    with the harness's per-test results is diagnosed from those instead (`issue_tests_still_fail`,
    `broke_passing_tests`).
    """
    if episode.family == "swe" and episode.outcome.tests is not None:
        return None
    runs = code_runs(episode)
    answer = final_answer(episode)
    if not runs or answer is None:
        return None
    last = runs[-1]
    if failed(last.observation) or not last.observation.content.strip():
        return None
    changed = [c.step for c in solution_changes(episode)]
    first_run = first_executed_turn(episode)
    decisive = changed[-1] if changed and episode.family == "swe" else \
        fact_origin(episode, first_run) if first_run is not None else None
    return Finding(
        mode=FailureMode.IMPLEMENTATION_ERROR, steps=[last.step],
        signals={"code_runs": len(runs), "last_run_clean": True, "last_change_step": changed[-1] if changed else None,
                 "tracebacks": sum(1 for c in runs if has_traceback(c.observation.content))},
        confidence=CLEAN_RUN_CONFIDENCE.get(episode.family, 0.45), decisive=decisive,
        explanation="the last code run finished without error, yet the answer it led to failed",
    )


def ended_on_clean_run(episode: Episode) -> Finding | None:
    """The run ended on the output of a code run that ran without error, with no answer: the code never produced
    the answer (an empty result, "nothing found") and no turn was left to fix it. The decisive step is the turn
    whose code ran last: its attempt is the one that failed. SWE runs end on a submission, not an answer: not
    this rule."""
    runs = code_runs(episode)
    if episode.family == "swe" or not runs or final_answer(episode) is not None:
        return None
    last = runs[-1]
    if last.observation is None or last.observation is not episode.steps[-1] or failed(last.observation):
        return None
    return Finding(
        mode=FailureMode.IMPLEMENTATION_ERROR, steps=[last.observation.index],
        signals={"code_runs": len(runs), "last_run_clean": True, "answer": None},
        confidence=NO_ANSWER_CONFIDENCE, decisive=last.step,
        explanation=f"the run ended on the output of the code run at step {last.step}, without an answer",
    )


def failing_tests_at_submission(episode: Episode) -> Finding | None:
    """The last run of the repository's tests after the last change still failed, and the agent submitted
    (when it called the failure unrelated, that is `dismissed_failing_test`)."""
    answer = final_answer(episode)
    made = calls(episode)
    changed = [c.step for c in solution_changes(episode)]
    if answer is None or not changed:
        return None
    runs = [c for c in made if changed[-1] < c.step < answer.step and REPOSITORY_TESTS.search(c.text)
            and c.observation is not None]
    if not runs or not TEST_FAILURE.search(runs[-1].observation.content):
        return None
    if any(DISMISSED_TEST.search(s.content) for s in assistant_after(episode, runs[-1].observation.index)):
        return None
    return Finding(
        mode=FailureMode.IMPLEMENTATION_ERROR, steps=[runs[-1].observation.index, answer.step],
        signals={"test_run_step": runs[-1].step, "last_change_step": changed[-1], "failing_at_submission": True},
        confidence=0.7, decisive=changed[-1],
        explanation=f"the repository's tests run at step {runs[-1].step}, after the last change, still failed; the "
                    f"agent submitted at step {answer.step}",
    )


def dismissed_failing_test(episode: Episode) -> Finding | None:
    """A test or script failed and the agent's next turn called the failure unrelated or pre-existing.

    Whether it was unrelated the trace alone cannot tell (a pre-existing failure is often just that): without
    the harness's test results the finding stays below confident. With them, a dismissal counts only when the
    harness found one of the dismissed tests failing after the patch (then it is confident); a dismissal of
    tests the harness found passing, or never checked, was not the failure.
    """
    if not mentions(assistant_lowered(episode), DISMISSAL_HINTS) or not DISMISSED_TEST.search(assistant_text(episode)):
        return None
    tests = episode.outcome.tests
    steps = episode.steps
    for position, step in enumerate(steps):
        if step.role != "assistant" or not (said := DISMISSED_TEST.search(step.content)):
            continue
        before = [s for s in steps[max(0, position - 3):position] if s.role == "tool"]
        failing = next((s for s in reversed(before) if TEST_FAILURE.search(s.content)), None)
        if failing is None:
            continue
        confirmed = [name for name in tests.failing if any(locator in failing.content
                                                           for locator in test_locators(name))] if tests else []
        if tests is not None and not confirmed:
            continue
        return Finding(
            mode=FailureMode.DISMISSED_FAILING_TEST, steps=[failing.index, step.index],
            signals={"dismissal": said.group(0), "failure_step": failing.index,
                     **({"failing_after_patch": confirmed[:SHOWN_TESTS]} if tests else {})},
            confidence=HARNESS_CONFIDENCE if confirmed else 0.55, decisive=step.index,
            explanation=f"step {failing.index} showed a failing test; step {step.index} called it "
                        f"{said.group(0)!r} and went on"
                        + (f"; the harness found {', '.join(confirmed[:2])} failing after the patch" if confirmed
                           else ""),
        )
    return None


def _last_solution_change(episode: Episode) -> int | None:
    """The step of the last change to the submitted patch's files (the fix as submitted)."""
    changed = solution_changes(episode)
    return changed[-1].step if changed else None


def _names(tests: list[str]) -> str:
    shown = ", ".join(tests[:SHOWN_TESTS])
    return shown + (f" and {len(tests) - SHOWN_TESTS} more" if len(tests) > SHOWN_TESTS else "")


def issue_tests_still_fail(episode: Episode) -> Finding | None:
    """The harness ran the tests the issue asks to pass (FAIL_TO_PASS) on the submitted patch and some still fail,
    or could not apply the patch: the fix does not do what the issue asks.

    The trace adds how the agent missed it: whether it ran those tests after its last change (`ran_them`), and
    whether its own last check after that change ran clean. The decisive step is the last change to the
    patch's files: the fix as submitted.
    """
    tests = episode.outcome.tests
    if tests is None or not (tests.fail_to_pass_failed or tests.patch_applied is False):
        return None
    last = _last_solution_change(episode)
    answer = final_answer(episode)
    decisive = last if last is not None else answer.step if answer else episode.steps[-1].index
    ran = runs_of_tests(episode, tests.fail_to_pass_failed, after=-1 if last is None else last)
    checks = [c for c in calls(episode) if last is not None and c.step > last and c.is_check
              and c.observation is not None]
    applied = tests.patch_applied is not False
    total = len(tests.fail_to_pass_failed) + len(tests.fail_to_pass_passed)
    explanation = ("the harness could not apply the submitted patch" if not applied else
                   f"{len(tests.fail_to_pass_failed)} of {total} tests the issue asks to pass still fail after the "
                   f"patch ({_names(tests.fail_to_pass_failed)}); the agent "
                   + (f"ran them at step {ran[-1].step}" if ran else "never ran them") + " after its last change"
                   + (f", and its last check (step {checks[-1].step}) ran clean"
                      if checks and not failed(checks[-1].observation) else ""))
    return Finding(
        mode=FailureMode.IMPLEMENTATION_ERROR, steps=sorted({decisive, *(c.step for c in ran[-1:])}),
        signals={"still_failing": tests.fail_to_pass_failed[:SHOWN_TESTS],
                 "still_failing_count": len(tests.fail_to_pass_failed), "issue_tests": total,
                 "patch_applied": applied, "ran_them": bool(ran), "last_change_step": last,
                 "last_check_clean": bool(checks) and not failed(checks[-1].observation)},
        confidence=0.9 if not applied else HARNESS_CONFIDENCE, decisive=decisive, explanation=explanation,
    )


def broke_passing_tests(episode: Episode) -> Finding | None:
    """Tests that passed before the patch (PASS_TO_PASS) fail after it: the change broke working behaviour.

    If the agent never ran those tests after its last change, it finished without the check that would have
    shown its change wrong (`no_verification`); if it ran them and submitted anyway, the patch is wrong and it
    knew or could have known (`implementation_error`; calling the failure unrelated is
    `dismissed_failing_test`). The decisive step is the last change to the patch's files.
    """
    tests = episode.outcome.tests
    if tests is None or not tests.pass_to_pass_failed:
        return None
    last = _last_solution_change(episode)
    answer = final_answer(episode)
    decisive = last if last is not None else answer.step if answer else episode.steps[-1].index
    ran = runs_of_tests(episode, tests.pass_to_pass_failed, after=-1 if last is None else last)
    broken = _names(tests.pass_to_pass_failed)
    signals = {"broken": tests.pass_to_pass_failed[:SHOWN_TESTS], "broken_count": len(tests.pass_to_pass_failed),
               "ran_them": bool(ran), "last_change_step": last}
    if not ran:
        return Finding(
            mode=FailureMode.NO_VERIFICATION, steps=[decisive], signals=signals, confidence=0.75, decisive=decisive,
            explanation=f"the patch broke {len(tests.pass_to_pass_failed)} test(s) that passed before ({broken}); the "
                        "agent never ran them after its last change")
    seen = any(c.observation is not None and TEST_FAILURE.search(c.observation.content) for c in ran)
    return Finding(
        mode=FailureMode.IMPLEMENTATION_ERROR, steps=sorted({decisive, ran[-1].step}),
        signals={**signals, "saw_them_fail": seen}, confidence=HARNESS_CONFIDENCE if seen else 0.7,
        decisive=decisive,
        explanation=f"the patch broke {len(tests.pass_to_pass_failed)} test(s) that passed before ({broken}); the "
                    f"agent ran them at step {ran[-1].step}"
                    + (", saw failures and submitted" if seen else " and they passed there"))


def patch_adds_unrelated_files(episode: Episode) -> Finding | None:
    """The submitted patch adds new files that are not tests: scratch scripts, copies, build output.

    Below confident: on public runs it goes with failure for one agent (mini-swe-agent, Gemini 3 Pro: 14 % of
    failed, 2 % of resolved runs) and not for another (SWE-agent on SWE-bench-java leaves its reproduction
    scripts in resolved patches as often as in failed ones); a stray file rarely breaks the tests. When the
    harness's per-test results are known, they say why the run failed instead.
    """
    if episode.outcome.tests is not None:
        return None
    submission = str(episode.metadata.get("submission") or "")
    added = [path for path in NEW_FILE.findall(submission) if not TEST_PATH.search(path)]
    if not added:
        return None
    creating = [c.step for c in calls(episode) if c.is_change and any(path.rsplit("/", 1)[-1] in c.text
                                                                        for path in added)]
    answer = final_answer(episode)
    decisive = creating[0] if creating else answer.step if answer else episode.steps[-1].index
    return Finding(
        mode=FailureMode.IMPLEMENTATION_ERROR, steps=sorted(set(creating[:3])) or [decisive],
        signals={"added_files": added[:10], "added_count": len(added)},
        confidence=0.5, decisive=decisive,
        explanation=f"the submitted patch adds {len(added)} new non-test file(s): {', '.join(added[:3])}",
    )


def answer_without_tools(episode: Episode) -> Finding | None:
    """A wrong final answer given without any tool: the answer itself (knowledge, reasoning) was wrong."""
    answer = final_answer(episode)
    if answer is None or calls(episode):
        return None
    expected = expected_answer(episode)
    contradicted = expected is not None and expected.strip().lower() not in answer.text.lower()
    return Finding(
        mode=FailureMode.INCORRECT_ANSWER, steps=[answer.step],
        signals={"tool_calls": 0, "expected_answer": expected, "answer": answer.text[-200:],
                 "contradicts_expected": contradicted},
        confidence=0.75 if contradicted else 0.6, decisive=fact_origin(episode, first_statement(episode, answer)),
        explanation="answered without using any tool and the answer was wrong"
                    + (f" (expected {expected!r})" if contradicted else ""),
    )


def format_errors(episode: Episode) -> Finding | None:
    """The harness refused the agent's actions for their form (several actions in one turn, code it could not
    parse, a tool called with arguments it does not take).

    On SWE runs only several refusals the agent never recovered from count (no action of its ran after the last
    one): refusals it recovered from cost turns but did not end the run, and on public SWE runs they are as common
    in resolved runs as in failed ones (`REFUSALS_RECOVERED_FROM`). Elsewhere any refusal is the mode: on TRAIL's
    smolagents runs every calibration run with one is annotated with a formatting error.
    """
    refused = [s for s in episode.steps if s.is_error and (s.error or "").startswith("format error")]
    if not refused:
        return None
    recovered = any(c.step > refused[-1].index and c.observation is not None for c in calls(episode))
    if episode.family in REFUSALS_RECOVERED_FROM and (len(refused) < FORMAT_ERRORS or recovered):
        return None
    turns = [next((p.index for p in reversed(episode.steps[:s.index]) if p.role == "assistant"), s.index)
             for s in refused]
    return Finding(
        mode=FailureMode.FORMAT_ERROR, steps=turns[:5],
        signals={"refused_turns": len(refused), "first": refused[0].error, "recovered": recovered},
        confidence=0.5, decisive=turns[0],
        explanation=f"the harness refused {len(refused)} action(s) for their form ({refused[0].error})",
    )


def plan_abandoned(episode: Episode) -> Finding | None:
    """The agent's plan (its last turn before acting; the turns before it survey facts, and list facts "to look
    up" whatever the plan) meant to look things up (search, locate, retrieve, inspect …) and it answered without
    retrieving anything: no tool but running code and answering returned a result, and no other agent took a
    turn. It set its own plan aside and answered from what it assumed; decided at its first action, where it left
    the plan. A SWE run reads its repository through the shell and hands in a patch, not an answer: not this rule."""
    if episode.family == "swe":
        return None
    answer = final_answer(episode)
    plan = plan_turns(episode)
    intent = PLAN_INTENT.search(plan[-1].content) if plan else None
    if answer is None or intent is None or retrieved(episode):
        return None
    first_action = next(c.step for c in calls(episode))
    return Finding(
        mode=FailureMode.LOST_OBJECTIVE, steps=[plan[-1].index, first_action],
        signals={"plan_steps": [s.index for s in plan], "planned": intent.group(0), "retrievals": 0},
        confidence=0.6, decisive=first_action,
        explanation=f"the plan at step {plan[-1].index} meant to {intent.group(0)}; from step {first_action} on the "
                    "agent answered without retrieving anything",
    )


def unsupported_answer(episode: Episode) -> Finding | None:
    """The turn that handed the answer in (its submit call, else the answer itself) states many facts (numbers,
    names) that neither the task nor any observation before it holds: the answer rests on facts the agent supplied
    itself, not on evidence. Decided at that turn: tracing the facts back to where they were first stated
    (`fact_origin`) moved the Who&When attribution off its calibrated figures (agent 66 → 65 %)."""
    answer = final_answer(episode)
    if answer is None:
        return None
    turn = max((c.step for c in calls(episode) if c.is_submit and c.step <= answer.step), default=answer.step)
    claimed = unsupported_claims(episode, turn)
    if len(claimed) < UNSUPPORTED_FACTS:
        return None
    return Finding(
        mode=FailureMode.INCORRECT_ANSWER, steps=[turn],
        signals={"unsupported_facts": len(claimed), "examples": sorted(claimed)[:SHOWN_TESTS]},
        confidence=UNSUPPORTED_CONFIDENCE, decisive=turn,
        explanation=f"step {turn} states the answer with {len(claimed)} facts no observation before it holds "
                    f"({', '.join(sorted(claimed)[:3])} …)",
    )


def lost_objective(episode: Episode) -> Finding | None:
    """Early steps work on the task; from some step on, every step is about something else."""
    goal = words(task_text(episode))
    turns = assistant_steps(episode)
    if len(goal) < 3 or len(turns) < 2 * DRIFT_STEPS:
        return None
    overlap = [len(goal & words(text)) / len(goal) for text in assistant_texts(episode).values()]
    early = sum(overlap[:DRIFT_STEPS]) / DRIFT_STEPS
    drift = len(overlap)
    while drift > 0 and overlap[drift - 1] < OFF_TOPIC:
        drift -= 1
    if early < ON_TOPIC or len(overlap) - drift < DRIFT_STEPS:
        return None
    late = sum(overlap[drift:]) / (len(overlap) - drift)
    return Finding(
        mode=FailureMode.LOST_OBJECTIVE, steps=[turns[drift].index],
        signals={"task_keywords": len(goal), "early_overlap": round(early, 3), "late_overlap": round(late, 3),
                 "off_topic_steps": len(overlap) - drift},
        confidence=0.6,
        explanation=f"from step {turns[drift].index} on, {len(overlap) - drift} steps share "
                    f"{late:.0%} of the task's keywords (first steps: {early:.0%})",
    )


def task_misstated(episode: Episode) -> Finding | None:
    """The task an agent was handed (a first step that is an agent's turn: a manager's restatement in a multi-agent
    run) shares almost none of the words of the question the run was asked: they worked on something else from
    the start. A run that opens with the user's or system's message posed the question itself: not this rule."""
    question = words(str(episode.metadata.get("question", "")))
    first = episode.steps[0] if episode.steps else None
    if len(question) < 3 or first is None or first.role != "assistant":
        return None
    overlap = len(question & words(first.content)) / len(question)
    if overlap >= OFF_TOPIC:
        return None
    return Finding(
        mode=FailureMode.LOST_OBJECTIVE, steps=[first.index],
        signals={"question_keywords": len(question), "overlap": round(overlap, 3)},
        confidence=0.6, decisive=first.index,
        explanation=f"the task handed over at step {first.index} shares {overlap:.0%} of the question's keywords",
    )


def ignored_intermediate_finding(episode: Episode) -> Finding | None:
    """An observation stated a result (`total = 42`) that no later step ever used (answers only: a SWE run
    submits a patch, not a value)."""
    if final_answer(episode) is None or episode.family == "swe" \
            or not mentions(observations_lowered(episode), FINDING_HINTS) or not FINDING.search(observations_text(episode)):
        return None
    observations = [s for s in tool_steps(episode) if not failed(s)]
    for step in observations:
        match = FINDING.search(step.content) and FINDING.search(evidence_text(step.content))
        if not match:
            continue
        value = match.group(2).rstrip(".,")
        later = texts_after(episode, step.index)
        if later and not any(value in text for text in later):
            return Finding(
                mode=FailureMode.IGNORED_INTERMEDIATE_FINDING, steps=[step.index],
                signals={"finding": match.group(0), "value": value, "referenced_later": False,
                         "unreferenced_observations": unreferenced_observations(episode),
                         "observations": len(observations)},
                confidence=0.6, decisive=step.index,
                explanation=f"step {step.index} found {match.group(0)!r}; no later step used {value!r}",
            )
    return None


def premature_termination(episode: Episode) -> Finding | None:
    """The agent stopped early: it gave up, stopped right after an unanswered error, submitted no change at all,
    or barely acted.

    A run cut off by a step, cost or context limit did not stop by choice: not this mode. Neither is an
    answer given without tools (that is a wrong answer, `answer_without_tools`), nor an answer given after a
    failed run (the answer was wrong, not missing). Stopping after an unanswered error is decided by the turn
    whose call failed: that is the decisive step. Submitting an empty patch (the trace recorded the submission
    and it holds no change) is stopping before the task was done.
    """
    if CUT_OFF.search(episode.outcome.detail or ""):
        return None
    made = calls(episode)
    work = [c for c in made if not c.is_submit]
    last = episode.steps[-1] if episode.steps else None
    if last is None or not made:
        return None
    last_tool = tool_steps(episode)[-1] if tool_steps(episode) else None
    after_last_tool = assistant_after(episode, last_tool.index) if last_tool is not None else []
    gave_up = last.role == "assistant" and not last.tool_calls and GIVE_UP.search(last.content)
    answer = final_answer(episode)
    unanswered_error = last_tool is not None and failed(last_tool) and not any(s.tool_calls for s in after_last_tool) \
        and answer is None
    empty = episode.family == "swe" and "submission" in episode.metadata \
        and not str(episode.metadata["submission"]).strip()
    few = len(work) <= FEW_ACTIONS
    if not (gave_up or unanswered_error or empty or few):
        return None
    reason = "gave up" if gave_up else "stopped after an unanswered error" if unanswered_error else \
        "submitted no change" if empty else "barely acted"
    decisive = answer.step if empty and answer else last.index
    if unanswered_error and not gave_up:
        decisive = next((s.index for s in reversed(episode.steps[:last_tool.index]) if s.role == "assistant"),
                        decisive)
    return Finding(
        mode=FailureMode.PREMATURE_TERMINATION, steps=[last.index],
        signals={"tool_calls": len(made), "work_calls": len(work), "gave_up": bool(gave_up),
                 "unanswered_error": unanswered_error, "empty_submission": empty,
                 "reason": reason},
        confidence=0.65 if gave_up else 0.7 if empty else 0.6 if unanswered_error else 0.4, decisive=decisive,
        explanation=f"the agent {reason} after {len(made)} tool call(s)",
    )


def no_verification(episode: Episode) -> Finding | None:
    """The agent changed something (edited, wrote) and concluded without running any check afterwards. When the
    trace recorded the submitted patch, only changes to its files count (a scratch script is not the fix)."""
    made = calls(episode)
    answer = final_answer(episode)
    changed = solution_changes(episode)
    if not changed or answer is None:
        return None
    last_change = changed[-1]
    checks = [c for c in made if last_change.step < c.step < answer.step and c.is_check]
    if checks:
        return None
    return Finding(
        mode=FailureMode.NO_VERIFICATION, steps=[answer.step],
        signals={"changes": len(changed), "last_change_step": last_change.step, "checks_after_change": 0},
        confidence=0.55, decisive=last_change.step,
        explanation=f"concluded at step {answer.step} without checking the change made at step {last_change.step}",
    )


M = FailureMode
RULE_MODES: dict[Rule, tuple[FailureMode, ...]] = {
    repeated_actions: (M.REPEATS_UNPRODUCTIVE_APPROACH,),
    insufficient_exploration: (M.INSUFFICIENT_EXPLORATION,),
    premature_discard: (M.PREMATURE_DISCARD,),
    poor_evidence_selection: (M.POOR_EVIDENCE_SELECTION,),
    stuck_exploring: (M.EXPLORE_SELECT_STUCK,),
    method_outside_assumptions: (M.METHOD_OUTSIDE_ASSUMPTIONS,),
    ignored_warning_sign: (M.IGNORED_WARNING_SIGN,),
    unresolved_traceback: (M.IMPLEMENTATION_ERROR,),
    clean_run_wrong_answer: (M.IMPLEMENTATION_ERROR,),
    ended_on_clean_run: (M.IMPLEMENTATION_ERROR,),
    failing_tests_at_submission: (M.IMPLEMENTATION_ERROR,),
    dismissed_failing_test: (M.DISMISSED_FAILING_TEST,),
    issue_tests_still_fail: (M.IMPLEMENTATION_ERROR,),
    broke_passing_tests: (M.NO_VERIFICATION, M.IMPLEMENTATION_ERROR),
    patch_adds_unrelated_files: (M.IMPLEMENTATION_ERROR,),
    answer_without_tools: (M.INCORRECT_ANSWER,),
    format_errors: (M.FORMAT_ERROR,),
    plan_abandoned: (M.LOST_OBJECTIVE,),
    unsupported_answer: (M.INCORRECT_ANSWER,),
    lost_objective: (M.LOST_OBJECTIVE,),
    task_misstated: (M.LOST_OBJECTIVE,),
    ignored_intermediate_finding: (M.IGNORED_INTERMEDIATE_FINDING,),
    premature_termination: (M.PREMATURE_TERMINATION,),
    no_verification: (M.NO_VERIFICATION,),
}
"""Every capability rule and the failure modes it reports; each capability mode of the taxonomy has one."""
RULES: tuple[Rule, ...] = tuple(RULE_MODES)
NOT_EVIDENCE_FOR: dict[Rule, tuple[str, ...]] = {repeated_actions: ("swe",)}
"""Rules measured not to separate failed from resolved runs of a family (bench/diagnosis_quality.py, calibration
part): they are not run there. Coding agents re-run the same inspection command as often in resolved runs."""


@lru_cache(maxsize=None)
def rules_for(family: str) -> tuple[Rule, ...]:
    """The rules worth running on a family's episodes: those reporting a mode the family can fail by, less those
    that are no evidence there (`NOT_EVIDENCE_FOR`)."""
    return tuple(rule for rule in RULES if any(mode.applies_to(family) for mode in RULE_MODES[rule])
                 and family not in NOT_EVIDENCE_FOR.get(rule, ()))


def infrastructure_finding(episode: Episode) -> Finding | None:
    """The infrastructure's failure, from the outcome or from a last tool error the agent could do nothing about."""
    if episode.outcome.failure_origin == "infrastructure":
        detail = episode.outcome.detail or ""
        mode = FailureMode.INFRA_TIMEOUT if TIMEOUT.search(detail) else FailureMode.INFRA_ENVIRONMENT_ERROR
        return Finding(mode=mode, steps=[episode.steps[-1].index] if episode.steps else [],
                       signals={"outcome_detail": detail}, confidence=0.9,
                       explanation="the trace marks this failure as the infrastructure's")
    observed = tool_steps(episode)
    if not observed or not observed[-1].is_error:
        return None
    last = observed[-1]
    error = last.error or last.content
    if not INFRASTRUCTURE_ERROR.search(error) or any(s.tool_calls for s in assistant_after(episode, last.index)):
        return None
    mode = FailureMode.INFRA_TIMEOUT if TIMEOUT.search(error) else FailureMode.INFRA_TOOL_ERROR
    return Finding(mode=mode, steps=[last.index], signals={"tool_error": error[:200]}, confidence=0.7,
                   explanation="the episode ended on a tool error from the environment, not from the agent's action")
