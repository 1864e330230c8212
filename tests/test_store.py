"""Shards, manifest, catalog and landing: atomic, deterministic, idempotent."""

from __future__ import annotations

import datasets
import pyarrow.parquet as pq

from factories import episode, long_context_tasks
from taskforge.schemas import Episode, Task
from taskforge.store.batches import (ROWS_PER_GROUP, iter_batch, iter_record_batches, read_batch, task_batch_name,
                                     without_batch_suffix, write_batch)
from taskforge.store.catalog import Catalog
from taskforge.store.landing import land
from taskforge.store.layout import SNAPSHOT_FOLDER, DataDir
from taskforge.store.manifest import verify_manifest
from taskforge.store.shards import ShardWriter
from taskforge.validators.runner import validate


def _decided(count=3):
    return [validate(t) for t in long_context_tasks(count)]


def test_shard_names_are_deterministic_and_bounded(tmp_path):
    tasks = _decided(3)
    first = ShardWriter(tmp_path / "a", max_rows=2).write("long_context", tasks)
    second = ShardWriter(tmp_path / "b", max_rows=2).write("long_context", list(reversed(tasks)))
    assert [s.path for s, _ in first] == [s.path for s, _ in second]
    assert [s.sha256 for s, _ in first] == [s.sha256 for s, _ in second]
    assert [s.rows for s, _ in first] == [2, 1]
    assert not list((tmp_path / "a").rglob("*.tmp")), "temporary files must not remain"


def test_landing_twice_adds_nothing(tmp_path):
    tasks = _decided(3)
    rejected = tasks[0].model_copy(update={"task_id": "long_context-rejected", "status": "rejected",
                                           "reasons": ["leakage: planted"]})
    with Catalog(tmp_path / "c.duckdb") as catalog:
        first = land(tasks + [rejected], catalog, tmp_path / "shards", "cycle-1")
        second = land(tasks + [rejected], catalog, tmp_path / "shards", "cycle-1")
        assert (first.accepted, first.rejected) == (3, 1)
        assert (second.accepted, second.rejected, second.already_known) == (0, 0, 4)
        counts = catalog.query("SELECT status, count(*) AS n FROM tasks GROUP BY status ORDER BY status")
        assert counts == [{"status": "accepted", "n": 3}, {"status": "rejected", "n": 1}]
        assert catalog.query("SELECT count(*) AS n FROM validations")[0]["n"] == sum(len(t.validation) for t in tasks + [rejected])
        shards = catalog.all_shards()
    files = sorted((tmp_path / "shards").rglob("*.parquet"))
    assert len(files) == len(shards) == 1
    landed = read_batch(files[0], Task)
    assert sorted(t.task_id for t in landed) == sorted(t.task_id for t in tasks)
    assert verify_manifest(tmp_path / "shards") == []


def test_manifest_detects_a_changed_shard(tmp_path):
    with Catalog(tmp_path / "c.duckdb") as catalog:
        land(_decided(1), catalog, tmp_path / "shards", "cycle-1")
    shard = next((tmp_path / "shards").rglob("*.parquet"))
    shard.write_bytes(shard.read_bytes() + b"x")
    assert "sha256 differs" in verify_manifest(tmp_path / "shards")[0]


def test_shards_load_with_datasets(tmp_path):
    with Catalog(tmp_path / "c.duckdb") as catalog:
        land(_decided(2), catalog, tmp_path / "shards", "cycle-1")
    files = [str(p) for p in (tmp_path / "shards").rglob("*.parquet")]
    loaded = datasets.load_dataset("parquet", data_files=files, split="train", cache_dir=str(tmp_path / "hf"))
    assert loaded.num_rows == 2
    assert loaded[0]["prompt"][1]["role"] == "user"
    assert pq.read_schema(files[0]).field("payload").type == "string"


def test_write_batch_streams_a_generator_in_row_groups(tmp_path):
    produced = []

    def episodes():
        for n in range(ROWS_PER_GROUP * 2 + 3):
            produced.append(n)
            yield episode(f"ep-{n}")

    path = write_batch(tmp_path / "episodes.parquet", episodes(), Episode)
    assert pq.ParquetFile(path).metadata.num_row_groups == 3
    assert [e.episode_id for e in iter_batch(path, Episode)] == [f"ep-{n}" for n in range(len(produced))]
    empty = write_batch(tmp_path / "empty.parquet", iter(()), Episode)
    assert pq.ParquetFile(empty).metadata.num_rows == 0


def test_task_batch_files_are_arrow_ipc_and_read_like_parquet_ones(tmp_path):
    tasks = _decided(3)
    arrow = write_batch(tmp_path / task_batch_name("decided"), tasks, Task)
    parquet = write_batch(tmp_path / "decided.parquet", tasks, Task)
    assert str(arrow).endswith(".arrow") and arrow.read_bytes().startswith(b"ARROW1")
    assert read_batch(arrow, Task) == read_batch(parquet, Task) == tasks
    assert [b.num_rows for b in iter_record_batches(arrow, rows_per_read=2)] == [2, 1]
    assert without_batch_suffix(arrow) == without_batch_suffix(parquet) == str(tmp_path / "decided")
    assert read_batch(write_batch(tmp_path / task_batch_name("empty"), iter(()), Task), Task) == []


def test_opening_the_catalog_clears_what_a_killed_writer_left_half_written(tmp_path):
    data = DataDir.at(tmp_path)
    left = [tmp_path / "shards" / "long_context" / ".part-0.parquet.ab12.tmp",
            tmp_path / "work" / "cycle-1" / "build" / ".batch.parquet.cd34.tmp",
            tmp_path / SNAPSHOT_FOLDER / ".v-9b41.parquet.ef56.tmp"]
    kept = tmp_path / SNAPSHOT_FOLDER / "v-9b41.parquet"
    for path in [*left, kept]:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"partial")
    with data.open_catalog():
        pass
    assert [path for path in left if path.exists()] == [] and kept.exists()
