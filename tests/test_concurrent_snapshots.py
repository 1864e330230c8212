"""Two literature batches in one process save the same collection snapshot at once: both build their tasks.

Both batches reach `save_snapshot` for the same collection version while the
other is still writing it (the Parquet write is slowed down and the threads
start together). Each writes under a temporary name of its own (the one atomic
writer, `taskforge.store.files`), so neither loses its file to the other's rename.
"""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pyarrow.parquet as pq

from factories import literature_tasks, paper_collection
from taskforge.graders.literature.papers import SNAPSHOT_FOLDER, load_snapshot

WRITE_DELAY_S = 0.3


def test_two_batches_saving_one_snapshot_at_once_both_build(tmp_path, monkeypatch):
    source = paper_collection(tmp_path / "papers.jsonl", count=120)
    data_dir = tmp_path / "data"
    start = threading.Barrier(2)
    write_table = pq.write_table

    def slow_write(*args, **kwargs):
        time.sleep(WRITE_DELAY_S)
        return write_table(*args, **kwargs)

    monkeypatch.setattr(pq, "write_table", slow_write)

    def batch(cycle: str):
        start.wait()
        return literature_tasks(source, data_dir, ["find_papers"], cycle_id=cycle)

    with ThreadPoolExecutor(max_workers=2) as pool:
        built = list(pool.map(batch, ["batch-a", "batch-b"]))

    assert [len(tasks) for tasks in built] == [1, 1]
    snapshots = sorted(p.name for p in (data_dir / SNAPSHOT_FOLDER).iterdir())
    version = built[0][0].environment["collection"]["version"]
    assert snapshots == [f"{version}.parquet"]
    assert len(load_snapshot(data_dir, "papers", version)) == 120
