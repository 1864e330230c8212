"""Literature questions rewritten by the builder agent and checked by the reviewer, against the local server.

A rewrite the reviewer accepts replaces the templated question (and the task
still passes every check); a rewrite that fails its checks, a rejected one,
and a run without an endpoint all leave the templated task exactly as it is.
"""

from __future__ import annotations

import json
import re
from collections import Counter

import pytest

from taskforge.agents.artifact import provenance
from taskforge.agents.literature import REVIEWER_SYSTEM
from taskforge.agents.session import using
from taskforge.builders.literature.kinds import KINDS
from factories import literature_tasks, paper_collection
from llm_server import Canned, ChatServer, schema_name, user_text
from test_agents import make_agents
from taskforge.validators.runner import default_checks, validate

FALLBACK_KINDS = ["find_papers", "fulltext_qa"]


@pytest.fixture(scope="module")
def collection(tmp_path_factory):
    """A generated collection, its data dir, and the templated tasks built from it without an endpoint."""
    root = tmp_path_factory.mktemp("lit-hooks")
    source, data_dir = paper_collection(root / "papers.jsonl"), root / "data"
    return {"source": source, "data_dir": data_dir, "template": literature_tasks(source, data_dir, list(KINDS)),
            "fallback": literature_tasks(source, data_dir, FALLBACK_KINDS)}


def _rewrite(body: dict) -> str:
    """A rewrite that keeps to its brief: it states the phrases to keep."""
    kept = re.search(r"# State each of these verbatim\n\n(.*?)(?:\n\n#|\Z)", user_text(body), re.S)
    keep = re.findall(r"^- “(.*)”$", kept.group(1), re.M) if kept else []
    return json.dumps({"question": f"Plainly put: {'; '.join(keep)}?" if keep else "Put the listed papers side by side."})


def _verdict(verdict: str) -> str:
    issues = [] if verdict == "accept" else [{"severity": "blocking", "problem": "the rewrite drops a year"}]
    return json.dumps({"analysis": "compared both questions", "same_question": verdict == "accept",
                       "answer_hidden": True, "clear": True, "issues": issues, "verdict": verdict})


def _responder(writer: str = "valid", reviewer: str = "accept"):
    """Answers the builder (a valid rewrite, or invalid JSON) and the reviewer (accept or reject)."""
    def respond(body: dict) -> Canned:
        if schema_name(body) == "QuestionRewrite":
            return Canned(content=_rewrite(body) if writer == "valid" else "not json")
        if schema_name(body) == "RewriteReview":
            return Canned(content=_verdict(reviewer))
        return Canned(status=400, error=f"unexpected schema {schema_name(body)}")
    return respond


def _build(collection, agents, kinds):
    with using(agents):
        return literature_tasks(collection["source"], collection["data_dir"], kinds)


def test_accepted_rewrites_replace_the_templated_questions(collection, tmp_path):
    with ChatServer(_responder()) as server:
        agents = make_agents(server, tmp_path, stage="build")
        tasks = _build(collection, agents, list(KINDS))
        requests = list(server.requests)
    calls = agents.take_calls()
    assert Counter((c.purpose, c.role, c.status, c.family, c.stage) for c in calls) == {
        ("literature_questions", "builder", "ok", "literature", "build"): len(KINDS),
        ("review", "reviewer", "ok", "literature", "build"): len(KINDS)}
    checks = default_checks(collection["data_dir"])
    for task, template in zip(tasks, collection["template"]):
        question = task.payload.get("question") or task.payload["claim"]
        assert question.startswith(("Plainly put", "Put the listed")) and task.prompt[1].content.startswith(question)
        assert task.payload["question_writer"] == "builder:test-model"
        for kept in ("answer", "gold_ids", "key_passages"):
            assert task.reference[kept] == template.reference[kept], "the computed answer stands"
        assert task.grader == template.grader
        record = provenance(task)
        writer, reviewer = ({c.call_id for c in calls if c.purpose == p} for p in ("literature_questions", "review"))
        assert set(record["built_by"]) <= writer and set(record["reviewed_by"]) <= reviewer
        decided = validate(task, checks)
        assert decided.status == "accepted", decided.reasons
    reviews = [r for r in requests if schema_name(r) == "RewriteReview"]
    for review, task, template in zip(reviews, tasks, collection["template"]):
        shown = user_text(review)
        assert review["messages"][0]["content"].startswith(REVIEWER_SYSTEM) and len(review["messages"]) == 2
        computed = template.payload.get("question") or template.payload["claim"]
        assert f"# The computed question (the fixed answer answers exactly this)\n\n{computed}" in shown
        assert (task.payload.get("question") or task.payload["claim"]) in shown and "State each of" not in shown
        assert all(f"- {gold}" in shown for gold in template.reference["gold_ids"])


@pytest.mark.parametrize("writer, reviewer, statuses", [
    ("invalid", "accept", {("literature_questions", "invalid"): 2}),
    ("valid", "reject", {("literature_questions", "ok"): 2, ("review", "ok"): 2}),
])
def test_failed_or_rejected_rewrites_leave_the_templated_task(collection, tmp_path, writer, reviewer, statuses):
    with ChatServer(_responder(writer, reviewer)) as server:
        agents = make_agents(server, tmp_path)
        assert _build(collection, agents, FALLBACK_KINDS) == collection["fallback"]
    calls = agents.take_calls()
    assert Counter((c.purpose, c.status) for c in calls) == statuses
    assert all(c.error for c in calls if c.status == "invalid")


def test_without_an_endpoint_no_question_is_rewritten(collection, tmp_path):
    with ChatServer(_responder()) as server:
        agents = make_agents(server, tmp_path, OPENAI_BASE_URL="", OPENAI_API_KEY="")
        assert _build(collection, agents, FALLBACK_KINDS) == collection["fallback"]
        assert server.requests == [] and agents.take_calls() == []
