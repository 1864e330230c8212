"""MLE descriptions written by the builder agent and reviewed against the data facts, against the local server;
a description that fails its checks or that the reviewer rejects, and a run without an endpoint, keep the
template's."""

from __future__ import annotations

import json
import re
from dataclasses import replace

import pytest

from taskforge.agents.mle import REVIEWER_SYSTEM, WRITER_SYSTEM
from taskforge.builders.mle.description import WRITER, describe, description_facts, render_description, required_phrases
from taskforge.builders.mle.inference import define_problem
from taskforge.builders.mle.prepare import prepare
from taskforge.builders.mle.source import dataset_spec, load_table
from llm_server import Canned, ChatServer, schema_name, user_text
from mle_data import generated_frame, write_dataset
from test_agents import make_agents


@pytest.fixture(scope="module")
def facts(tmp_path_factory):
    """The description facts of a prepared binary-classification competition."""
    root = tmp_path_factory.mktemp("mle-hooks")
    spec = dataset_spec(write_dataset(generated_frame("binary", rows=120), root / "src", "signals"), root / "src")
    frame, problem = define_problem(load_table(spec), spec)
    return description_facts(prepare(frame, problem, 3, "Signals"), "Signals", None)


def _description(body: dict, drop: int | None = None) -> str:
    """A description stating the phrases the request asks for (all of them, or all but one)."""
    line = re.search(r"State each of these verbatim somewhere in the description: (.*)\.$", user_text(body), re.M)
    phrases = re.findall(r"`([^`]*)`", line.group(1))
    if drop is not None:
        phrases.pop(drop)
    listed = "\n".join(f"- {p}" for p in phrases)
    return json.dumps({"markdown": f"# Signals\n\nPredict whether each signal fires.\n\n{listed}\n"})


def _responder(writer: str = "valid", review: str = "accept"):
    def respond(body: dict) -> Canned:
        if schema_name(body) == "CompetitionDescription":
            return Canned(content=_description(body, None if writer == "valid" else 0))
        if schema_name(body) == "DescriptionReview":
            issues = [] if review == "accept" else [{"severity": "blocking", "problem": "it claims 200 rows"}]
            return Canned(content=json.dumps({"analysis": "checked against the facts",
                                              "consistent": review == "accept", "complete": True,
                                              "labels_hidden": True, "issues": issues, "verdict": review}))
        return Canned(status=400, error="unexpected schema")
    return respond


def test_an_accepted_description_is_used(facts, tmp_path):
    with ChatServer(_responder()) as server:
        agents = make_agents(server, tmp_path, stage="build")
        text, writer, written = describe(facts, agents)
        writing, review = server.requests
    assert text.startswith("# Signals") and all(p in text for p in required_phrases(facts))
    assert writer == "builder:test-model" and text != render_description(facts)
    calls = agents.take_calls()
    assert [(c.purpose, c.role, c.status, c.family, c.stage) for c in calls] == [
        ("mle_description", "builder", "ok", "mle", "build"), ("review", "reviewer", "ok", "mle", "build")]
    assert written == {"built_by": [calls[0].call_id], "reviewed_by": [calls[1].call_id]}
    assert writing["messages"][0]["content"].startswith(WRITER_SYSTEM)
    shown = user_text(review)
    assert review["messages"][0]["content"].startswith(REVIEWER_SYSTEM) and len(review["messages"]) == 2
    assert text.strip() in shown and f'"competition_id": "{facts["competition_id"]}"' in shown
    assert "State each of these verbatim" not in shown, "the reviewer never sees the writer's instructions"


@pytest.mark.parametrize("writer, review, statuses", [
    ("missing_phrase", "accept", [("mle_description", "invalid")]),
    ("valid", "reject", [("mle_description", "ok"), ("review", "ok")]),
])
def test_a_failed_or_rejected_description_falls_back_to_the_template(facts, tmp_path, writer, review, statuses):
    with ChatServer(_responder(writer, review)) as server:
        agents = make_agents(server, tmp_path)
        assert describe(facts, agents) == (render_description(facts), WRITER, {})
        calls = agents.take_calls()
        if writer == "missing_phrase":
            assert "the description must state verbatim: 'train.csv'" in server.requests[1]["messages"][-1]["content"]
    assert [(c.purpose, c.status) for c in calls] == statuses


def test_without_an_endpoint_or_a_reviewer_the_template_is_written(facts, tmp_path):
    with ChatServer(_responder()) as server:
        agents = make_agents(server, tmp_path, OPENAI_BASE_URL="", OPENAI_API_KEY="")
        unreviewed = make_agents(server, tmp_path)
        roles = unreviewed.config.roles
        unreviewed.config = replace(unreviewed.config, roles={**roles, "reviewer": replace(roles["reviewer"], model=None)})
        for writer_alone in (agents, unreviewed):
            assert describe(facts, writer_alone) == (render_description(facts), WRITER, {})
            assert writer_alone.take_calls() == []
        assert server.requests == [], "a description no reviewer can check is not written"
