"""The judge model in long-context evolution, against the local server: it joins the solvers of the success
estimate, and it judges each child against its parent; failed calls and no endpoint leave the shallow path."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from taskforge.agents.artifact import provenance
from taskforge.agents.session import using
from taskforge.builders.base import BuildContext
from taskforge.builders.long_context import LongContextBuilder
from taskforge.builders.long_context.judging import SOLVER_VIEW, JudgeModelSolver
from taskforge.graders import scorer_for
from llm_server import Canned, ChatServer, schema_name, user_text
from taskforge.schemas import PlanItem
from test_agents import make_agents
from taskforge.validators.runner import validate

ITEM = PlanItem(family="long_context", capability="history_tracking", quota=1, gap_ids=[], priority=1.0)
CONTEXT = BuildContext(cycle_id="lc-hooks", options={"target_tokens": 2048, "categories": "timeline",
                                                      "start": "easiest"})
WRONG = "Answer: Z"


def _build(agents=None):
    if agents is None:
        return list(LongContextBuilder().build(ITEM, CONTEXT))
    with using(agents):
        return list(LongContextBuilder().build(ITEM, CONTEXT))


@pytest.fixture(scope="module")
def plain():
    """The candidates built without an endpoint: shallow solvers only, no child judged."""
    return _build()


def _verdict(solvable: bool = True) -> str:
    return json.dumps({"analysis": "compared both tasks' evidence and distractors", "solvable": solvable,
                       "same_capability": True,
                       "reasons": [] if solvable else ["event B has no date in any evidence passage"]})


def _responder(answers: dict[str, str], solvable: bool = True, invalid: bool = False):
    """The judge model answers the questions in `answers` correctly and others wrongly; the judge's verdict."""
    def respond(body: dict) -> Canned:
        if invalid:
            return Canned(content="not json")
        if schema_name(body) == "TaskAnswer":
            shown = user_text(body)
            answer = next((a for question, a in answers.items() if question in shown), WRONG)
            return Canned(content=json.dumps({"reasoning": "ordered the dated events", "answer": answer}))
        if schema_name(body) == "EvolutionJudgement":
            return Canned(content=_verdict(solvable))
        return Canned(status=400, error=f"unexpected schema {schema_name(body)}")
    return respond


def test_a_candidate_the_judge_model_solves_is_not_hard(plain, tmp_path):
    assert len(plain) > 1 and all("judge_model" not in t.payload["evolution"]["solver_scores"] for t in plain)
    hard = plain[-1]
    solved = {hard.payload["question"]: scorer_for(hard.grader).reference_submission(hard.reference, hard.grader)}
    with ChatServer(_responder(solved)) as server:
        agents = make_agents(server, tmp_path, stage="build")
        built = _build(agents)
    same = next(t for t in built if t.payload["question"] == hard.payload["question"])
    record = same.payload["evolution"]
    assert record["solver_scores"]["judge_model"] == 1.0 and record["estimate"] == 1.0 and record["pool"] == "seed"
    decided = validate(same)
    assert decided.status == "rejected" and "too easy: the judge_model shortcut scores 1.0" in decided.reasons[0]
    for task in built:
        scores = task.payload["evolution"]["solver_scores"]
        assert task.payload["evolution"]["estimate"] == max(scores.values())
        if task.payload["question"] != hard.payload["question"]:
            assert scores["judge_model"] == scorer_for(task.grader).score(WRONG, task.reference, task.grader)
    calls = Counter((c.purpose, c.role, c.status, c.stage, c.family) for c in agents.take_calls())
    children = [t for t in built if t.lineage.parent_task_id]
    assert calls == {("easiness_estimate", "judge", "ok", "build", "long_context"): len(built),
                     ("evolution_judge", "judge", "ok", "build", "long_context"): len(children)}
    assert all(provenance(t)["judgement"]["solvable"] for t in children)
    assert all("judgement" not in provenance(t) for t in built if not t.lineage.parent_task_id)


def test_a_child_the_judge_finds_defective_is_rejected_and_seeds_nothing(plain, tmp_path):
    with ChatServer(_responder({}, solvable=False)) as server:
        built = _build(make_agents(server, tmp_path))
        judged = [r for r in server.requests if schema_name(r) == "EvolutionJudgement"]
    children = [t for t in built if t.lineage.parent_task_id]
    assert children and {t.lineage.parent_task_id for t in children} == {built[0].task_id}, \
        "defective children end their branch"
    for child in children:
        decided = validate(child)
        assert any(reason.startswith("review: evolution_judge: ") for reason in decided.reasons)
        assert "event B has no date" in " ".join(decided.reasons)
    shown = user_text(judged[0])
    root_documents = built[0].payload["documents"]
    span = built[0].payload["evidence"][0]
    evidence = next(d["text"] for d in root_documents if d["doc_id"] == span["doc_id"])[span["start"]:span["end"]]
    assert "## Parent: evidence passages" in shown and "## Candidate: evidence passages" in shown
    assert evidence in shown and "near-miss distractors among them" in shown
    assert root_documents[0]["text"] not in shown, "the judge reads quoted passages, not whole documents"


def test_failed_calls_and_no_endpoint_leave_the_shallow_path(plain, tmp_path):
    with ChatServer(_responder({}, invalid=True)) as server:
        agents = make_agents(server, tmp_path / "failing")
        assert _build(agents) == plain
        calls = Counter((c.purpose, c.status) for c in agents.take_calls())
        assert calls == {("easiness_estimate", "invalid"): len(plain), ("evolution_judge", "invalid"): len(plain) - 1}
        sent = len(server.requests)
        offline = make_agents(server, tmp_path / "offline", OPENAI_BASE_URL="", OPENAI_API_KEY="")
        assert _build(offline) == plain
        assert len(server.requests) == sent and offline.take_calls() == []


def test_a_task_longer_than_the_judge_window_is_solved_from_its_view(plain, tmp_path):
    task = plain[-1]
    with ChatServer(_responder({})) as server:
        agents = make_agents(server, tmp_path, TASKFORGE_JUDGE_MAX_CONTEXT_TOKENS="1536")
        with using(agents):
            answer = JudgeModelSolver().solve(task)
        (request,) = server.requests
    (call,) = agents.take_calls()
    assert answer == WRONG and (call.status, call.view) == ("ok", SOLVER_VIEW)
    shown = user_text(request)
    assert shown.endswith(task.payload["question"]) and "[…]" in shown
    documents = {d["doc_id"]: d["text"] for d in task.payload["documents"]}
    assert all(documents[f["doc_id"]][f["start"]:f["end"]] in shown for f in task.reference["facts"]), \
        "every fact the documents state is kept, evidence and distractors alike"
    assert "evidence" not in shown.lower(), "nothing marks which passages are evidence"
    assert list(request["response_format"]["json_schema"]["schema"]["properties"]) == ["reasoning", "answer"]
