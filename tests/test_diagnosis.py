"""Rule-based diagnosis on hand-written episodes (one per failure mode), gap aggregation and the build plan.

Step numbering in `scripted` episodes: 0 is the system prompt, 1 the task; each
("call", ...) turn adds the assistant call and its observation (2 steps), each
("say", ...) one assistant step.
"""

from __future__ import annotations

import re

import pytest

from taskforge.diagnosis.diagnose import diagnose
from taskforge.diagnosis.gaps import aggregate, plan
from taskforge.diagnosis.rules import DISMISSAL, FINDING
from taskforge.diagnosis.signals import SOURCE_ID, WARNING_SIGN
from factories import episode, scripted
from taskforge.schemas import CAPABILITIES, FailureMode

M = FailureMode

CASES = {
    M.INSUFFICIENT_EXPLORATION: (scripted(
        ("user", "Which papers report the thermal conductivity of graphene aerogels below 10 K?"),
        ("call", "search_papers", {"query": "graphene aerogel thermal conductivity"}, "1. arXiv:2101.01234 Graphene aerogels"),
        ("say", "The answer is arXiv:2101.01234."), family="literature"), [4]),
    M.PREMATURE_DISCARD: (scripted(
        ("user", "Which study first measured the proton radius with muonic hydrogen?"),
        ("call", "search_papers", {"query": "muonic hydrogen proton radius"},
         "1. doi:10.1038/nature09250 Pohl et al.\n2. arXiv:1208.2637 review\n3. arXiv:1301.0905\n4. arXiv:1502.01111"),
        ("call", "search_papers", {"query": "proton radius puzzle measurement 2010"}, "1. arXiv:1208.2637\n2. arXiv:1606.00001"),
        ("say", "10.1038/nature09250 looks like a news item, not relevant; I will skip it."),
        ("call", "read_paper", {"id": "arXiv:1208.2637"}, "Review of the proton radius puzzle"),
        ("call", "search_papers", {"query": "lamb shift spectroscopy hydrogen"}, "1. arXiv:1301.0905"),
        ("say", "The first measurement is arXiv:1208.2637."), family="literature",
        metadata={"gold_sources": ["10.1038/nature09250"]}), [6]),
    M.POOR_EVIDENCE_SELECTION: (scripted(
        ("user", "Which paper introduced the transformer architecture for machine translation?"),
        ("call", "search_papers", {"query": "transformer attention machine translation"},
         "arXiv:1706.03762 Attention is all you need\narXiv:1409.0473\narXiv:1508.04025\narXiv:1705.03122"),
        ("call", "read_paper", {"id": "arXiv:1706.03762"}, "We propose a new simple network architecture, the Transformer"),
        ("call", "search_papers", {"query": "self-attention sequence transduction"}, "arXiv:1601.06733\narXiv:1703.03130"),
        ("call", "search_papers", {"query": "neural machine translation encoder decoder"}, "arXiv:1409.3215"),
        ("say", "The architecture was introduced in arXiv:1409.0473."), family="literature"), [10]),
    M.EXPLORE_SELECT_STUCK: (scripted(
        ("user", "Collect the papers measuring neutrino mass with KATRIN and pick the tightest bound."),
        ("call", "search_papers", {"query": "KATRIN neutrino mass"}, "arXiv:1909.06048\narXiv:2105.08533"),
        ("call", "read_paper", {"id": "arXiv:1909.06048"}, "upper limit of 1.1 eV"),
        ("call", "search_papers", {"query": "KATRIN second campaign"}, "arXiv:2105.08533"),
        ("call", "read_paper", {"id": "arXiv:2105.08533"}, "upper limit of 0.9 eV"),
        ("call", "search_papers", {"query": "KATRIN bound 2022"}, "arXiv:2202.04587"),
        ("call", "read_paper", {"id": "arXiv:2202.04587"}, "upper limit of 0.8 eV"),
        ("call", "search_papers", {"query": "tritium beta decay endpoint"}, "arXiv:2202.04587"), family="literature"), [14]),
    M.METHOD_OUTSIDE_ASSUMPTIONS: (scripted(
        ("user", "Do treated and control groups differ in response time? Report the p-value."),
        ("call", "run_python", {"code": "print(stats.shapiro(treated))"},
         "ShapiroResult(statistic=0.81, pvalue=0.0012)\nThe data are not normally distributed (skewed right)."),
        ("call", "run_python", {"code": "print(stats.ttest_ind(treated, control))"}, "TtestResult(statistic=2.1, pvalue=0.041)"),
        ("say", "The groups differ, p = 0.041."), family="mle"), [3, 4]),
    M.IGNORED_WARNING_SIGN: (scripted(
        ("user", "Fit a logistic model of churn on tenure and report the tenure coefficient."),
        ("call", "run_python", {"code": "model = LogisticRegression().fit(X, y); print(model.coef_)"},
         "ConvergenceWarning: lbfgs failed to converge (status=1)\n[[0.0312 1.2e+03]]"),
        ("say", "The tenure coefficient is 0.0312."), family="mle"), [3]),
    M.IMPLEMENTATION_ERROR: (scripted(
        ("user", "Compute the mean absolute error of the forecast in forecast.csv."),
        ("call", "run_python", {"code": "df = pd.read_csv('forecast.csv'); print((df.y - df.forecast).mean())"}, "0.41"),
        ("say", "The mean absolute error of the forecast is 0.41."), family="mle"), [2]),
    M.LOST_OBJECTIVE: (scripted(
        ("user", "Estimate the half-life of compound X-17 from the assay logs in /data/assay."),
        ("call", "list_files", {"path": "/data/assay"}, "run1.csv run2.csv run3.csv notes.txt"),
        ("call", "run_python", {"code": "print(load('/data/assay/run1.csv').compound.unique())  # X-17 half-life"},
         "['X-17', 'X-9']"),
        ("say", "The assay logs have compound X-17 decay data; estimating the half-life next."),
        ("call", "read_file", {"path": "/data/assay/notes.txt"}, "Lab meeting moved to Friday. The centrifuge in room 4 is broken."),
        ("say", "Let me check the centrifuge maintenance schedule."),
        ("call", "search_logs", {"query": "centrifuge room 4 maintenance"}, "2 entries"),
        ("say", "The centrifuge repair is booked for Friday by the facility team."), family="workflow"), [9]),
    M.REPEATS_UNPRODUCTIVE_APPROACH: (scripted(
        ("user", "Find which sensor drifted first in the plant telemetry archive."),
        ("call", "search_logs", {"query": "sensor drift calibration"}, "0 results"),
        ("call", "search_logs", {"query": "sensor drift calibration 2021"}, "0 results"),
        ("call", "search_logs", {"query": "drift calibration sensor"}, "0 results"),
        ("say", "No sensor drifted."), family="workflow"), [4, 6]),
    M.IGNORED_INTERMEDIATE_FINDING: (scripted(
        ("user", "Find which sensor drifted first in the plant telemetry archive."),
        ("call", "run_python", {"code": "print(first_drift(archive))"}, "first drift: S-14 at 2021-03-02"),
        ("call", "run_python", {"code": "print(summary(archive))"}, "12 sensors, 3 with drift"),
        ("say", "Sensor S-3 drifted first."), family="workflow"), [3]),
    M.PREMATURE_TERMINATION: (scripted(
        ("user", "Reconcile the ledger totals in ledger_0.csv with the bank statement."),
        ("call", "run_python", {"code": "print(total('ledger_0.csv'))"}, "12093.50"),
        ("call", "run_python", {"code": "print(total('bank.csv'))"}, "FileNotFoundError: bank.csv", "exit code 1"),
        ("say", "I cannot find the bank statement, so I cannot reconcile the totals."), family="workflow"), [6]),
    M.NO_VERIFICATION: (scripted(
        ("user", "Fix the off-by-one error in pagination so that the last page is returned."),
        ("call", "bash", {"command": "grep -n 'range' app/paginate.py"}, "12:    for i in range(0, total - 1, size):"),
        ("call", "str_replace_editor", {"command": "str_replace", "path": "app/paginate.py", "old_str": "total - 1",
                                        "new_str": "total"}, "The file app/paginate.py has been edited."),
        ("call", "submit", {}, "submitted"), family="swe"), [6]),
    M.DISMISSED_FAILING_TEST: (scripted(
        ("user", "Fix the rounding of totals in invoice.py."),
        ("call", "bash", {"command": "sed -i 's/round(x)/round(x, 2)/' invoice.py"}, ""),
        ("call", "bash", {"command": "python -m pytest tests/test_invoice.py"},
         "FAILED tests/test_invoice.py::test_currency - AssertionError\n1 failed, 7 passed"),
        ("say", "The currency test failure is unrelated to my change; submitting."),
        ("call", "submit", {}, "submitted"), family="swe"), [5, 6]),
    M.INCORRECT_ANSWER: (scripted(
        ("user", "In which year did the Tunguska event happen?"),
        ("say", "The Tunguska event happened in 1912."), family="unknown",
        metadata={"expected_answer": "1908"}), [2]),
    M.FORMAT_ERROR: (scripted(
        ("user", "Fix the failing import in app.py."),
        *[("say", "I will run two commands.\n```bash\nls\n```\n```bash\ncat app.py\n```")] * 3,
        family="swe", refused=True), [2, 4, 6]),
    M.INFRA_TIMEOUT: (scripted(
        ("user", "Run the benchmark and report the throughput."),
        ("call", "bash", {"command": "python bench.py"}, "", "timeout: command timed out after 600 s"),
        family="swe"), [3]),
    M.INFRA_TOOL_ERROR: (scripted(
        ("user", "List the files of the repository."),
        ("call", "bash", {"command": "ls"}, "", "unknown: sandbox connection refused"), family="swe"), [3]),
    M.INFRA_ENVIRONMENT_ERROR: (scripted(
        ("user", "Run the benchmark."), ("say", "Starting."), family="swe", origin="infrastructure",
        detail="sample error: container exited unexpectedly"), [2]),
}


def test_every_failure_mode_has_a_hand_written_case():
    assert set(CASES) == set(FailureMode)


@pytest.mark.parametrize("mode", list(CASES), ids=[m.value for m in CASES])
def test_each_episode_is_diagnosed_as_its_mode_at_the_right_step(mode):
    case, steps = CASES[mode]
    found = diagnose(case)
    assert found, "a failed episode gets at least one diagnosis"
    primary = found[0]
    assert primary.failure_mode is mode, [(d.failure_mode.value, d.confidence) for d in found]
    assert primary.evidence_steps == steps
    assert primary.signals and 0 < primary.confidence <= 1 and primary.explanation
    assert primary.capability == (CAPABILITIES[mode].capability if mode in CAPABILITIES else None)
    if mode.is_infrastructure:
        assert len(found) == 1, "an infrastructure failure is not also blamed on the model"


def test_signal_values_name_what_was_seen():
    discard = diagnose(CASES[M.PREMATURE_DISCARD][0])[0]
    assert discard.signals["discarded"] == ["10.1038/nature09250"] and discard.signals["discarded_gold"] is True
    selection = diagnose(CASES[M.POOR_EVIDENCE_SELECTION][0])[0]
    assert selection.signals["cited_unread"] == ["1409.0473"] and selection.signals["sources_seen"] == 7
    repeats = diagnose(CASES[M.REPEATS_UNPRODUCTIVE_APPROACH][0])[0]
    assert repeats.signals["repeats"] == 3 and repeats.signals["identical_arguments"] is False


def test_successful_and_ungraded_episodes_get_no_diagnosis():
    for mode, (case, _) in CASES.items():
        won = case.model_copy(update={"outcome": case.outcome.model_copy(
            update={"success": True, "score": 1.0, "failure_origin": "none"})})
        assert diagnose(won) == [], mode
    ungraded = CASES[M.NO_VERIFICATION][0]
    ungraded = ungraded.model_copy(update={"outcome": ungraded.outcome.model_copy(update={"graded": False, "score": None})})
    assert diagnose(ungraded) == []


def test_family_limits_the_modes_a_rule_may_report():
    case = CASES[M.INSUFFICIENT_EXPLORATION][0]
    assert diagnose(case.model_copy(update={"family": "swe"}))[0].failure_mode is not M.INSUFFICIENT_EXPLORATION
    assert diagnose(case.model_copy(update={"family": "unknown"}))[0].failure_mode is M.INSUFFICIENT_EXPLORATION


def test_identical_repeats_point_at_the_second_and_later_calls():
    found = {d.failure_mode: d for d in diagnose(episode(repeats=4))}
    repeat = found[M.REPEATS_UNPRODUCTIVE_APPROACH]
    assert repeat.capability == "history_tracking"
    assert repeat.evidence_steps == [4, 6, 8], "the second and later identical calls are the evidence"
    assert repeat.signals["repeats"] == 4 and repeat.signals["distinct_observations"] == 1
    assert 0.5 < repeat.confidence <= 0.95
    assert M.REPEATS_UNPRODUCTIVE_APPROACH not in {d.failure_mode for d in diagnose(episode(repeats=2))}
    assert diagnose(episode(repeats=5, success=True)) == []


def test_infrastructure_failure_is_diagnosed_but_never_a_gap():
    (found,) = diagnose(episode(repeats=5, origin="infrastructure", detail="sandbox timed out"))
    assert found.failure_mode is M.INFRA_TIMEOUT
    infra = [d for mode in (M.INFRA_TIMEOUT, M.INFRA_TOOL_ERROR, M.INFRA_ENVIRONMENT_ERROR)
             for d in diagnose(CASES[mode][0])]
    assert len(infra) == 3 and aggregate([found, *infra], "c", episodes=4) == []


def test_gaps_weigh_share_by_severity_and_the_plan_spends_the_budget():
    repeats = [d for i in range(3) for d in diagnose(episode(f"w{i}", repeats=3))
               if d.failure_mode is M.REPEATS_UNPRODUCTIVE_APPROACH]
    discard = diagnose(CASES[M.PREMATURE_DISCARD][0])
    gaps = aggregate(repeats + discard, "c", episodes=8)
    assert [(g.family, g.failure_mode, g.count) for g in gaps] == [
        ("workflow", M.REPEATS_UNPRODUCTIVE_APPROACH.value, 3), ("literature", M.PREMATURE_DISCARD.value, 1)]
    assert gaps[0].share == 0.75 and gaps[0].priority == round(0.75 * gaps[0].severity, 6)
    assert gaps[0].rate == round(3 / 8, 6) and gaps[0].example_episodes == ["w0", "w1", "w2"]
    build = plan(gaps, "c", budget=7, available_families=["long_context"])
    assert [(i.family, i.capability, i.quota) for i in build.items] == [("long_context", "history_tracking", 7)]
    assert build.items[0].gap_ids == [gaps[0].gap_id]
    both = plan(gaps, "c", budget=10, available_families=["long_context", "literature"])
    assert sum(i.quota for i in both.items) == 10 and {i.family for i in both.items} == {"long_context", "literature"}
    assert plan(gaps, "c", budget=7, available_families=["swe"]).items == []


def test_stopping_after_an_unanswered_error_is_decided_by_the_turn_whose_call_failed():
    stopped = scripted(
        ("user", "Count the rows of ledger.csv whose amount is negative."),
        ("call", "run_python", {"code": "import pandas as pd\nprint(len(pd.read_csv('ledger.csv')))"}, "1204"),
        ("call", "run_python", {"code": "df = pd.read_csv('ledger.csv')\nprint((df.amont < 0).sum())"},
         "Traceback (most recent call last):\nAttributeError: 'DataFrame' object has no attribute 'amont'",
         "exit code 1"), family="workflow")
    (found,) = [d for d in diagnose(stopped) if d.failure_mode is M.PREMATURE_TERMINATION]
    assert found.signals["unanswered_error"] and found.decisive_step == 4, "the call that failed, not its output"
    assert found.evidence_steps == [5]


@pytest.mark.parametrize("pattern", [WARNING_SIGN, SOURCE_ID, DISMISSAL, FINDING], ids=lambda p: p.pattern[:20])
def test_a_led_pattern_finds_what_it_would_without_its_lookahead(pattern):
    plain = re.compile(pattern.pattern[pattern.pattern.index("(?:") + 3:-1], pattern.flags)
    texts = ["RuntimeWarning: overflow encountered; loss = nan after 3 epochs", "INF and NaN and İnf",
             "see arXiv:1706.03762, doi 10.1038/nature09250, PMID: 12345678 and paper_x12", "ſingular Matrix",
             "That failure is unrelated; it does NOT address the issue, so I Ignore it and skip off-topic hits",
             "The Result = 42. total was 3.5e-3; first drift: S-14; p-value: 0.03; Half-life is 12 h",
             *(step.content for mode, (case, _) in CASES.items() for step in case.steps)]
    for text in texts:
        assert [(m.span(), m.groups()) for m in pattern.finditer(text)] == \
            [(m.span(), m.groups()) for m in plain.finditer(text)], text
