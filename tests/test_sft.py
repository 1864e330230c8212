"""SFT view: the selection policy (successes; unresolved episodes with a result, substantive interaction and a
clean leakage audit; no infrastructure failures or bare timeouts; zero rewards regraded once), rows that keep
every segment of a compacted episode with tool calls and token records, and `taskforge sft` recording every
episode in the catalog and turning builder runs into demonstrations."""

from __future__ import annotations

import json

import datasets
import pytest

from taskforge.builders.literature.kinds import KINDS
from taskforge.diagnosis.readers import SourceFile, read_traces
from factories import land_validated, literature_tasks, long_context_tasks, paper_collection, scripted
from taskforge.flows.cli import main
from taskforge.store.catalog import Catalog
from taskforge.store.layout import DataDir
from taskforge.store.sft_view import sft_rows, write_sft
from taskforge.validators.demonstrations import select

SEARCHES = [("call", "search", {"query": "graph coloring"}, "3 results"),
            ("call", "read", {"paper_id": "p-1", "section": "abstract"}, "an abstract")]


@pytest.fixture(scope="module")
def timeline():
    return long_context_tasks(1, target_tokens=4096)[0]


def test_selection_policy(timeline, tmp_path):
    answer = f"Answer: {timeline.reference['answer_text']}"
    cases = {
        "solved": (scripted(("user", "Find it."), ("say", "Answer: 7"), success=True), None),
        "broken": (scripted(("user", "Find it."), *SEARCHES, ("say", "Answer: 7"), origin="infrastructure",
                            detail="environment error: container exited"), None),
        "timed out": (scripted(("user", "Find it."), *SEARCHES, detail="time limit reached (timeout)"), None),
        "worked": (scripted(("user", "Find it."), *SEARCHES, ("say", "Answer: 7")), None),
        "shallow": (scripted(("user", "Find it."), SEARCHES[0], ("say", "Answer: 7")), None),
        "peeked": (scripted(("user", "Find it."), *SEARCHES, ("call", "bash", {"cmd": "cat /work/hidden_tests.py"},
                                                               "def test(): ..."), ("say", "Answer: 7")), None),
        "regraded right": (scripted(("user", "Order the events."), ("say", answer)), timeline),
        "regraded wrong": (scripted(("user", "Order the events."), *SEARCHES, ("say", "Answer: A")), timeline),
        "told": (scripted(("user", f"Order the events. Hint: {timeline.reference['answer_text']}"), *SEARCHES,
                          ("say", answer)), timeline),
    }
    decided = {name: select(episode, task, tmp_path) for name, (episode, task) in cases.items()}
    assert {name: (d.selected, d.reason.split(":")[0]) for name, d in decided.items()} == {
        "solved": (True, "success"), "broken": (False, "infrastructure failure"),
        "timed out": (False, "bare timeout"), "worked": (True, "unresolved with a result"),
        "shallow": (False, "unresolved"), "peeked": (False, "unresolved"),
        "regraded right": (True, "success on regrade"), "regraded wrong": (True, "unresolved with a result"),
        "told": (False, "leakage")}
    assert "fewer than 2 answered tool calls" in decided["shallow"].reason
    assert "reaches for answer material ('hidden_tests')" in decided["peeked"].reason
    assert decided["worked"].regrade == ("not regradable: task 'task-ep-scripted' is not a taskforge task "
                                         "in this catalog")
    assert (decided["regraded right"].score, decided["regraded right"].regrade) == (1.0, "regraded: 0.0 -> 1.0")
    assert decided["regraded wrong"].regraded_score == 0.0 and decided["solved"].regrade == "not regraded"
    again = select(cases["regraded right"][0], timeline, tmp_path, earlier_regrade=(0.5, "regraded: 0.0 -> 0.5"))
    assert again.score == 0.5, "an episode regraded before keeps that regrade"


def _compacted_trace(path, task_id: str = "lit-task-9") -> None:
    """One OpenAI-messages episode in two context windows, with token-level fields."""
    first = [{"role": "system", "content": "You are a research agent."}, {"role": "user", "content": "Find papers."},
             {"role": "assistant", "content": "", "tool_calls": [
                 {"id": "c1", "type": "function", "function": {"name": "search", "arguments": {"query": "x"}}}]},
             {"role": "tool", "tool_call_id": "c1", "content": "p-1, p-2"}]
    second = [{"role": "assistant", "content": "", "tool_calls": [
                  {"id": "c2", "type": "function", "function": {"name": "read", "arguments": '{"paper_id": "p-1"}'}}]},
              {"role": "tool", "tool_call_id": "c2", "content": "abstract of p-1"},
              {"role": "assistant", "content": "Answer: p-1"}]
    record = {"id": "ep-compacted", "task_id": task_id, "family": "literature", "score": 0.5, "success": False,
              "segments": [first, second], "tokenizer": "Qwen/Qwen3.6", "prompt_ids": [1, 2, 3],
              "response_ids": [4, 5], "loss_mask": [1, 0], "rollout_logprobs": [-0.5, -1.25]}
    path.write_text(json.dumps(record) + "\n")


def test_rows_keep_every_segment_tool_calls_and_token_records(tmp_path):
    _compacted_trace(tmp_path / "trace.jsonl")
    (episode,) = read_traces([SourceFile(path=tmp_path / "trace.jsonl", name="trace.jsonl")])
    episode.segments[1].summary = "Searched for x; p-1 looked relevant."
    rows = sft_rows(episode, None, "trace", 0.5, False, "unresolved with a result")
    (path,) = write_sft(rows, tmp_path / "out")
    loaded = datasets.load_dataset("parquet", data_files=str(path), split="train", cache_dir=str(tmp_path / "hf"))
    first, second = loaded
    assert [(r["episode_id"], r["segment_index"], r["segment_count"], r["start_step"], r["end_step"]) for r in loaded] \
        == [("ep-compacted", 0, 2, 0, 3), ("ep-compacted", 1, 2, 4, 6)]
    assert [(m["role"], m["loss"]) for m in second["messages"]] == [
        ("system", False), ("user", False), ("user", False), ("assistant", True), ("tool", False), ("assistant", True)]
    assert second["messages"][2]["content"].endswith("p-1 looked relevant.")
    call = first["messages"][2]["tool_calls"][0]
    assert call["function"] == {"name": "search", "arguments": '{"query": "x"}'} and call["type"] == "function"
    assert json.loads(first["tools"])[0]["function"]["name"] == "read" and first["tools_source"] == "calls"
    assert first["tokens"] == [{"tokenizer": "Qwen/Qwen3.6", "prompt_ids": [1, 2, 3], "response_ids": [4, 5],
                                "loss_mask": [1, 0], "rollout_logprobs": [-0.5, -1.25]}]
    assert second["tokens"] == []


@pytest.mark.usefixtures("prefect_server")
def test_sft_command_records_every_episode_regrades_once_and_adds_builder_runs(capsys, tmp_path, monkeypatch):
    data = DataDir(tmp_path / "data")
    source = paper_collection(tmp_path / "papers.jsonl", count=200, seed=3)
    tasks = land_validated(data, literature_tasks(source, data.root, list(KINDS)))
    finding = next(t for t in tasks if t.kind == "find_papers")
    traces = tmp_path / "traces.jsonl"
    _compacted_trace(traces)
    solved_late = {"id": "ep-late", "task_id": finding.task_id, "family": "literature", "score": 0.0,
                   "success": False, "messages": [
                       {"role": "user", "content": finding.prompt[-1].content},
                       {"role": "assistant", "content": f"Answer: {finding.reference['answer_text']}"}]}
    broken = {"id": "ep-broken", "task_id": "x", "score": 0.0, "success": False, "failure_origin": "infrastructure",
              "messages": [{"role": "user", "content": "Go."}, {"role": "assistant", "content": "..."}]}
    with traces.open("a") as handle:
        handle.write(json.dumps(solved_late) + "\n" + json.dumps(broken) + "\n" + '{"messages": [\n')
    out = tmp_path / "sft"
    argv = ["sft", str(traces), "--out", str(out), "--data-dir", str(data.root), "--json"]
    assert main([*argv, "--builder-runs"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert (summary["episodes"], summary["selected"], summary["regraded"], summary["quarantined"]) == (
        3 + len(tasks), 2 + len(tasks), 1, 1)
    with Catalog(data.catalog, read_only=True) as catalog:
        recorded = {r["episode_id"]: r for r in catalog.query("SELECT * FROM sft_examples")}
    assert recorded["ep-late"]["reason"] == "success on regrade" and recorded["ep-late"]["regraded_score"] == 1.0
    assert recorded["ep-broken"]["reason"].startswith("infrastructure failure")
    assert not recorded["ep-broken"]["selected"]
    assert recorded["ep-compacted"]["regrade"] == "not regraded"
    builder = [r for r in recorded.values() if r["source"] == "builder"]
    assert len(builder) == len(tasks) and all(r["selected"] and r["score"] == 1.0 for r in builder)
    rows = datasets.load_dataset("parquet", data_files=str(out / "data" / "*.parquet"), split="train",
                                 cache_dir=str(tmp_path / "hf"))
    demo = next(r for r in rows if r["episode_id"] == f"builder-{finding.task_id}")
    calls = [m for m in demo["messages"] if m["tool_calls"]]
    assert calls and all(m["loss"] for m in calls) and demo["tools_source"] == "task"
    assert json.loads(demo["messages"][3]["content"])["results"], "tool results are the environment's real output"

    def no_second_grading(*_):
        raise AssertionError("an episode was regraded twice")

    monkeypatch.setattr("taskforge.validators.demonstrations.score_task", no_second_grading)
    assert main(argv) == 0
    assert json.loads(capsys.readouterr().out)["by_reason"]["success on regrade"] == 1
