"""Trace readers: native and OpenAI-messages formats, detection by content, quarantine of bad files."""

from __future__ import annotations

import json
import shutil

from conftest import SAMPLES
from diagnosis.readers import discover, read_traces
from factories import episode
from schemas import Episode, Quarantined
from store.batches import write_batch


def _read(paths):
    items = list(read_traces(discover(paths)))
    return [i for i in items if isinstance(i, Episode)], [i for i in items if isinstance(i, Quarantined)]


def test_shipped_samples_read_without_errors():
    episodes, quarantined = _read([SAMPLES / "traces"])
    assert quarantined == []
    by_id = {e.episode_id: e for e in episodes}
    assert len(episodes) == 14
    assert by_id["research-000"].outcome.success is False
    assert by_id["research-005"].outcome.success is True
    assert by_id["research-008"].outcome.failure_origin == "infrastructure"
    compacted = by_id["litsearch-001"]
    assert [(s.start_step, s.end_step) for s in compacted.segments] == [(0, 5), (6, 11)]
    assert {s.segment for s in compacted.steps[6:]} == {1}
    assert all(not e.source_file.startswith("/") for e in episodes)


def test_openai_messages_keep_tool_calls_and_tokens(tmp_path):
    line = {"id": "x1", "reward": 0.0, "prompt_ids": [1, 2, 3], "response_ids": [4], "loss_mask": [1],
            "messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]},
                         {"role": "assistant", "content": None, "tool_calls": [
                             {"id": "c", "type": "function", "function": {"name": "f", "arguments": {"a": 1}}}]},
                         {"role": "tool", "tool_call_id": "c", "content": "ok"}]}
    (tmp_path / "t.jsonl").write_text(json.dumps(line) + "\n")
    (ep,), _ = _read([tmp_path / "t.jsonl"])
    assert ep.steps[0].content == "hi"
    assert ep.steps[1].tool_calls[0].name == "f" and json.loads(ep.steps[1].tool_calls[0].arguments) == {"a": 1}
    assert ep.steps[2].tool_call_id == "c"
    assert ep.outcome.success is False and ep.outcome.score == 0.0
    assert ep.tokens[0].prompt_ids == [1, 2, 3]


def test_native_parquet_and_detection_by_content(tmp_path):
    write_batch(tmp_path / "episodes.bin", [episode("ep-a", repeats=3), episode("ep-b", success=True)], Episode)
    shutil.copy(SAMPLES / "traces" / "research_agent.openai.jsonl", tmp_path / "misnamed.txt")
    episodes, quarantined = _read([tmp_path])
    assert quarantined == []
    assert {e.source_format for e in episodes} == {"native", "openai_messages"}
    assert {"ep-a", "ep-b"} <= {e.episode_id for e in episodes}


def test_truncated_and_unknown_files_are_quarantined_and_the_rest_is_read(tmp_path):
    good = (SAMPLES / "traces" / "research_agent.openai.jsonl").read_text().splitlines()
    (tmp_path / "truncated.jsonl").write_text("\n".join(good[:3]) + "\n" + good[3][: len(good[3]) // 2])
    (tmp_path / "unknown.json").write_text(json.dumps({"hello": "world"}))
    (tmp_path / "no_outcome.jsonl").write_text(json.dumps({"messages": [{"role": "user", "content": "x"}]}) + "\n")
    (tmp_path / "corrupt.parquet").write_bytes(b"PAR1" + b"\x00" * 40)
    episodes, quarantined = _read([tmp_path])
    assert len(episodes) == 3
    reasons = {q.source: q.reason for q in quarantined}
    assert any(k.endswith("truncated.jsonl:4") and "not valid JSON" in v for k, v in reasons.items())
    assert any(k.endswith("unknown.json") and "unknown trace format" in v for k, v in reasons.items())
    assert any(k.endswith("no_outcome.jsonl:1") and "no outcome" in v for k, v in reasons.items())
    assert any(k.endswith("corrupt.parquet") and "unreadable Parquet" in v for k, v in reasons.items())
    assert all(not q.source.startswith("/") and str(tmp_path) not in q.reason for q in quarantined)
