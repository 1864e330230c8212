"""Trace readers: native and OpenAI-messages formats, detection by content, quarantine of bad files."""

from __future__ import annotations

import json
import shutil
import zipfile

import pytest

from conftest import REPO, SAMPLES, SHARED
from taskforge.diagnosis.readers import discover, read_traces
from taskforge.diagnosis.readers.run_outcome import run_outcome
from factories import episode
from taskforge.schemas import Episode, Quarantined, Segment
from taskforge.store.batches import write_batch


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


def test_a_file_read_keeps_none_of_its_content_and_reads_the_same_again():
    sources = discover([SAMPLES / "traces"])
    first = [e.model_dump_json() for e in read_traces(sources) if isinstance(e, Episode)]
    assert not any({"_head", "parsed_head", "whole_document"} & vars(source).keys() for source in sources)
    assert [e.model_dump_json() for e in read_traces(sources) if isinstance(e, Episode)] == first


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


FIXTURES = SHARED / "fixtures" / "traces"
OWN = REPO / "tests" / "fixtures" / "traces"
INSPECT_VALUE = {"C": 1.0, "I": 0.0}


def _by_file(episodes):
    grouped: dict[str, list[Episode]] = {}
    for ep in episodes:
        grouped.setdefault(ep.source_file.rsplit("/", 1)[-1], []).append(ep)
    return grouped


def _raw_inspect_samples(path):
    """Samples of an Inspect log read straight from its JSON (zip members or the `.json` document)."""
    if path.suffix == ".eval":
        with zipfile.ZipFile(path) as archive:
            return [json.loads(archive.read(n)) for n in archive.namelist() if n.startswith("samples/")]
    return json.loads(path.read_text())["samples"]


def test_every_shared_fixture_reads_into_episodes_that_match_the_file():
    episodes, quarantined = _read([FIXTURES])
    assert sorted(q.source.rsplit("/", 1)[-1] for q in quarantined) == ["LICENSE"] * 3
    by_file = _by_file(episodes)
    traces = sorted(p for p in FIXTURES.rglob("*") if p.is_file() and p.name != "LICENSE")
    assert sorted(by_file) == sorted(p.name for p in traces)
    for path in traces:
        read = by_file[path.name]
        if path.parent.name == "inspect":
            raw = _raw_inspect_samples(path)
            assert sorted((len(s["messages"]), str(s["id"]), s["epoch"]) for s in raw) == sorted(
                (len(e.steps), e.task_id.rsplit("/", 1)[-1], e.metadata["epoch"]) for e in read), path.name
            for sample in raw:
                (ep,) = [e for e in read if e.episode_id.endswith(f"/{sample['id']}/{sample['epoch']}")]
                scores = list((sample.get("scores") or {}).values())
                if scores:
                    value = INSPECT_VALUE.get(scores[0]["value"], scores[0]["value"])
                    assert ep.outcome.graded and ep.outcome.score == value and ep.outcome.success == (value >= 1.0)
                else:
                    assert not ep.outcome.graded and not ep.outcome.success
                assert [bool(m.get("tool_calls")) for m in sample["messages"]] == [bool(s.tool_calls) for s in ep.steps]
                assert all("attachment://" not in s.content for s in ep.steps), "attachments are resolved"
                assert sum(1 for m in sample["messages"] if m.get("error")) == sum(s.is_error for s in ep.steps)
            continue
        (ep,) = read
        data = json.loads(path.read_text())
        messages = data.get("history") if isinstance(data, dict) else data
        assert len(ep.steps) == len(messages) and ep.family == "swe", path.name
        assert [s.index for s in ep.steps] == list(range(len(messages)))
        assert ep.segments == [Segment(index=0, start_step=0, end_step=len(messages) - 1)]
        if path.parent.name == "swe-agent":
            info = data["info"]
            assert info["exit_status"] == "submitted" and info["submission"].strip()
            assert ep.outcome.graded is False and ep.outcome.success is False and ep.outcome.failure_origin == "none"
            actions = sum(1 for m in messages if m["role"] == "assistant" and (m.get("action") or m.get("tool_calls")))
            assert sum(len(s.tool_calls) for s in ep.steps) == actions == len(data["trajectory"])
        else:
            submission = messages[-1]["content"]
            assert "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT" in messages[-2]["content"]
            assert ep.outcome.graded == (not submission.strip()), "a submitted patch awaits evaluation"
            assert ep.outcome.failure_origin == ("none" if submission.strip() else "model")
            nonzero = sum(1 for m in messages if m["role"] == "user" and "<returncode>" in m["content"]
                          and "<returncode>0</returncode>" not in m["content"])
            assert sum(s.is_error for s in ep.steps) == nonzero


def test_openhands_event_list_and_evaluation_output():
    episodes, quarantined = _read([OWN / "openhands"])
    assert quarantined == []
    events = json.loads((OWN / "openhands" / "astropy__astropy-12907.events.json").read_text())
    bookkeeping = [e for e in events if e.get("observation") == "agent_state_changed" or e.get("action") == "recall"]
    condensations = [e for e in events if e.get("action") == "condensation"]
    (stream,) = [e for e in episodes if e.source_file.endswith(".events.json")]
    assert len(stream.steps) == len(events) - len(bookkeeping) - len(condensations) == 11
    assert [(s.start_step, s.end_step) for s in stream.segments] == [(0, 5), (6, 10)]
    assert stream.segments[1].summary == condensations[0]["args"]["summary"]
    assert [c.name for s in stream.steps for c in s.tool_calls] == [
        "execute_bash", "execute_bash", "str_replace_editor", "execute_bash", "finish"]
    assert [s.error for s in stream.steps if s.is_error] == ["exit code 4"]
    assert stream.outcome.graded is False, "a bare event stream carries no verdict"
    lines = [json.loads(line) for line in (OWN / "openhands" / "output.swebench_eval.jsonl").read_text().splitlines()]
    by_task = {e.task_id: e for e in episodes if e.source_file.endswith(".jsonl")}
    resolved = by_task[lines[0]["instance_id"]]
    assert lines[0]["report"]["resolved"] and resolved.outcome.success and resolved.outcome.score == 1.0
    broken = by_task[lines[1]["instance_id"]]
    assert not lines[1]["report"]["resolved"] and lines[1]["error"]
    assert broken.outcome.failure_origin == "infrastructure" and "container exited" in broken.outcome.detail
    assert broken.steps[-1].is_error and broken.steps[-1].error.startswith("error: RuntimeError")


def test_mini_swe_agent_v2_trajectory():
    path = OWN / "mini-swe-agent" / "django__django-11099.traj.json"
    data = json.loads(path.read_text())
    assert data["trajectory_format"] == "mini-swe-agent-1.1"
    (ep,), _ = _read([path])
    assert ep.source_format == "mini_swe_agent" and len(ep.steps) == len(data["messages"])
    assert ep.outcome.success is False and ep.outcome.graded and ep.outcome.failure_origin == "model"
    assert data["info"]["exit_status"] in ep.outcome.detail
    failing = [m for m in data["messages"] if m["role"] == "tool" and m["extra"]["returncode"] != 0]
    assert [s.error for s in ep.steps if s.is_error] == [f"returncode {m['extra']['returncode']}" for m in failing]
    assert ep.steps[-1].role == "user" and ep.steps[-1].content == "LimitsExceeded"


def test_inspect_compaction_splits_segments_and_sample_errors_are_infrastructure(tmp_path):
    from inspect_ai.event import CompactionEvent
    from inspect_ai.log import EvalError, EvalSampleLimit, read_eval_log, write_eval_log

    log = read_eval_log(str(FIXTURES / "inspect" / "log_message_deduplication.eval"))
    sample = log.samples[0]
    model_calls = [i for i, e in enumerate(sample.events) if e.event == "model"]
    events = list(sample.events)
    events.insert(model_calls[3], CompactionEvent(type="summary", tokens_before=9000, tokens_after=1200))
    compacted = sample.model_copy(update={"events": events})
    broken = sample.model_copy(update={"id": "broken", "scores": None,
                                       "error": EvalError(message="Sandbox died", traceback="", traceback_ansi="")})
    slow = sample.model_copy(update={"id": "slow", "limit": EvalSampleLimit(type="time", limit=600)})
    chatty = sample.model_copy(update={"id": "chatty", "limit": EvalSampleLimit(type="message", limit=12)})
    write_eval_log(log.model_copy(update={"samples": [compacted, broken, slow, chatty]}), str(tmp_path / "run.eval"))
    episodes, quarantined = _read([tmp_path / "run.eval"])
    assert quarantined == []
    by_sample = {e.task_id.rsplit("/", 1)[-1]: e for e in episodes}
    outputs_before = [sample.events[i].output.message.id for i in model_calls[:3]]
    first_unseen = max(i for i, m in enumerate(sample.messages) if m.id in outputs_before) + 1
    assert [(s.start_step, s.end_step) for s in by_sample["0"].segments] == [
        (0, first_unseen - 1), (first_unseen, len(sample.messages) - 1)]
    assert by_sample["broken"].outcome.failure_origin == "infrastructure"
    assert by_sample["broken"].outcome.detail == "sample error: Sandbox died"
    assert by_sample["slow"].outcome.failure_origin == "infrastructure" and "timeout" in by_sample["slow"].outcome.detail
    assert by_sample["chatty"].outcome.failure_origin == "model" and "message limit" in by_sample["chatty"].outcome.detail


def test_formats_are_detected_by_content_not_name(tmp_path):
    picks = [FIXTURES / "inspect" / "log_formats.eval", FIXTURES / "inspect" / "log_tool_call_error.json",
             FIXTURES / "swe-agent" / "swe-agent__test-repo-i1.traj", FIXTURES / "mini-swe-agent" / "local.traj.json",
             OWN / "mini-swe-agent" / "django__django-11099.traj.json",
             OWN / "openhands" / "astropy__astropy-12907.events.json", OWN / "openhands" / "output.swebench_eval.jsonl"]
    for number, path in enumerate(picks):
        shutil.copy(path, tmp_path / f"trace-{number}.txt")
    episodes, quarantined = _read([tmp_path])
    assert quarantined == []
    formats = {e.source_file.rsplit("/", 1)[-1]: e.source_format for e in episodes}
    assert [formats[f"trace-{n}.txt"] for n in range(len(picks))] == [
        "inspect", "inspect", "swe_agent", "mini_swe_agent", "mini_swe_agent", "openhands", "openhands"]


def test_corrupt_files_of_each_format_are_quarantined_with_the_reason(tmp_path):
    for path in [FIXTURES / "swe-agent" / "swe-agent__test-repo-i1.traj", FIXTURES / "inspect" / "log_formats.eval",
                 OWN / "openhands" / "astropy__astropy-12907.events.json"]:
        raw = path.read_bytes()
        (tmp_path / path.name).write_bytes(raw[: len(raw) // 2])
    (tmp_path / "notes.md").write_text("# not a trace\n")
    shutil.copy(FIXTURES / "mini-swe-agent" / "local.traj.json", tmp_path / "fine.traj.json")
    episodes, quarantined = _read([tmp_path])
    assert [e.source_format for e in episodes] == ["mini_swe_agent"]
    reasons = {q.source.rsplit("/", 1)[-1]: q.reason for q in quarantined}
    assert "not valid JSON" in reasons["swe-agent__test-repo-i1.traj"]
    assert "unreadable Inspect log" in reasons["log_formats.eval"]
    assert "not valid JSON" in reasons["astropy__astropy-12907.events.json"]
    assert "unknown trace format" in reasons["notes.md"]
    assert all(str(tmp_path) not in q.reason for q in quarantined)


@pytest.mark.parametrize("status, submission, resolved, expected", [
    ("submitted", "diff --git a/x b/x", None, (False, False, "none")),
    ("submitted (exit_cost)", "diff --git a/x b/x", None, (False, False, "none")),
    ("submitted", "diff --git a/x b/x", True, (True, True, "none")),
    ("submitted", "diff --git a/x b/x", False, (False, True, "model")),
    ("exit_cost", None, None, (False, True, "model")),
    ("exit_format", "", None, (False, True, "model")),
    ("exit_context", None, None, (False, True, "model")),
    ("exit_error", None, None, (False, True, "infrastructure")),
    ("exit_environment_error", None, None, (False, True, "infrastructure")),
    ("exit_command_timeout", None, None, (False, True, "infrastructure")),
    ("LimitsExceeded", "", None, (False, True, "model")),
    ("RuntimeError", "", None, (False, True, "infrastructure")),
])
def test_exit_status_and_submission_decide_the_outcome(status, submission, resolved, expected):
    outcome = run_outcome(status, submission, resolved)
    assert (outcome.success, outcome.graded, outcome.failure_origin) == expected
    assert status in outcome.detail
    assert ("timeout" in outcome.detail) == (status == "exit_command_timeout")
