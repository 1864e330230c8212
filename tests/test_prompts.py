"""Every step's prompt and schema as rendered by `bench/prompts.py`, against its golden file; and every step
reaching `ok` against replies written as real models write them, in every response-format mode."""

from __future__ import annotations

import importlib.util
from collections import Counter

import pytest

from conftest import REPO
from llm_server import ChatServer, RealModel
from model_answers import ANSWERS

_spec = importlib.util.spec_from_file_location("bench_prompts", REPO / "bench" / "prompts.py")
prompts = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(prompts)
REFRESH = ".venv/bin/python bench/prompts.py --golden"


def test_every_rendered_prompt_and_schema_matches_its_golden_file(tmp_path):
    done = prompts.render_all(tmp_path / "out")
    rendered = {p.name: p.read_text(encoding="utf-8") for p in (tmp_path / "out").iterdir()}
    golden = {p.name: p.read_text(encoding="utf-8") for p in prompts.GOLDEN.iterdir()}
    assert sorted(rendered) == sorted(golden), f"steps rendered differ from the golden files (refresh: {REFRESH})"
    changed = [name for name in rendered if rendered[name] != golden[name]]
    assert changed == [], f"prompts changed: {changed}; if that is meant, run `{REFRESH}` and review the diff"
    assert {name: reply.status for name, (reply, _) in done.items()} == dict.fromkeys(done, "ok")
    views = {name: reply.view for name, (reply, _) in done.items() if name.endswith("-view")}
    assert all(views.values()) and len(views) == len(prompts.VIEW_WINDOWS), "each view rendering sent its view"
    schema_order = golden["review-workflow.md"]
    assert schema_order.index('"analysis"') < schema_order.index('"values_determined"') \
        < schema_order.index('"issues"') < schema_order.index('"verdict"'), "fields in declared order"


@pytest.mark.parametrize("mode, style", [("json_schema", "reasoning"), ("json_object", "numbers"),
                                         ("none", "think"), ("json_object", "plain")])
def test_every_step_reaches_ok_against_replies_as_real_models_write_them(tmp_path, mode, style):
    samples = prompts.load_samples()
    with ChatServer(RealModel(ANSWERS, styles=(style,), invalid_first=True)) as server, \
            prompts.agents_for(server, tmp_path, mode) as agents:
        done = prompts.run_steps(server, agents, samples, prompts.STEPS)
        calls = agents.take_calls()
    assert {name: reply.status for name, (reply, _) in done.items()} == dict.fromkeys(done, "ok"), \
        {name: reply.reason for name, (reply, _) in done.items() if not reply.ok}
    assert calls and all(c.status == "ok" and c.repairs == 1 for c in calls), "each first reply was repaired"
    sent = Counter(str(r.get("response_format", {}).get("type")) for r in server.requests)
    assert set(sent) == {"json_schema" if mode == "json_schema" else "json_object" if mode == "json_object"
                         else "None"}
