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
from taskforge.agents.literature import KeyPassage, LiteratureQuestion, LiteratureQuestions
from taskforge.agents.review import SYSTEM as REVIEW_SYSTEM
from taskforge.agents.session import using
from taskforge.builders.literature.kinds import KINDS
from taskforge.builders.literature.natural import COMPUTED_QUESTION
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
    """A rewrite that keeps to its brief: the gold papers, the phrases to keep, a passage quoted verbatim."""
    text = user_text(body)
    gold = re.search(r"\(gold papers: ([^)]*)\):", text).group(1).split(", ")
    keep_line = re.search(r"^State these phrases verbatim: (.*)\.$", text, re.M)
    keep = re.findall(r"“(.*?)”", keep_line.group(1)) if keep_line else []
    paper = re.search(rf"## \[{re.escape(gold[0])}\] [^\n]*\n\n(.*?)(?=\n\n## \[|\Z)", text, re.S).group(1)
    question = f"Plainly put: {'; '.join(keep)}?" if keep else "Put the listed papers side by side."
    return LiteratureQuestions(questions=[LiteratureQuestion(
        question=question, ideal_answer="the gold papers", gold_paper_ids=gold,
        key_passages=[KeyPassage(paper_id=gold[0], text=paper.split("\n\n")[0][:60])])]).model_dump_json()


def _verdict(verdict: str) -> str:
    return json.dumps({"verdict": verdict, "answer_supported": verdict == "accept", "unambiguous": True,
                       "answer_hidden": True, "issues": [] if verdict == "accept" else ["the rewrite drops a year"]})


def _responder(writer: str = "valid", reviewer: str = "accept"):
    """Answers the builder (a valid rewrite, or invalid JSON) and the reviewer (accept or reject)."""
    def respond(body: dict) -> Canned:
        if schema_name(body) == "LiteratureQuestions":
            return Canned(content=_rewrite(body) if writer == "valid" else "not json")
        if schema_name(body) == "TaskReview":
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
        ("literature_questions", "builder", "ok", "literature", "build"): 4,
        ("review", "reviewer", "ok", "literature", "build"): 4}
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
    reviews = [r for r in requests if schema_name(r) == "TaskReview"]
    for review, template in zip(reviews, collection["template"]):
        shown = user_text(review)
        assert review["messages"][0]["content"].startswith(REVIEW_SYSTEM) and len(review["messages"]) == 2
        assert f"### [{COMPUTED_QUESTION}]" in shown and "Rewrite this question" not in shown
        assert template.prompt[1].content.split("\n\n")[0] in shown, "the computed question is a source"


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
