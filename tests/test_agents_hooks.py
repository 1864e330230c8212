"""The LLM hooks against the local server: each shows its role what to verify, returns its model, holds the reply
to its rules, and repairs."""

from __future__ import annotations

import json

import pytest

from taskforge.agents.judge import judge_evolution, judgement_record, recorded_defects
from taskforge.agents.literature import Paper, QuestionBrief, review_question_rewrite, rewrite_literature_question
from taskforge.agents.material import long_context_passages
from taskforge.agents.swe import rewrite_problem_statement, split_diff
from taskforge.diagnosis.llm import diagnose_episodes, diagnose_with_llm, render_episode
from factories import episode, long_context_tasks, unexplained_episode
from llm_server import ChatServer, schema_name
from taskforge.schemas import FailureMode
from test_agents import make_agents
from taskforge.validators.runner import default_checks, validate

DIFF = """diff --git a/calc/stats.py b/calc/stats.py
--- a/calc/stats.py
+++ b/calc/stats.py
@@ -1,2 +1,3 @@
+from calc.ops import total
 def mean(values):
-    return sum(values) / (len(values) - 1)
+    return total(values) / len(values)
diff --git a/tests/test_stats.py b/tests/test_stats.py
--- a/tests/test_stats.py
+++ b/tests/test_stats.py
@@ -0,0 +1,4 @@
+from calc.stats import mean
+
+def test_mean_of_two():
+    assert mean([2, 4]) == 3.0
"""
CLEAN = {"title": "mean() of [2, 4] returns 6", "statement": "After `from calc.stats import mean`, mean([2, 4]) "
                                                              "gives 6.0; expected 3.0."}


@pytest.fixture
def server():
    """A fresh local Chat Completions server per test."""
    with ChatServer() as running:
        yield running


def _review(verdict: str = "accept", *, blocking: str | None = None, checks: tuple[str, ...] = ()) -> str:
    """A review reply with `checks` true (false when rejecting) and one issue."""
    issues = [{"severity": "blocking", "problem": blocking}] if blocking else []
    return json.dumps({"analysis": "checked", **{c: verdict == "accept" for c in checks}, "issues": issues,
                       "verdict": verdict})


STATEMENT_CHECKS = ("behaviour_stated", "fix_hidden", "faithful")


def test_the_diff_is_split_into_the_fix_and_its_tests():
    fix, tests = split_diff(DIFF)
    assert "calc/stats.py" in fix and "test_stats" not in fix
    assert tests.startswith("diff --git a/tests/test_stats.py") and "assert mean([2, 4]) == 3.0" in tests
    assert split_diff("no git headers here") == ("no git headers here", "")


def test_problem_statement_that_quotes_the_fix_is_sent_back_and_the_reviewer_checks_it(server, tmp_path):
    leaky = {"title": "mean is wrong", "statement": "Change it to return total(values) / len(values)."}
    quotes_test = {"title": "mean", "statement": "It should hold that assert mean([2, 4]) == 3.0"}
    server.queue(json.dumps(leaky), json.dumps(quotes_test), json.dumps(CLEAN),
                 _review(checks=STATEMENT_CHECKS))
    reply = rewrite_problem_statement(make_agents(server, tmp_path), repo="calc", diff=DIFF,
                                      commit_message="Fix mean", subject="calc-1")
    assert reply.ok and reply.value.statement == CLEAN["statement"] and reply.call.repairs == 2
    assert "quotes a line the fix adds: 'return total(values) / len(values)'" in \
        server.requests[1]["messages"][-1]["content"]
    assert "quotes a line of the new tests: 'assert mean([2, 4]) == 3.0'" in server.requests[2]["messages"][-1]["content"]
    assert "from calc.stats import mean" in CLEAN["statement"], "an import named in the statement is no leak"
    writer = server.requests[0]["messages"][1]["content"]
    fix_part, tests_part = writer.split("# The tests added with the fix")
    assert "calc/stats.py" in fix_part and "test_stats" not in fix_part and "assert mean" in tests_part
    review = server.requests[3]
    assert schema_name(review) == "StatementReview" and CLEAN["statement"] in review["messages"][1]["content"]
    assert reply.call.role == "builder" and reply.call.family == "swe"


def test_a_rejected_or_unreviewable_statement_is_not_used(server, tmp_path):
    server.queue(json.dumps(CLEAN), _review("reject", blocking="it never says mean([2, 4]) must be 3.0",
                                            checks=STATEMENT_CHECKS))
    rejected = rewrite_problem_statement(make_agents(server, tmp_path), repo="calc", diff=DIFF,
                                         commit_message="Fix mean", subject="calc-1")
    assert rejected.status == "failed" and "never says mean" in rejected.reason
    unreviewed = rewrite_problem_statement(
        make_agents(server, tmp_path, TASKFORGE_REVIEWER_MODEL="", TASKFORGE_LLM_MODEL="",
                    TASKFORGE_BUILDER_MODEL="builder-only"), repo="calc", diff=DIFF, commit_message="Fix mean",
        subject="calc-2")
    assert unreviewed.status == "skipped" and "no model configured" in unreviewed.reason
    assert len(server.requests) == 2, "without a reviewer the builder is not asked"


PAPERS = [Paper(paper_id="tf-000126", title="Cold fusion revisited", text="We observed no excess heat in 40 runs."),
          Paper(paper_id="tf-000200", title="Heat in palladium", text="Excess heat appeared in 3 of 12 cells.")]
BRIEF = QuestionBrief(asks="Which papers cite 'Heat in palladium' and report calorimetry after 2019?",
                      gold_paper_ids=["tf-000126"], keep=["Heat in palladium", "calorimetry"],
                      withhold=["tf-000126", "Cold fusion revisited"])


def test_a_literature_rewrite_is_asked_only_for_its_words_and_keeps_to_its_brief(server, tmp_path):
    server.queue(json.dumps({"question": "Which calorimetry work after 2019 cites tf-000126?"}),
                 json.dumps({"question": "Which recent calorimetry studies build on “Heat in palladium”?"}))
    reply = rewrite_literature_question(make_agents(server, tmp_path), PAPERS, BRIEF, subject="task-1")
    assert reply.ok and reply.call.repairs == 1
    repair = server.requests[1]["messages"][-1]["content"]
    assert "it must state 'Heat in palladium' verbatim" in repair and "must not contain 'tf-000126'" in repair
    schema = server.requests[0]["response_format"]["json_schema"]["schema"]
    assert list(schema["properties"]) == ["question"], "no gold ids, ideal answer or passages are demanded"
    assert "Never write any of these" in server.requests[0]["messages"][1]["content"]


def test_the_literature_reviewer_checks_the_rewrite_against_the_computed_question(server, tmp_path):
    checks = ("same_question", "answer_hidden", "clear")
    server.queue(_review("reject", blocking="the rewrite drops 'after 2019'", checks=checks))
    review = review_question_rewrite(make_agents(server, tmp_path), "Which calorimetry studies cite it?", PAPERS,
                                     BRIEF, subject="task-1", built_by=["llm-other"])
    assert review.ok and not review.value.accepted and review.value.rejection() == "the rewrite drops 'after 2019'"
    shown = server.requests[0]["messages"][1]["content"]
    assert BRIEF.asks in shown and "[tf-000126] Cold fusion revisited (answers the question)" in shown
    assert "exactly what the computed question asks" in server.requests[0]["messages"][0]["content"]


def test_the_long_context_judge_sees_evidence_and_near_miss_distractors(server, tmp_path):
    parent, candidate = long_context_tasks(2, target_tokens=2048)
    server.queue(json.dumps({"analysis": "both hold", "solvable": False, "same_capability": True, "reasons": []}),
                 json.dumps({"analysis": "a distractor dates event B too", "solvable": False,
                             "same_capability": True, "reasons": ["a distractor also dates event B"]}))
    reply = judge_evolution(make_agents(server, tmp_path), parent, candidate)
    assert reply.ok and reply.call.role == "judge" and reply.call.repairs == 1
    assert "a failed check needs its reason" in server.requests[1]["messages"][-1]["content"]
    assert recorded_defects(judgement_record(reply)) == [
        "the judge finds the candidate's reference does not follow from what it shows (a distractor also dates "
        "event B)"]
    sent = server.requests[0]["messages"][1]["content"]
    _, others = long_context_passages(candidate)
    assert "## Candidate: other facts the documents state, near-miss distractors among them" in sent
    assert others and all(line in sent for line in others)
    assert list(server.requests[0]["response_format"]["json_schema"]["schema"]["properties"]) == [
        "analysis", "solvable", "same_capability", "reasons"]
    assert recorded_defects({"preferred": "parent", "harder": False, "solvable": True, "same_capability": True,
                             "reasons": []}) == [], "a judgement recorded before the schema changed still reads"


def _finding(step: int, *modes: FailureMode) -> str:
    """A diagnoser reply naming `modes`, all shown at `step`, its analysis first."""
    return json.dumps({"analysis": f"Step {step} is where it went wrong.", "findings": [{"decisive_step": step, "failure_mode": mode.value, "evidence_steps": [step],
                                     "confidence": 0.7, "explanation": f"step {step} shows it"} for mode in modes]})


def test_llm_diagnosis_has_the_rules_schema_and_real_steps(server, tmp_path):
    unexplained = episode("ep-u", repeats=1)
    server.queue(_finding(99, FailureMode.LOST_OBJECTIVE), _finding(2, FailureMode.LOST_OBJECTIVE))
    reply = diagnose_with_llm(make_agents(server, tmp_path), unexplained)
    (found,) = reply.value
    assert "evidence steps [99] are not steps of this episode" in server.requests[1]["messages"][-1]["content"]
    assert found.diagnoser == "llm" and found.evidence_steps == [2] and found.capability == "objective_tracking"
    assert found.signals["call_id"] == reply.call.call_id and found.episode_id == "ep-u"
    assert "[2] assistant" in render_episode(unexplained).full


def test_diagnosis_scope_and_fallback(server, tmp_path):
    explained, unexplained, infra = episode("ep-r", repeats=4), unexplained_episode("ep-u"), episode(
        "ep-i", origin="infrastructure", detail="timeout")
    server.queue(_finding(2, FailureMode.LOST_OBJECTIVE))
    diagnoses = diagnose_episodes([explained, unexplained, infra], make_agents(server, tmp_path / "a"))
    assert len(server.requests) == 1, "only the episode the rules leave unexplained goes to the diagnoser"
    assert {(d.episode_id, d.diagnoser) for d in diagnoses} == {("ep-r", "rules"), ("ep-u", "llm"), ("ep-i", "rules")}

    server.queue(_finding(3, FailureMode.REPEATS_UNPRODUCTIVE_APPROACH, FailureMode.NO_VERIFICATION))
    everything = make_agents(server, tmp_path / "b", TASKFORGE_LLM_DIAGNOSIS="all")
    diagnoses = diagnose_episodes([explained], everything)
    assert len(server.requests) == 2
    assert sorted((d.failure_mode.value, d.diagnoser) for d in diagnoses) == [
        ("research.no_verification", "llm"), ("research.repeats_unproductive_approach", "rules")]

    server.queue("not json", "not json", "not json")
    failing = make_agents(server, tmp_path / "c")
    assert [d.diagnoser for d in diagnose_episodes([explained, unexplained], failing)] == ["rules"]
    assert [c.status for c in failing.take_calls()] == ["invalid"]


LONG_CONTEXT_CHECKS = ("answer_supported", "unambiguous", "answer_hidden")


def test_review_rejection_rejects_an_accepted_task(server, tmp_path):
    good, bad = long_context_tasks(2, target_tokens=2048)
    server.queue(_review(checks=LONG_CONTEXT_CHECKS),
                 _review("reject", checks=LONG_CONTEXT_CHECKS),
                 _review("reject", blocking="event C has no date in any document", checks=LONG_CONTEXT_CHECKS))
    checks = default_checks(agents=make_agents(server, tmp_path))
    reviewed = [validate(task, checks) for task in (good, bad)]
    assert [t.status for t in reviewed] == ["accepted", "rejected"]
    assert "a reject must name at least one blocking issue" in server.requests[2]["messages"][-1]["content"]
    assert reviewed[1].reasons == ["review: event C has no date in any document"]
    shown = server.requests[0]["messages"][1]["content"]
    evidence, others = long_context_passages(good)
    assert all(line in shown for line in evidence + others) and good.payload["question"] in shown
    assert [v.check for v in reviewed[0].validation][-1] == "review" and reviewed[0].validation[-1].passed
    assert reviewed[0].validation[-1].detail["verdict"] == "accept"
    no_reviewer = make_agents(server, tmp_path, OPENAI_BASE_URL="", OPENAI_API_KEY="")
    unreviewed = validate(good, default_checks(agents=no_reviewer))
    assert unreviewed.status == "accepted" and no_reviewer.take_calls() == []
    assert unreviewed.validation[-1].detail["skipped"].startswith("skipped: ")
