"""Replies as real models give them, verdicts that must agree with their parts, context budgets, model separation:
the role client against the local server, through the real `openai` client."""

from __future__ import annotations

import json
import logging

import pytest
from pydantic import BaseModel

from taskforge.agents.config import AgentsConfig, ConfigError
from taskforge.agents.context import Fit, Part, cut_middle, fit_parts
from taskforge.agents.judge import EvolutionJudgement
from taskforge.agents.literature import RewriteReview
from taskforge.agents.mle import DescriptionReview
from taskforge.agents.review import LongContextReview, WorkflowReview
from taskforge.agents.solve import TaskAnswer
from taskforge.agents.structured import parse_reply, schema_instruction
from taskforge.agents.swe import StatementReview
from taskforge.agents.workflow import NewRows
from taskforge.schemas.tokens import count_tokens
from taskforge.store.catalog import Catalog
from taskforge.store.report import llm_usage
from llm_server import Canned, ChatServer
from test_agents import make_agents

VERDICTS = (LongContextReview, WorkflowReview, RewriteReview, DescriptionReview, StatementReview)
WORDS = " ".join(f"word{n} alpha beta gamma" for n in range(3000))


class Ordered(BaseModel):
    """A reply whose fields are not in alphabetical order."""

    zeta: str
    alpha: int


@pytest.fixture
def server():
    with ChatServer() as running:
        yield running


def test_schemas_are_sent_in_their_declared_order(server, tmp_path):
    server.queue(json.dumps({"zeta": "z", "alpha": 1}))
    agents = make_agents(server, tmp_path)
    assert agents.ask("builder", "Say.", "now", Ordered, purpose="test", family="swe", subject="s").ok
    (request,) = server.requests
    schema = request["response_format"]["json_schema"]["schema"]
    assert list(schema["properties"]) == ["zeta", "alpha"] and schema["required"] == ["zeta", "alpha"]
    system = request["messages"][0]["content"]
    assert system.index('"zeta"') < system.index('"alpha"') and system.endswith(schema_instruction(Ordered)[-40:])
    for verdict in VERDICTS:
        fields = list(verdict.model_json_schema()["properties"])
        assert fields[0] == "analysis" and fields[-2:] == ["issues", "verdict"], verdict.__name__
    assert list(EvolutionJudgement.model_json_schema()["properties"])[0] == "analysis"
    assert list(TaskAnswer.model_json_schema()["properties"]) == ["reasoning", "answer"]


def test_replies_are_read_as_real_models_write_them():
    reasoning = 'First I check {the keys}.\n\n```json\n{"zeta": "ok", "alpha": 2}\n```\nDone.'
    assert parse_reply(reasoning, Ordered) == Ordered(zeta="ok", alpha=2)
    assert parse_reply('<think>\nlet me see {x}\n</think>\n{"zeta": "t", "alpha": 3}', Ordered).alpha == 3
    assert parse_reply('Here it is: {"zeta": "p", "alpha": 4} as asked.', Ordered).zeta == "p"
    rows = parse_reply('{"rows": [{"year": 2024, "month": 1, "tmean_c": 3.10, "flag": "x"}]}', NewRows)
    assert rows.rows == [{"year": "2024", "month": "1", "tmean_c": "3.10", "flag": "x"}], "numbers kept as written"
    with pytest.raises(ValueError, match="does not match the schema"):
        parse_reply('{"rows": [{"flag": true}]}', NewRows)
    with pytest.raises(ValueError, match="holds no JSON object"):
        parse_reply("I cannot answer that.", Ordered)


def _verdict(verdict: str, *issues: tuple[str, str], checks: bool = True) -> str:
    return json.dumps({"analysis": "checked", "answer_supported": checks, "unambiguous": True,
                       "answer_hidden": True, "issues": [{"severity": s, "problem": p} for s, p in issues],
                       "verdict": verdict})


@pytest.mark.parametrize("reply, problem", [
    (_verdict("reject"), "a reject must name at least one blocking issue"),
    (_verdict("reject", ("minor", "a typo")), "a reject must name at least one blocking issue"),
    (_verdict("accept", ("blocking", "no date for C")), "an accept cannot have blocking issues"),
    (_verdict("accept", checks=False), "answer_supported is false"),
])
def test_a_verdict_that_disagrees_with_its_parts_is_refused(reply, problem):
    with pytest.raises(ValueError, match=problem):
        parse_reply(reply, LongContextReview)


def test_only_blocking_issues_reject():
    minor = parse_reply(_verdict("accept", ("minor", "could be shorter")), LongContextReview)
    assert minor.accepted and minor.blocking == []
    rejected = parse_reply(_verdict("reject", ("blocking", "no date for C"), ("minor", "a typo"), checks=False),
                           LongContextReview)
    assert not rejected.accepted and rejected.rejection() == "no date for C"


def test_an_input_too_long_for_the_window_is_recorded_and_never_sent(server, tmp_path):
    agents = make_agents(server, tmp_path, TASKFORGE_JUDGE_MAX_CONTEXT_TOKENS="2048")
    reply = agents.ask("judge", "Answer.", WORDS, TaskAnswer, purpose="easiness_estimate", family="long_context",
                       subject="t-1")
    assert reply.status == "failed" and reply.reason.startswith("too_long: too long for the window")
    (call,) = agents.take_calls()
    assert (call.status, call.requests, call.tokens_in) == ("too_long", 0, 0) and server.requests == []
    assert "the role's window leaves 1536" in call.error and "max_context_tokens 2048" in call.error
    big = make_agents(server, tmp_path, TASKFORGE_BUILDER_MAX_CONTEXT_TOKENS="2048")
    assert big.config.roles["judge"].max_context_tokens == 131072, "the budget is per role"


def test_an_over_long_input_is_sent_as_its_view_and_the_view_recorded(server, tmp_path):
    server.queue(json.dumps({"reasoning": "r", "answer": "Answer: A"}))
    parts = [Part("# Question: which came first?", keep=True), Part(WORDS), Part(WORDS[::-1])]
    fit = Fit(full="\n\n".join(p.text for p in parts), view="each part cut to its head and tail",
              cut=lambda tokens: fit_parts(parts, tokens))
    agents = make_agents(server, tmp_path, TASKFORGE_JUDGE_MAX_CONTEXT_TOKENS="4096")
    reply = agents.ask("judge", "Answer.", fit, TaskAnswer, purpose="easiness_estimate", family="long_context",
                       subject="t-1")
    assert reply.ok and reply.view == "each part cut to its head and tail" == reply.call.view
    sent = server.requests[0]["messages"]
    assert sent[1]["content"].startswith("# Question: which came first?") and "characters cut …]" in sent[1]["content"]
    assert count_tokens(sent[0]["content"] + sent[1]["content"]) <= agents.config.roles["judge"].input_budget


def test_a_context_overflow_from_the_server_is_retried_with_a_smaller_view_or_recorded(tmp_path):
    parts = [Part("# Question", keep=True), Part(WORDS)]
    fit = Fit(full="\n\n".join(p.text for p in parts), view="the words cut", cut=lambda t: fit_parts(parts, t))
    with ChatServer(lambda body: Canned(content=json.dumps({"reasoning": "r", "answer": "a"})),
                    context_window=3000) as server:
        agents = make_agents(server, tmp_path)
        reply = agents.ask("judge", "Answer.", fit, TaskAnswer, purpose="p", family="f", subject="s")
        assert reply.ok and reply.call.view == "the words cut" and reply.call.requests >= 2
        assert "characters cut" in server.requests[-1]["messages"][1]["content"]
        plain = agents.ask("judge", "Answer.", WORDS, TaskAnswer, purpose="p", family="f", subject="s2")
    assert plain.status == "failed" and plain.call.status == "too_long"
    assert "the server refused the input" in plain.call.error and "maximum context length is 3000" in plain.call.error


def test_a_view_that_cannot_fit_is_recorded_as_too_long(server, tmp_path):
    parts = [Part(WORDS, keep=True), Part("a cuttable note")]
    fit = Fit(full="\n\n".join(p.text for p in parts), view="the note cut", cut=lambda t: fit_parts(parts, t))
    agents = make_agents(server, tmp_path, TASKFORGE_REVIEWER_MAX_CONTEXT_TOKENS="2048")
    reply = agents.ask("reviewer", "Review.", fit, LongContextReview, purpose="review", family="f", subject="s")
    assert reply.call.status == "too_long" and "even the view (the note cut) takes" in reply.call.error
    assert reply.view == "the note cut" and server.requests == []


def test_cut_middle_keeps_head_and_tail_and_says_what_was_cut():
    lines = "\n".join(["year,month,value", *(f"{1990 + n // 12},{n % 12 + 1},{n}" for n in range(396))])
    cut = cut_middle(lines, 400, unit="lines")
    assert cut.startswith("year,month,value\n1990,1,0\n") and cut.endswith("2022,12,395")
    assert "lines cut …]" in cut and len(cut) <= 460
    text = cut_middle(WORDS, 300)
    assert text.startswith("word0 ") and "characters cut …]" in text and text.endswith("alpha beta gamma")


def test_builder_and_certifier_on_one_model_warn_or_are_refused(caplog):
    env = {"OPENAI_BASE_URL": "http://127.0.0.1:9/v1", "OPENAI_API_KEY": "k", "TASKFORGE_LLM_MODEL": "same-model-x"}
    caplog.set_level(logging.WARNING, logger="taskforge.agents")
    assert AgentsConfig.load(env).shared_models() == ["builder and reviewer use same-model-x",
                                                      "builder and judge use same-model-x"]
    assert "builder and reviewer use same-model-x: the model that builds tasks also certifies them" in caplog.text
    with pytest.raises(ConfigError, match="separate models are required but builder and reviewer use same-model-x"):
        AgentsConfig.load({**env, "TASKFORGE_LLM_REQUIRE_SEPARATE_MODELS": "1"})
    separate = {**env, "TASKFORGE_REVIEWER_MODEL": "other", "TASKFORGE_JUDGE_MODEL": "third",
                "TASKFORGE_LLM_REQUIRE_SEPARATE_MODELS": "true"}
    assert AgentsConfig.load(separate).shared_models() == []


def test_too_long_calls_and_views_land_in_the_catalog(server, tmp_path):
    agents = make_agents(server, tmp_path, TASKFORGE_JUDGE_MAX_CONTEXT_TOKENS="2048")
    agents.ask("judge", "Answer.", WORDS, TaskAnswer, purpose="easiness_estimate", family="long_context",
               subject="t-1")
    (call,) = agents.take_calls()
    with Catalog(tmp_path / "catalog.duckdb") as catalog:
        assert catalog.record_llm_calls([call, call.model_copy(update={"subject": "t-2", "view": "a view"})]) == 2
        rows = catalog.query("SELECT subject, status, view FROM llm_calls ORDER BY subject")
        assert llm_usage(catalog, "cycle-t")["total"]["failed"] == 2
    assert [(r["subject"], r["status"], r["view"]) for r in rows] == [("t-1", "too_long", None),
                                                                       ("t-2", "too_long", "a view")]
