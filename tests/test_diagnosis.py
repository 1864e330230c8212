"""Rule-based diagnosis, gap aggregation and the build plan."""

from __future__ import annotations

from diagnosis.gaps import aggregate, plan
from diagnosis.rules import diagnose
from factories import episode
from schemas import FailureMode


def test_repeated_identical_calls_are_an_unproductive_approach():
    (found,) = diagnose(episode(repeats=4))
    assert found.failure_mode is FailureMode.REPEATS_UNPRODUCTIVE_APPROACH
    assert found.capability == "history_tracking"
    assert found.evidence_steps == [4, 6, 8], "the second and later identical calls are the evidence"
    assert found.signals["repeats"] == 4 and found.signals["distinct_observations"] == 1
    assert 0.5 < found.confidence <= 0.95


def test_two_calls_are_not_enough_and_success_gets_no_diagnosis():
    assert diagnose(episode(repeats=2)) == []
    assert diagnose(episode(repeats=5, success=True)) == []


def test_infrastructure_failure_is_diagnosed_but_never_a_gap():
    (found,) = diagnose(episode(repeats=5, origin="infrastructure", detail="sandbox timed out"))
    assert found.failure_mode is FailureMode.INFRA_TIMEOUT
    assert aggregate([found], "c") == []


def test_gaps_weigh_share_by_severity_and_the_plan_spends_the_budget():
    diagnoses = [d for i in range(3) for d in diagnose(episode(f"w{i}", repeats=3))]
    diagnoses += diagnose(episode("l0", repeats=3, family="literature"))
    gaps = aggregate(diagnoses, "c")
    assert [(g.family, g.count) for g in gaps] == [("workflow", 3), ("literature", 1)]
    assert gaps[0].share == 0.75 and gaps[0].priority == round(0.75 * gaps[0].severity, 6)
    build = plan(gaps, "c", budget=7, available_families=["long_context"])
    assert [(i.family, i.capability, i.quota) for i in build.items] == [("long_context", "history_tracking", 7)]
    assert set(build.items[0].gap_ids) == {g.gap_id for g in gaps}
    assert plan(gaps, "c", budget=7, available_families=["swe"]).items == []
