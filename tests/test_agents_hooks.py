"""The LLM hooks against the local server: each returns its model, holds the reply to its rules, and repairs."""

from __future__ import annotations

import json

import pytest

from taskforge.agents.judge import judge_evolution
from taskforge.agents.literature import KeyPassage, LiteratureQuestion, LiteratureQuestions, Paper, write_literature_questions
from taskforge.agents.swe import rewrite_problem_statement
from taskforge.diagnosis.llm import diagnose_episodes, diagnose_with_llm, render_episode
from factories import episode, long_context_tasks, unexplained_episode
from llm_server import ChatServer
from taskforge.schemas import FailureMode
from test_agents import make_agents
from taskforge.validators.runner import default_checks, validate

DIFF = """diff --git a/calc.py b/calc.py
--- a/calc.py
+++ b/calc.py
@@ -1,2 +1,2 @@
 def mean(values):
-    return sum(values) / (len(values) - 1)
+    return sum(values) / len(values)
"""


@pytest.fixture
def server():
    """A fresh local Chat Completions server per test."""
    with ChatServer() as running:
        yield running


def test_problem_statement_that_quotes_the_fix_is_sent_back(server, tmp_path):
    leaky = {"title": "mean is wrong", "statement": "Change it to return sum(values) / len(values)."}
    clean = {"title": "mean() of [2, 4] returns 6", "statement": "calc.mean([2, 4]) gives 6.0; expected 3.0."}
    server.queue(json.dumps(leaky), json.dumps(clean))
    reply = rewrite_problem_statement(make_agents(server, tmp_path), repo="calc", diff=DIFF,
                                      commit_message="Fix mean", subject="calc-1")
    assert reply.ok and reply.value.statement == clean["statement"] and reply.call.repairs == 1
    repair = server.requests[1]["messages"][-1]["content"]
    assert "quotes a line the fix adds: 'return sum(values) / len(values)'" in repair
    assert reply.call.role == "builder" and reply.call.family == "swe"


PAPERS = [Paper(paper_id="p1", title="Cold fusion revisited", text="We observed no excess heat in 40 runs."),
          Paper(paper_id="p2", title="Heat in palladium", text="Excess heat appeared in 3 of 12 cells.")]


def test_literature_questions_must_quote_their_papers(server, tmp_path):
    def question(passage: str) -> str:
        """A reply with one question whose key passage is `passage`."""
        return LiteratureQuestions(questions=[LiteratureQuestion(
            question="Which study saw excess heat, and in how many cells?", ideal_answer="p2, in 3 of 12 cells",
            gold_paper_ids=["p2"], key_passages=[KeyPassage(paper_id="p2", text=passage)])]).model_dump_json()

    server.queue(question("Excess heat was seen in most cells."), question("excess heat  appeared in 3 of 12 cells"))
    reply = write_literature_questions(make_agents(server, tmp_path), PAPERS, kind="select_evidence", count=1,
                                       subject="collection-1")
    assert reply.ok and reply.call.repairs == 1
    assert "is not verbatim in p2" in server.requests[1]["messages"][-1]["content"]


def test_judge_compares_candidate_with_parent(server, tmp_path):
    parent, candidate = long_context_tasks(2, target_tokens=2048)
    server.queue(json.dumps({"preferred": "candidate", "harder": True, "solvable": True, "same_capability": True,
                             "reasons": ["more events"]}))
    reply = judge_evolution(make_agents(server, tmp_path), parent, candidate)
    assert reply.ok and reply.value.preferred == "candidate" and reply.call.role == "judge"
    sent = server.requests[0]["messages"][1]["content"]
    assert "## Parent task" in sent and "## Candidate task" in sent


def _finding(step: int, *modes: FailureMode) -> str:
    """A diagnoser reply naming `modes`, all shown at `step`."""
    return json.dumps({"findings": [{"failure_mode": mode.value, "evidence_steps": [step], "confidence": 0.7,
                                     "explanation": f"step {step} shows it"} for mode in modes]})


def test_llm_diagnosis_has_the_rules_schema_and_real_steps(server, tmp_path):
    unexplained = episode("ep-u", repeats=1)
    server.queue(_finding(99, FailureMode.LOST_OBJECTIVE), _finding(2, FailureMode.LOST_OBJECTIVE))
    reply = diagnose_with_llm(make_agents(server, tmp_path), unexplained)
    (found,) = reply.value
    assert "evidence steps [99] are not steps of this episode" in server.requests[1]["messages"][-1]["content"]
    assert found.diagnoser == "llm" and found.evidence_steps == [2] and found.capability == "objective_tracking"
    assert found.signals["call_id"] == reply.call.call_id and found.episode_id == "ep-u"
    assert "[2] assistant" in render_episode(unexplained)


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


def test_review_rejection_rejects_an_accepted_task(server, tmp_path):
    good, bad = long_context_tasks(2, target_tokens=2048)
    server.queue(json.dumps({"verdict": "accept", "answer_supported": True, "unambiguous": True,
                             "answer_hidden": True, "issues": []}),
                 json.dumps({"verdict": "reject", "answer_supported": False, "unambiguous": True,
                             "answer_hidden": True, "issues": ["event C has no date in any document"]}))
    checks = default_checks(agents=make_agents(server, tmp_path))
    reviewed = [validate(task, checks) for task in (good, bad)]
    assert [t.status for t in reviewed] == ["accepted", "rejected"]
    assert reviewed[1].reasons == ["review: event C has no date in any document"]
    assert [v.check for v in reviewed[0].validation][-1] == "review" and reviewed[0].validation[-1].passed
    assert reviewed[0].validation[-1].detail["verdict"] == "accept"
    no_reviewer = make_agents(server, tmp_path, OPENAI_BASE_URL="", OPENAI_API_KEY="")
    unreviewed = validate(good, default_checks(agents=no_reviewer))
    assert unreviewed.status == "accepted" and no_reviewer.take_calls() == []
    assert unreviewed.validation[-1].detail["skipped"].startswith("skipped: ")
