"""Every record model survives pydantic → Arrow → Parquet → pydantic unchanged."""

from __future__ import annotations

import pyarrow.parquet as pq
import pytest

from factories import episode, long_context_tasks
from taskforge.schemas import (SCHEMA_VERSION, Diagnosis, Episode, FailureMode, Gap, Quarantined, Resource, Task, TokenRecord,
                     ValidationResult, arrow_schema, from_table, to_table)
from taskforge.store.batches import read_batch, write_batch


def _records():
    ep = episode("ep-rt", repeats=3)
    ep = ep.model_copy(update={"tokens": [TokenRecord(tokenizer="qwen", prompt_ids=[1, 2], response_ids=[3],
                                                      loss_mask=[1], rollout_logprobs=[-0.5])],
                               "metadata": {"nested": {"a": [1, {"b": None}]}, "k": "v"}})
    task = long_context_tasks(1)[0]
    task = task.model_copy(update={"validation": [ValidationResult(check="noop", passed=True, score=0.0,
                                                                   detail={"scores": {"<empty>": 0.0}})]})
    return [
        (Episode, ep),
        (Task, task),
        (Diagnosis, Diagnosis(diagnosis_id="dx-1", episode_id="ep-rt", task_id="t", family="workflow",
                              failure_mode=FailureMode.LOST_OBJECTIVE, capability="objective_tracking",
                              evidence_steps=[3, 5], signals={"x": 1.5}, confidence=0.7)),
        (Gap, Gap(gap_id="gap-1", cycle_id="c", family="workflow", capability="c", failure_mode="m", count=2,
                  share=0.5, severity=0.7, priority=0.35, example_episodes=["a", "b"])),
        (Quarantined, Quarantined(item_id="q-1", stage="read", source="x.jsonl:3", error_type="InputError",
                                  reason="x.jsonl:3: not valid JSON")),
        (Resource, Resource(resource_id="r", kind="repository", uri="https://example.org/r.git", revision="abc",
                            metadata={"stars": 3})),
    ]


@pytest.mark.parametrize("model,record", _records(), ids=lambda v: getattr(v, "__name__", ""))
def test_round_trip_through_parquet(tmp_path, model, record):
    path = write_batch(tmp_path / "r.parquet", [record], model)
    assert read_batch(path, model) == [record]
    table = pq.read_table(path)
    assert table.schema.metadata[b"taskforge.schema_version"].decode() == SCHEMA_VERSION
    assert table.schema.equals(arrow_schema(model), check_metadata=False)


def test_json_columns_are_strings_so_every_shard_keeps_one_schema():
    schema = arrow_schema(Task)
    for name in ("payload", "reference", "grader", "environment"):
        assert str(schema.field(name).type) == "string"
    assert str(schema.field("prompt").type).startswith("list<item: struct<role")


def test_from_table_rebuilds_many_records():
    records = [episode(f"ep-{i}", repeats=i) for i in range(5)]
    assert from_table(to_table(records, Episode), Episode) == records


def test_invalid_record_is_refused():
    with pytest.raises(ValueError):
        Gap(gap_id="g", cycle_id="c", family="f", capability="c", failure_mode="m", count="many",
            share=0.1, severity=0.1, priority=0.1)


@pytest.mark.parametrize("error,reason", [
    (FileNotFoundError(2, "No such file or directory", "/home/someone/uploads/x.csv"),
     "[Errno 2] No such file or directory: 'x.csv'"),
    (ValueError("/tmp/run-1/traces/zz.jsonl: not valid JSON at line 3"), "zz.jsonl: not valid JSON at line 3"),
    (RuntimeError("clone of https://bot:ghp_s3cret@github.com/o/r.git failed"),
     "clone of https://github.com/o/r.git failed"),
    (ValueError("tests/test_ops.py::test_div 1/2 failed and/or https://host.org/a/b.json"),
     "tests/test_ops.py::test_div 1/2 failed and/or https://host.org/a/b.json"),
])
def test_quarantine_reasons_carry_no_host_paths_or_credentials(error, reason):
    assert Quarantined.from_error(error, "build", "source").reason == reason
