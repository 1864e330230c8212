"""Workflow evolution by the builder agent, the LLM judge of descendants and the LLM reviewer of packages,
against the local server; failed calls and no endpoint leave the deterministic operators and checks alone."""

from __future__ import annotations

import csv
import io
import json
import random
import re
import shutil
from collections import Counter

import pytest

from taskforge import sandbox
from taskforge.agents.artifact import provenance, with_provenance
from taskforge.agents.session import using
from taskforge.agents.workflow import SYSTEM as AUTHOR_SYSTEM
from taskforge.builders.base import BuildContext
from taskforge.builders.workflow import WorkflowBuilder
from taskforge.builders.workflow.authoring import RecordAuthor, key_columns
from taskforge.builders.workflow.evolve import evolve
from taskforge.builders.workflow.judging import judged
from taskforge.builders.workflow.operators import OPERATORS
from taskforge.builders.workflow.package import GRADER_SOURCE
from taskforge.builders.workflow.seeds import load_seed
from conftest import FIXTURE_SEEDS, SAMPLES
from llm_server import Canned, ChatServer, schema_name, user_text
from taskforge.schemas import PlanItem
from taskforge.schemas.workflow import summarize, table_rows
from test_agents import make_agents
from taskforge.validators.questions import parts_of
from taskforge.validators.runner import default_checks, validate

SEED = FIXTURE_SEEDS / "customer-dedup"
NEW_IDS = ("9001", "9002")


def _new_rows(body: dict) -> str:
    """A new customer, recorded twice: the table's last row under new ids and a new e-mail, once spelled messily."""
    table = re.search(r"```\n(.*?)\n```", user_text(body), re.S).group(1)
    last = list(csv.DictReader(io.StringIO(table)))[-1]
    new = {**last, "customer_id": NEW_IDS[0], "name": "Ines Varga", "email": "ines.varga@example.net"}
    return json.dumps({"rows": [new, {**new, "customer_id": NEW_IDS[1], "name": "  ines  varga",
                                      "email": " INES.VARGA@example.net"}]})


def _verdict(solvable: bool = True) -> str:
    return json.dumps({"analysis": "the new rows are duplicates to merge", "solvable": solvable,
                       "same_capability": True, "reasons": [] if solvable else ["two rows tie on every key"]})


def _review(verdict: str) -> str:
    issues = [] if verdict == "accept" else [{"severity": "blocking", "problem": "two rows tie on every key"}]
    return json.dumps({"analysis": "read the workflow against the instructions",
                       "values_determined": verdict == "accept", "deliverables_specified": True,
                       "answer_hidden": True, "issues": issues, "verdict": verdict})


def _responder(invalid: bool = False, review: str = "accept"):
    def respond(body: dict) -> Canned:
        if invalid:
            return Canned(content=json.dumps({"rows": [{"customer": "x"}]}))
        handlers = {"NewRows": lambda: _new_rows(body), "EvolutionJudgement": _verdict,
                    "WorkflowReview": lambda: _review(review)}
        handler = handlers.get(schema_name(body))
        return Canned(content=handler()) if handler else Canned(status=400, error="unexpected schema")
    return respond


@pytest.fixture(scope="module")
def seed():
    return load_seed(SEED)


def _evolve(seed, agents):
    author = RecordAuthor(agents)
    with using(agents):
        child = evolve(seed, summarize(seed.package, {}), "workflow-parent", 5, (author.operator(), *OPERATORS))
    return child, author


def test_builder_rows_lead_the_evolution_and_failures_fall_back(seed, tmp_path):
    deterministic = evolve(seed, summarize(seed.package, {}), "workflow-parent", 5)
    with ChatServer(_responder()) as server:
        agents = make_agents(server, tmp_path / "ok")
        child, author = _evolve(seed, agents)
        (request,) = server.requests
    rows, before = table_rows(child.package, "customers"), table_rows(seed.package, "customers")
    assert child.package.evolution.operators[0] == "author_records" and "data" in child.package.evolution.axes
    assert len(child.package.evolution.axes) >= 2 and rows[:len(before)] == before
    assert [r["customer_id"] for r in rows[len(before):]] == list(NEW_IDS)
    (call,) = agents.take_calls()
    assert author.calls == [call.call_id] and (call.purpose, call.role, call.family) == (
        "workflow_evolution", "builder", "workflow")
    assert request["messages"][0]["content"].startswith(AUTHOR_SYSTEM)
    assert seed.package.rendered_instructions() in user_text(request)

    with ChatServer(_responder(invalid=True)) as server:
        failing = make_agents(server, tmp_path / "invalid")
        child, author = _evolve(seed, failing)
        assert child == deterministic and author.calls == []
        assert [c.status for c in failing.take_calls()] == ["invalid"]
        assert "has columns ['customer'], the table has" in server.requests[1]["messages"][-1]["content"]
        offline = make_agents(server, tmp_path / "offline", OPENAI_BASE_URL="", OPENAI_API_KEY="")
        child, _ = _evolve(seed, offline)
        assert child == deterministic and offline.take_calls() == []


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The seed task and one descendant built with the builder agent and the judge (process sandbox)."""
    root = tmp_path_factory.mktemp("wf-hooks")
    shutil.copytree(SEED, root / "seeds" / SEED.name)
    item = PlanItem(family="workflow", capability="verification", quota=2, gap_ids=[], priority=1.0)
    with pytest.MonkeyPatch.context() as patch, ChatServer(_responder()) as server:
        process = sandbox.get_sandbox("process")
        patch.setattr(sandbox, "default_sandbox", lambda: process)
        agents = make_agents(server, root / "llm", stage="build")
        with using(agents):
            parent, child = WorkflowBuilder().build(item, BuildContext(cycle_id="wf-hooks",
                                                                       options={"source": str(root / "seeds")}))
        yield {"parent": parent, "child": child, "calls": agents.take_calls(), "requests": list(server.requests),
               "decided": validate(child)}


def test_descendant_is_built_by_the_agent_and_judged_in_a_call_of_its_own(built):
    child, calls = built["child"], built["calls"]
    assert Counter((c.purpose, c.role, c.status) for c in calls) == {
        ("workflow_evolution", "builder", "ok"): 1, ("evolution_judge", "judge", "ok"): 1}
    record = provenance(child)
    by_purpose = {c.purpose: c.call_id for c in calls}
    assert record["built_by"] == [by_purpose["workflow_evolution"]]
    assert record["judgement"]["call_id"] == by_purpose["evolution_judge"] and record["judgement"]["solvable"]
    assert provenance(built["parent"]) == {}, "the seed itself is neither built by the agent nor judged"
    (judge,) = [r for r in built["requests"] if schema_name(r) == "EvolutionJudgement"]
    shown = user_text(judge)
    assert "## Parent task as its solver sees it" in shown and "- operators: author_records" in shown
    assert "## Diff of the inputs both tasks have" in shown and NEW_IDS[0] in shown and AUTHOR_SYSTEM not in shown
    assert "```python\n" in shown and "## How the grader compares each deliverable" in shown
    assert GRADER_SOURCE not in shown, "the shared grader program is not shown"
    decided = built["decided"]
    assert decided.status == "accepted", decided.reasons
    review = next(r for r in decided.validation if r.check == "review")
    assert review.detail["strategy"] == ["evolution_judge", "reviewer"] and parts_of(review)["evolution_judge"].passed
    assert parts_of(review)["reviewer"].detail["skipped"] == "skipped: no LLM roles in this run (no reviewer endpoint)"
    shortcut = next(r for r in decided.validation if r.check == "shortcut")
    assert shortcut.detail["strategy"] == ["descendant", "workflow_shortcuts"]


def test_a_descendant_judged_defective_is_rejected(built):
    record = provenance(built["child"])["judgement"]
    planted = with_provenance(built["child"], judgement={**record, "solvable": False})
    decided = validate(planted)
    assert decided.status == "rejected"
    assert [r.check for r in decided.validation if not r.passed] == ["review"]
    assert decided.reasons[0].startswith("review: evolution_judge: the judge finds the candidate's reference")


def test_judge_failure_leaves_the_descendant_unjudged(built, tmp_path):
    unjudged = built["child"].model_copy(update={"reference": {**built["child"].reference, "llm": {}}})
    with ChatServer(_responder(invalid=True)) as server:
        agents = make_agents(server, tmp_path)
        assert judged(built["parent"], unjudged, agents) == unjudged
        assert [(c.purpose, c.status) for c in agents.take_calls()] == [("evolution_judge", "invalid")]


def test_reviewer_audits_accepted_packages_with_their_inputs(built, tmp_path):
    decided = built["decided"]
    with ChatServer(_responder(review="reject")) as server:
        agents = make_agents(server, tmp_path / "on", stage="validate")
        reviewed = validate(built["child"], default_checks(agents=agents))
        (request,) = server.requests
        offline = make_agents(server, tmp_path / "off", OPENAI_BASE_URL="", OPENAI_API_KEY="")
        unreviewed = validate(built["child"], default_checks(agents=offline))
        assert unreviewed.status == "accepted" and len(server.requests) == 1
        assert parts_of(unreviewed.validation[-1])["reviewer"].reason.startswith("skipped: ")
    assert reviewed.status == "rejected" and reviewed.reasons == ["review: reviewer: two rows tie on every key"]
    shown = user_text(request)
    assert all(f"### `{path}`\n\n```\n{text.rstrip()}\n```" in shown for path, text in decided.payload["inputs"].items())
    assert decided.reference["workflow"]["reference.py"].rstrip() in shown, "the reviewer reads the reference code"
    for call_id in [*provenance(decided)["built_by"], provenance(decided)["judgement"]["call_id"]]:
        assert call_id not in shown, "how the task was made is not shown to the reviewer"
    (call,) = agents.take_calls()
    assert (call.purpose, call.role, call.family, call.stage) == ("review", "reviewer", "workflow", "validate")


def test_a_long_table_is_shown_cut_and_new_rows_need_new_keys(tmp_path):
    package = load_seed(FIXTURE_SEEDS / "temperature-anomaly").package
    header, rows = ["year", "month", "tmean_c"], table_rows(package, "station_monthly")
    assert key_columns(header, rows, set(package.tables["station_monthly"].jitter)) == ["year", "month"]
    inside_the_cut = json.dumps({"rows": [{"year": "1994", "month": "5", "tmean_c": "14.00"}]})
    continued = '```json\n{"rows": [{"year": 2024, "month": 1, "tmean_c": 2.50}]}\n```'
    with ChatServer() as server:
        server.queue(inside_the_cut, continued)
        author = RecordAuthor(make_agents(server, tmp_path))
        extended = author.apply(package, random.Random(0))
        prompt, repair = user_text(server.requests[0]), server.requests[1]["messages"][-1]["content"]
    assert "The table has 396 rows; shown are the first 30 and the last 10 (rows 31 to 386 are left out)." in prompt
    assert "identified by its key (year, month)" in prompt and "[… rows 31 to 386 left out …]\n2023,3," in prompt
    assert "row 1 has the key (year='1994', month='5') of an existing row" in repair
    assert table_rows(extended, "station_monthly")[-1] == {"year": "2024", "month": "1", "tmean_c": "2.50"}
    assert len(author.calls) == 1
