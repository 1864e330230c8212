"""Where a landing's CPU goes, step by step, beside the floor of `bench/landing.py` (one bare `write_table`).

    .venv/bin/python bench/landing_steps.py [--tasks 2000] [--words 2500] [--rounds 5]

The same decided batch files as `bench/landing.py` (its `make_tasks`, `write_decided`). Each round, in turn:
- one landing without the screen into a fresh data dir, with the CPU seconds (`process_time`) of each of its
  steps: the landing's own functions are wrapped for the run (reading the batch files is what is left of the
  landing's total once the timed steps are taken out, with the ids, the sort and the manifest);
- the floor: one `write_table` of the rows as one in-memory table (as the bench's floor: one chunk a batch file);
- the shards as the landing writes them (`SHARD_OPTIONS`, one chunk a shard: their bytes depend on the chunking),
  and the same shards cut into the floor's chunks, or without dictionaries: neither is allowed (other bytes),
  both show what the shards' chunking costs against the floor's.
Medians over the rounds, since the machine is shared; the BENCH figure is the landed shards' writes alone beside
the floor (no goal: what the rest of a landing may cost at most is the floor / 0.8 less these).
"""

from __future__ import annotations

import argparse
import functools
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from figures import emit  # noqa: E402
from landing import in_memory, make_tasks  # noqa: E402
from taskforge.flows.stages import build_batch_size  # noqa: E402
from taskforge.schemas import Task, arrow_schema  # noqa: E402
from taskforge.flows.tasks import write_decided  # noqa: E402
from taskforge.store import catalog, landing, shards  # noqa: E402
from taskforge.store.batches import task_batch_name  # noqa: E402
from taskforge.store.layout import DataDir  # noqa: E402

STEPS = ((landing, "gathered", "sort into one chunk (gathered)"),
         (shards.pq, "write_table", "the shards' write_table"),
         (shards, "sha256_file", "sha256 of the shards"),
         (catalog.Catalog, "record_task_table", "catalog task and check rows"),
         (catalog.Catalog, "record_shards", "catalog shard rows"),
         (catalog._Transaction, "__exit__", "commit"))


def timing(owner: object, name: str, spent: dict[str, float], label: str) -> None:
    """Wrap `owner.name` so that the CPU seconds of its calls add up under `label` in `spent`."""
    function = getattr(owner, name)

    @functools.wraps(function)
    def timed(*args, **kwargs):
        started = time.process_time()
        try:
            return function(*args, **kwargs)
        finally:
            spent[label] = spent.get(label, 0.0) + time.process_time() - started
    setattr(owner, name, timed)


def cpu(work) -> float:
    """CPU seconds `work()` takes."""
    started = time.process_time()
    work()
    return time.process_time() - started


def main() -> None:
    """Land the bench's tasks round after round, timing each step, the floor and the shard writes in turn."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=2000)
    parser.add_argument("--words", type=int, default=2500)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    rng = random.Random(0)
    vocabulary = [f"w{n}" + "".join(rng.choice("abcdefghij") for _ in range(4)) for n in range(20_000)]
    tasks = make_tasks(args.tasks, args.words, rng, vocabulary)
    with tempfile.TemporaryDirectory(prefix="taskforge-bench-") as tmp:
        root = Path(tmp)
        per_file = build_batch_size(len(tasks))
        batches = [write_decided(root / "decided" / task_batch_name(f"b-{n:05d}"), tasks[n:n + per_file])
                   for n in range(0, len(tasks), per_file)]
        table = in_memory(batches)
        figures: dict[str, list[float]] = {}
        for round_ in range(args.rounds):
            spent: dict[str, float] = {}
            originals = [(owner, name, getattr(owner, name)) for owner, name, _ in STEPS]
            for owner, name, label in STEPS:
                timing(owner, name, spent, label)
            data = DataDir(root / f"land-{round_}")
            try:
                with data.open_catalog() as opened:
                    spent["landing, no screen"] = cpu(lambda: landing.land_files(batches, opened, data.shards, "b"))
            finally:
                for owner, name, function in originals:
                    setattr(owner, name, function)
            spent["reading the files, ids, sort, manifest (the rest)"] = (
                spent["landing, no screen"] - sum(spent[label] for *_, label in STEPS))
            landed = landed_shards(data)
            written = [pq.read_table(Path(data.shards) / shard.path).cast(arrow_schema(Task)) for shard in landed]
            spent["floor: one write_table, one chunk a batch file"] = cpu(
                lambda: pq.write_table(table, root / "floor.parquet", compression="zstd"))
            for label, prepare, options in (
                    ("shards, one chunk each (as landed)", lambda shard: shard.combine_chunks(), {}),
                    ("shards, the floor's chunks (other bytes)",
                     lambda shard: pa.Table.from_batches(shard.combine_chunks().to_batches(per_file)), {}),
                    ("shards, one chunk, no dictionary (other bytes)", lambda shard: shard.combine_chunks(),
                     {"use_dictionary": False})):
                ready = [prepare(shard) for shard in written]
                paths = [root / f"shard-{n}.parquet" for n in range(len(ready))]
                spent[label] = cpu(lambda: [pq.write_table(shard, path, **shards.SHARD_OPTIONS, **options)
                                            for shard, path in zip(ready, paths)])
                same = [shards.sha256_file(path) for path in paths] == [shard.sha256 for shard in landed]
                assert same == (label.endswith("(as landed)")), f"{label}: the landed bytes only as landed"
            for label, seconds in spent.items():
                figures.setdefault(label, []).append(seconds)
        print(f"{len(tasks)} tasks of ~{args.words} words; CPU seconds, median of {args.rounds} rounds (min)")
        for label, seconds in figures.items():
            print(f"  {label:<52} {statistics.median(seconds):6.3f} ({min(seconds):.3f})")
        median = {label: statistics.median(seconds) for label, seconds in figures.items()}
        floor = len(tasks) / median["floor: one write_table, one chunk a batch file"]
        emit("landing's shard writes alone (bench/landing_steps.py)",
             len(tasks) / median["shards, one chunk each (as landed)"], floor, "rows/s", "",
             f"one write_table of the same rows, medians per CPU second; the whole landing: "
             f"{len(tasks) / median['landing, no screen']:.0f} rows/s, what is not the shard writes: "
             f"{median['landing, no screen'] - median[STEPS[1][2]]:.2f} s")


def landed_shards(data: DataDir) -> list[shards.ShardFile]:
    """The shards a landing into this data dir wrote."""
    with data.open_catalog() as opened:
        return opened.all_shards()


if __name__ == "__main__":
    main()
