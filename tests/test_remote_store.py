"""Batches, shards, manifest, landing, release and the temporary sweep through an fsspec URL (S3 served by moto)."""

from __future__ import annotations

import pytest

from factories import long_context_tasks
from taskforge.schemas import Task, TaskforgeError
from taskforge.schemas.locations import exists, files_under, join, name_of
from taskforge.store.batches import iter_batch, write_batch
from taskforge.store.catalog import Catalog
from taskforge.store.files import atomic_open, sha256_file, sweep_temporaries
from taskforge.store.landing import land
from taskforge.store.layout import DataDir
from taskforge.store.manifest import verify_manifest
from taskforge.store.release import export_release
from taskforge.validators.runner import validate


def _decided(count: int = 3) -> list[Task]:
    return [validate(t) for t in long_context_tasks(count)]


def test_batches_and_shards_on_s3_match_local_ones_byte_for_byte(s3_data_dir, tmp_path):
    tasks = _decided(3)
    remote_batch = write_batch(join(s3_data_dir, "work", "b.parquet"), tasks, Task)
    local_batch = write_batch(tmp_path / "b.parquet", tasks, Task)
    assert sha256_file(remote_batch) == sha256_file(local_batch)
    assert [t.task_id for t in iter_batch(remote_batch, Task)] == [t.task_id for t in tasks]

    with Catalog(tmp_path / "remote.duckdb") as remote, Catalog(tmp_path / "local.duckdb") as local:
        on_s3 = land(tasks, remote, join(s3_data_dir, "shards"), "cycle-1")
        on_disk = land(tasks, local, tmp_path / "shards", "cycle-1")
        assert [(s.path, s.sha256, s.bytes) for s in on_s3.shards] == [(s.path, s.sha256, s.bytes) for s in on_disk.shards]
        assert verify_manifest(join(s3_data_dir, "shards")) == []
        assert not [p for p in files_under(s3_data_dir) if name_of(p).endswith(".tmp")]

        remote_release = export_release(remote, DataDir.at(s3_data_dir, tmp_path / "remote.duckdb"), "1.0",
                                        join(s3_data_dir, "release"))
        local_release = export_release(local, DataDir.at(tmp_path, tmp_path / "local.duckdb"), "1.0",
                                       tmp_path / "release")
        assert remote_release.checksums == local_release.checksums
        assert remote_release.rows == {"long_context": 3}


def test_a_failed_write_leaves_neither_the_object_nor_its_temporary(s3_data_dir):
    final = join(s3_data_dir, "shards", "x.parquet")
    with pytest.raises(RuntimeError):
        with atomic_open(final) as handle:
            handle.write(b"partial")
            raise RuntimeError("writer died")
    assert files_under(s3_data_dir) == []


def test_the_one_writer_sweeps_temporaries_a_crashed_writer_left_on_s3(s3_data_dir, tmp_path):
    stale = [join(s3_data_dir, "shards", "long_context", ".part-1.parquet.abc.tmp"),
             join(s3_data_dir, "work", "c-1", "decided", ".b.parquet.def.tmp")]
    kept = join(s3_data_dir, "shards", "long_context", "part-1.parquet")
    for location in [*stale, kept]:
        with atomic_open(location) as handle:
            handle.write(b"x")
    data = DataDir.at(s3_data_dir, tmp_path / "catalog.duckdb")
    with data.open_catalog():
        pass
    assert not any(exists(p) for p in stale) and exists(kept)
    assert sweep_temporaries(s3_data_dir) == 0


def test_a_remote_data_dir_needs_a_local_catalog(s3_data_dir, tmp_path):
    with pytest.raises(TaskforgeError, match="give a local catalog file with --catalog"):
        DataDir.at(s3_data_dir).catalog
    with pytest.raises(TaskforgeError, match="must be a local file"):
        DataDir.at(s3_data_dir, join(s3_data_dir, "catalog.duckdb"))
    data = DataDir.at(s3_data_dir, tmp_path / "c" / "catalog.duckdb")
    assert data.llm == tmp_path / "c" / "llm" and data.shards == f"{s3_data_dir}/shards"


def test_evaluation_sets_registered_on_s3_reach_the_decontamination_check(s3_data_dir, tmp_path, capsys):
    from taskforge.flows.cli import main
    from taskforge.validators.runner import default_checks

    listing = tmp_path / "heldout.txt"
    listing.write_text("10.1234/heldout.5678\n")
    assert main(["decontam", "add", str(listing), "--data-dir", s3_data_dir, "--catalog", str(tmp_path / "c.db")]) == 0
    assert exists(join(s3_data_dir, "evalsets", "heldout.json"))
    task = long_context_tasks(1)[0]
    leaking = task.model_copy(update={"prompt": [*task.prompt[:-1], task.prompt[-1].model_copy(
        update={"content": task.prompt[-1].content + " See doi:10.1234/heldout.5678."})]})
    check = next(r for r in validate(leaking, default_checks(s3_data_dir)).validation if r.check == "decontamination")
    assert not check.passed

    capsys.readouterr()
    assert main(["cycle", "--data-dir", s3_data_dir, "--budget", "1"]) == 1
    assert "give a local catalog file with --catalog PATH" in capsys.readouterr().err
