"""The role client against a local Chat Completions server, through the real `openai` client."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from pydantic import BaseModel

from taskforge.agents.client import Agents
from taskforge.agents.config import AgentsConfig, ConfigError
from taskforge.agents.review import review_task
from taskforge.agents.separation import RoleSeparationError, ensure_independent
from taskforge.agents.session import current_agents, using
from conftest import REPO
from factories import long_context_tasks
from llm_server import Canned, ChatServer

SECRET = "sk-test-0123456789-SECRET-never-stored"


class Verdict(BaseModel):
    """A tiny structured reply."""

    label: str
    score: int


GOOD = json.dumps({"label": "fine", "score": 3})


def write_prices(folder: Path, model: str = "test-model") -> Path:
    """A configuration file with a price for `model` (USD per million tokens)."""
    path = folder / "llm.toml"
    folder.mkdir(parents=True, exist_ok=True)
    path.write_text(f'[llm.prices."{model}"]\ninput_per_mtok = 2.0\noutput_per_mtok = 8.0\n')
    return path


def endpoint_env(server: ChatServer, folder: Path, **extra: str) -> dict[str, str]:
    """Environment variables that point every role at the local server."""
    return {"OPENAI_BASE_URL": server.url, "OPENAI_API_KEY": SECRET, "TASKFORGE_LLM_MODEL": "test-model",
            "TASKFORGE_LLM_CONFIG": str(write_prices(folder)), **extra}


def make_agents(server: ChatServer, folder: Path, stage: str = "test", **extra: str) -> Agents:
    """Roles pointed at the local server, with cache and slots under `folder`."""
    return Agents(AgentsConfig.load(endpoint_env(server, folder, **extra)), folder / "llm", "cycle-t", stage)


def ask(agents: Agents, prompt: str = "Rate this.", role: str = "builder"):
    """One structured call asking for a `Verdict`."""
    return agents.ask(role, "You rate things.", prompt, Verdict, purpose="test", family="swe", subject="s-1")


@pytest.fixture
def server():
    """A fresh local Chat Completions server per test."""
    with ChatServer() as running:
        yield running


def test_structured_reply_is_validated_and_accounted(server, tmp_path):
    server.queue(GOOD)
    reply = ask(make_agents(server, tmp_path))
    assert reply.ok and reply.value == Verdict(label="fine", score=3)
    (request,) = server.requests
    assert request["model"] == "test-model"
    assert request["response_format"]["type"] == "json_schema"
    assert request["response_format"]["json_schema"]["name"] == "Verdict"
    assert server.authorizations == [f"Bearer {SECRET}"]
    call = reply.call
    assert (call.status, call.requests, call.replayed, call.repairs) == ("ok", 1, 0, 0)
    assert call.tokens_in > 0 and call.tokens_out == len(GOOD) // 4 + 1
    assert call.cost_usd == pytest.approx((call.tokens_in * 2.0 + call.tokens_out * 8.0) / 1e6)


def test_unknown_price_counts_tokens_and_leaves_cost_unknown(server, tmp_path):
    server.queue(GOOD)
    reply = ask(make_agents(server, tmp_path, TASKFORGE_LLM_MODEL="unpriced-model"))
    assert reply.ok and reply.call.tokens_in > 0 and reply.call.cost_usd is None


def test_invalid_reply_is_repaired_with_the_validation_error(server, tmp_path):
    server.queue("```json\n{\"label\": \"fine\"}\n```", GOOD)
    reply = ask(make_agents(server, tmp_path))
    assert reply.ok and reply.value.score == 3
    assert (reply.call.requests, reply.call.repairs) == (2, 1)
    repair = server.requests[1]["messages"]
    assert repair[-2]["role"] == "assistant" and "label" in repair[-2]["content"]
    assert "not accepted" in repair[-1]["content"] and "score" in repair[-1]["content"]


def test_a_reply_invalid_every_time_is_a_failed_call_not_dropped(server, tmp_path):
    server.queue("no json", "still none", "{}")
    agents = make_agents(server, tmp_path)
    reply = ask(agents)
    assert reply.status == "failed" and reply.reason.startswith("invalid:")
    assert len(server.requests) == 3, "one request and two repairs (the default bound)"
    (recorded,) = agents.take_calls()
    assert recorded.status == "invalid" and recorded.requests == 3 and "schema" in recorded.error


def test_rate_limit_and_server_error_are_retried(server, tmp_path):
    server.queue(Canned(status=429, headers={"retry-after": "0"}),
                 Canned(status=503, headers={"retry-after": "0"}), GOOD)
    reply = ask(make_agents(server, tmp_path))
    assert reply.ok and reply.call.requests == 3 and len(server.requests) == 3


def test_timeout_is_retried_then_reported_as_failed(server, tmp_path):
    server.queue(Canned(content=GOOD, delay_s=3), Canned(content=GOOD, delay_s=3))
    agents = make_agents(server, tmp_path, TASKFORGE_LLM_TIMEOUT_S="0.3", TASKFORGE_LLM_MAX_RETRIES="1")
    started = time.perf_counter()
    reply = ask(agents)
    assert time.perf_counter() - started < 2.5, "the client gave up at its timeout, not the server's delay"
    assert reply.status == "failed" and "timed out after 0.3 s" in reply.reason
    assert len(server.requests) == 2 and reply.call.status == "error" and reply.call.requests == 2


def test_rerun_replays_from_cache_with_zero_requests(server, tmp_path):
    server.queue("{}", GOOD)
    first = ask(make_agents(server, tmp_path))
    assert first.ok and len(server.requests) == 2
    again = ask(make_agents(server, tmp_path))
    assert len(server.requests) == 2, "the rerun sent nothing"
    assert again.value == first.value and again.call.call_id == first.call.call_id
    assert (again.call.requests, again.call.replayed, again.call.tokens_in, again.call.cost_usd) == (0, 2, 0, 0.0)
    server.queue(GOOD)
    other_role = ask(make_agents(server, tmp_path), role="reviewer")
    assert other_role.ok and other_role.call.call_id != first.call.call_id and len(server.requests) == 3


def test_a_cut_cache_entry_is_a_miss_and_is_asked_again(server, tmp_path):
    """Cache entries are not fsynced (a redo costs one request): an entry a machine crash left empty or cut is
    read as a miss, asked again and written whole."""
    server.queue(GOOD)
    with make_agents(server, tmp_path) as agents:
        assert ask(agents).ok
    [entry] = (tmp_path / "llm" / "cache").rglob("*.json")
    whole = json.loads(entry.read_bytes())
    for cut in (b"", entry.read_bytes()[:len(entry.read_bytes()) // 2]):
        entry.write_bytes(cut)
        server.queue(GOOD)
        with make_agents(server, tmp_path) as agents:
            again = ask(agents)
        assert again.ok and (again.call.requests, again.call.replayed) == (1, 0)
        assert json.loads(entry.read_bytes()) == whole


CHILD = """
import sys
from taskforge.agents.client import Agents
from taskforge.agents.config import AgentsConfig
from pydantic import BaseModel
class Verdict(BaseModel):
    label: str
    score: int
agents = Agents(AgentsConfig.load(), sys.argv[1], "cycle-t", "child")
from concurrent.futures import ThreadPoolExecutor
print("ready", flush=True)
with ThreadPoolExecutor(4) as pool:
    replies = list(pool.map(lambda n: agents.ask("builder", "s", f"child {n}", Verdict, purpose="test",
                                                 family="swe", subject=str(n)), range(6)))
assert all(r.ok for r in replies), [r.reason for r in replies]
"""


def test_concurrency_never_exceeds_the_limit_across_threads_and_processes(tmp_path):
    with ChatServer(lambda body: Canned(content=GOOD, delay_s=0.15)) as server:
        env = endpoint_env(server, tmp_path, TASKFORGE_LLM_CONCURRENCY="3")
        child = subprocess.Popen([sys.executable, "-c", CHILD, str(tmp_path / "llm")], cwd=REPO, text=True,
                                 env={**os.environ, **env, "PYTHONPATH": str(REPO)}, stdout=subprocess.PIPE)
        assert child.stdout.readline() == "ready\n"
        stages = [Agents(AgentsConfig.load(env), tmp_path / "llm", "cycle-t", f"task-{k}") for k in range(2)]
        threads = [threading.Thread(target=ask, args=(stages[n % 2], f"parent {n}")) for n in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert child.wait(timeout=60) == 0
        calls = [c for s in stages for c in s.take_calls()]
    assert len(server.requests) == 14 and all(c.status == "ok" for c in calls) and len(calls) == 8
    assert server.max_in_flight <= 3, f"{server.max_in_flight} requests were in flight at once"
    assert server.max_in_flight >= 2, "calls did run concurrently"


def test_no_endpoint_means_every_role_is_skipped(tmp_path):
    agents = Agents(AgentsConfig.load({}), tmp_path / "llm", "cycle-t", "test")
    reply = ask(agents)
    assert reply.status == "skipped" and reply.reason == "no endpoint configured" and reply.call is None
    assert agents.take_calls() == [] and not (tmp_path / "llm").exists()
    assert ask(current_agents()).reason.startswith("no agents session open")
    keyed = Agents(AgentsConfig.load({"OPENAI_API_KEY": SECRET}), tmp_path / "llm", "c", "s")
    assert "no model configured" in ask(keyed).reason


def test_secrets_stay_out_of_cache_records_and_logs(server, tmp_path, caplog):
    server.queue(GOOD, Canned(status=401, error=f"Incorrect API key provided: {SECRET}"))
    caplog.set_level(logging.DEBUG)
    agents = make_agents(server, tmp_path)
    assert ask(agents).ok
    denied = ask(agents, "Another question.")
    assert denied.status == "failed" and "HTTP 401" in denied.reason and SECRET not in denied.reason
    records = json.dumps([c.model_dump() for c in agents.take_calls()])
    cached = b"".join(p.read_bytes() for p in (tmp_path / "llm").rglob("*") if p.is_file())
    assert server.authorizations[-1] == f"Bearer {SECRET}", "the key was sent"
    assert SECRET not in records and SECRET.encode() not in cached and SECRET not in caplog.text
    assert server.url not in records and server.url.encode() not in cached


def test_roles_are_separated(server, tmp_path):
    task = long_context_tasks(1, target_tokens=2048)[0]
    server.queue(json.dumps({"analysis": "holds", "answer_supported": True, "unambiguous": True,
                             "answer_hidden": True, "issues": [], "verdict": "accept"}))
    agents = make_agents(server, tmp_path)
    review = review_task(agents, task)
    assert review.ok and review.call.role == "reviewer"
    sent = server.requests[0]["messages"][1]["content"]
    assert "reference answer (hidden from the solver)" in sent and task.reference["answer_text"] in sent
    with pytest.raises(RoleSeparationError, match="built this task"):
        review_task(agents, task, built_by=[review.call.call_id])
    builder_call = review.call.model_copy(update={"role": "builder"})
    with pytest.raises(RoleSeparationError, match="cannot certify"):
        ensure_independent(builder_call, built_by=[])


def test_current_agents_is_the_stage_session(server, tmp_path):
    server.queue(GOOD)
    with make_agents(server, tmp_path) as agents, using(agents):
        assert ask(current_agents()).ok
    assert [c.subject for c in agents.take_calls()] == ["s-1"]


def test_configuration_precedence_and_key_hygiene(tmp_path):
    config = tmp_path / "llm.toml"
    config.write_text('[llm]\nmodel = "file-default"\nbase_url = "http://file"\n'
                      '[llm.roles.reviewer]\nmodel = "file-reviewer"\napi_key_env = "REVIEW_KEY"\n')
    env = {"TASKFORGE_LLM_CONFIG": str(config), "TASKFORGE_LLM_MODEL": "env-default",
           "TASKFORGE_JUDGE_MODEL": "env-judge", "REVIEW_KEY": "k-review", "OPENAI_API_KEY": "k-all"}
    roles = AgentsConfig.load(env).roles
    assert roles["judge"].model == "env-judge" and roles["reviewer"].model == "file-reviewer"
    assert roles["builder"].model == "env-default" and roles["builder"].base_url == "http://file"
    assert roles["reviewer"].api_key == "k-review" and roles["builder"].api_key == "k-all"
    assert "k-review" not in repr(roles["reviewer"]) and "k-all" not in json.dumps(AgentsConfig.load(env).fingerprint())
    config.write_text('[llm]\napi_key = "sk-in-file"\n')
    with pytest.raises(ConfigError, match="keys do not belong in the file"):
        AgentsConfig.load(env)
