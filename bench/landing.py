"""Landing and the screen (decontamination, near-duplicates), each beside the bare cost of the same work.

    .venv/bin/python bench/landing.py [--tasks 2000] [--words 2500] [--eval-items 2000] [--rounds 2]

Tasks are decided long-context envelopes whose documents are random words from a
20,000-word vocabulary (no two are near-duplicates), written as decided batch files
as the validate stage leaves them (`write_decided`: Arrow IPC, with the signature of
each accepted task's asked text; one plan item: `build_batch_size` tasks a file).
Figures (best of `--rounds`; CPU seconds of this process, its threads included,
since wall time on a shared machine measures its scheduler; wall figures are
printed beside them):
- landing, rows per second: `land_files` over the batch files (shards, catalog
  rows in one transaction, manifest), without and with the landing screen (the
  tasks already carry their decontamination result and signature, so the screen
  looks each up among the landed ones; the CPU the validate stage spends writing
  the files, signing included, is printed beside), against one bare `pyarrow.parquet.write_table`
  of the same rows as one Arrow table, already in memory (reading the batch files
  and one `write_table` is printed beside it: what landing from files cannot skip);
- decontamination, MB of task text per CPU second: the `decontamination` check
  against the default sets plus a registered set of `--eval-items` texts (ids,
  canaries, 13-grams, paraphrases), tasks matched together as the landing screen
  does (`run_all`; one task a call is printed beside it), against a whitespace
  split and a lookup of each 13-gram in a Python set;
- near-duplicates, MB of asked text per CPU second: MinHash signing as the validate
  stage does it, against hashing the same text once with sha1.
"""

from __future__ import annotations

import argparse
import hashlib
import random
import sys
import tempfile
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.ipc as ipc
import pyarrow.parquet as pq

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from figures import emit  # noqa: E402
from taskforge.flows.screening import landing_screen  # noqa: E402
from taskforge.flows.stages import build_batch_size  # noqa: E402
from taskforge.flows.tasks import write_decided  # noqa: E402
from taskforge.schemas import Lineage, Message, Task, ValidationResult, task_id_for  # noqa: E402
from taskforge.store.batches import iter_record_batches, task_batch_name  # noqa: E402
from taskforge.store.files import write_text_atomic  # noqa: E402
from taskforge.store.landing import BATCH_ROWS, land_files  # noqa: E402
from taskforge.store.layout import DataDir  # noqa: E402
from taskforge.validators.decontamination import DecontaminationCheck, task_fields  # noqa: E402
from taskforge.validators.evalsets import EvalItem, EvalSet, registry_dir  # noqa: E402
from taskforge.validators.near_duplicates import asked_text, signatures  # noqa: E402

CHECKS = ("noop", "reference", "leakage", "shortcut", "determinism", "decontamination", "review")


def text(rng: random.Random, vocabulary: list[str], n: int) -> str:
    """`n` random words of the vocabulary."""
    return " ".join(rng.choice(vocabulary) for _ in range(n))


def make_tasks(count: int, words: int, rng: random.Random, vocabulary: list[str]) -> list[Task]:
    """Decided (accepted) long-context envelopes with distinct random documents."""
    tasks = []
    for n in range(count):
        document = text(rng, vocabulary, words)
        question = f"Question {n}: {text(rng, vocabulary, 20)}?"
        payload = {"category": "timeline", "documents": [{"doc_id": "doc-1", "text": document}], "question": question}
        tasks.append(Task(
            task_id=task_id_for("long_context", "timeline", payload), family="long_context", kind="timeline",
            capability="history_tracking",
            prompt=[Message(role="system", content="Answer from the documents."),
                    Message(role="user", content=f"{document}\n---\n{question}")],
            payload=payload, reference={"answer": ["A", "B"], "answer_text": "A, B"},
            grader={"scorer": "long_context.ordered_labels", "labels": ["A", "B"]},
            environment={"tools": []},
            lineage=Lineage(cycle_id="bench", resource_id=f"world-{n}", resource_revision="1", builder="bench",
                            builder_version="0"),
            validation=[ValidationResult(check=c, passed=True, duration_s=0.01) for c in CHECKS], status="accepted"))
    return tasks


def best_of(rounds: int, work) -> float:
    """The least CPU time `work(round)` took over the rounds."""
    times = []
    for round_ in range(rounds):
        started = time.process_time()
        work(round_)
        times.append(time.process_time() - started)
    return min(times)


def land_seconds(batches: list[Path], root: Path, screened: bool) -> tuple[float, float]:
    """Wall and CPU seconds landing the batch files into a fresh data dir."""
    data = DataDir(root)
    with data.open_catalog() as catalog:
        started, cpu = time.perf_counter(), time.process_time()
        screen = landing_screen(catalog, data) if screened else None
        result = land_files(batches, catalog, data.shards, "bench", screen=screen.land_rows if screen else None)
        seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    assert result.accepted == sum(b.num_rows for path in batches for b in iter_record_batches(path)), "all land"
    return seconds, cpu


def write_seconds(table, path: Path) -> tuple[float, float]:
    """Wall and CPU seconds of one bare `write_table` of the rows."""
    started, cpu = time.perf_counter(), time.process_time()
    pq.write_table(table, path, compression="zstd")
    return time.perf_counter() - started, time.process_time() - cpu


def read_write_seconds(batches: list[Path], path: Path) -> tuple[float, float]:
    """Wall and CPU seconds of reading the batch files as one table and writing it with one `write_table`: the
    least a landing from files does (it cannot skip reading what it lands)."""
    started, cpu = time.perf_counter(), time.process_time()
    pq.write_table(read_batches(batches), path, compression="zstd")
    return time.perf_counter() - started, time.process_time() - cpu


def read_batches(batches: list[Path]) -> pa.Table:
    """The rows of the batch files as one table (one chunk a record batch), as a landing reads them."""
    return pa.Table.from_batches([batch for path in batches for batch in iter_record_batches(path, BATCH_ROWS)])


def in_memory(batches: list[Path]) -> pa.Table:
    """The rows of the batch files as one table held in memory (a copy of the files, one chunk a record batch)."""
    return pa.concat_tables(ipc.open_file(pa.OSFile(str(path))).read_all() for path in batches)


def bare_ngram_scan(texts: list[str], grams: set[tuple[str, ...]]) -> int:
    """The least 13-gram overlap costs: split on whitespace, look each 13-gram up in a set."""
    hits = 0
    for body in texts:
        tokens = body.split()
        hits += sum(tuple(tokens[i:i + 13]) in grams for i in range(len(tokens) - 12))
    return hits


def main() -> None:
    """Build the tasks and the evaluation set, then print each figure beside its bare cost."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=2000)
    parser.add_argument("--words", type=int, default=2500, help="words per task document")
    parser.add_argument("--eval-items", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    vocabulary = [f"w{n}" + "".join(rng.choice("abcdefghij") for _ in range(4)) for n in range(20_000)]
    tasks = make_tasks(args.tasks, args.words, rng, vocabulary)
    with tempfile.TemporaryDirectory(prefix="taskforge-bench-") as tmp:
        root = Path(tmp)
        per_file = build_batch_size(len(tasks))
        decided = [(root / "decided" / task_batch_name(f"b-{n:05d}"), tasks[n:n + per_file])
                   for n in range(0, len(tasks), per_file)]
        signing = time.process_time()
        batches = [write_decided(path, part) for path, part in decided]
        signing = time.process_time() - signing
        table = in_memory(batches)
        rates = {}
        for name, measure in (("bare", lambda r: write_seconds(table, root / f"bare-{r}.parquet")),
                              ("read", lambda r: read_write_seconds(batches, root / f"read-{r}.parquet")),
                              ("plain", lambda r: land_seconds(batches, root / f"plain-{r}", screened=False)),
                              ("screened", lambda r: land_seconds(batches, root / f"screened-{r}", screened=True))):
            runs = [measure(r) for r in range(args.rounds)]
            rates[name] = (len(tasks) / min(wall for wall, _ in runs), len(tasks) / min(cpu for _, cpu in runs))
        print(f"{len(tasks)} tasks of ~{args.words} words; rows/s, best of {args.rounds}    wall       CPU")
        for name, label in (("plain", "landing without the screen"), ("screened", "landing with the screen"),
                            ("bare", "one write_table (the floor)"), ("read", "read the files + one write_table")):
            print(f"  {label:<31} {rates[name][0]:10.0f} {rates[name][1]:9.0f}")
        print(f"  (writing the decided files, accepted tasks signed, as the validate stage does: "
              f"{len(tasks) / signing:.0f} rows/s CPU, outside the landing)")
        emit("landing, no screen (bench/landing.py)", rates["plain"][1], rates["bare"][1], "rows/s", ">= 0.8x",
             f"one write_table of the same rows; per CPU second (wall: {rates['plain'][0]:.0f} vs "
             f"{rates['bare'][0]:.0f}; reading the files + write_table: {rates['read'][1]:.0f})")
        emit("landing with the screen", rates["screened"][1], rates["bare"][1], "rows/s", ">= 0.5x",
             f"one write_table of the same rows; per CPU second (wall: {rates['screened'][0]:.0f} vs "
             f"{rates['bare'][0]:.0f}; reading the files + write_table: {rates['read'][1]:.0f})")

        items = [EvalItem(item_id=f"e{n}", text=text(rng, vocabulary, 200), ids=(f"doi:10.9999/bench.{n}",),
                          canaries=(f"CANARY-{n:04d}",) if n < 20 else ()) for n in range(args.eval_items)]
        write_text_atomic(registry_dir(root / "evalsets") / "bench.json",
                          EvalSet(name="bench", source="bench", items=items).to_json())
        check = DecontaminationCheck(root / "evalsets")
        check.run(tasks[0])
        texts = ["\n".join(body for _, body in task_fields(task)) for task in tasks]
        megabytes = sum(len(body.encode()) for body in texts) / 1e6
        ours_s = best_of(args.rounds, lambda r: check.run_all(tasks))
        one_s = best_of(args.rounds, lambda r: [check.run(task) for task in tasks])
        assert all(check.run(task).passed for task in tasks[:10])
        grams = {tuple(item.text.split()[i:i + 13]) for item in items for i in range(188)}
        scan_s = best_of(args.rounds, lambda r: bare_ngram_scan(texts, grams))
        print(f"  decontamination MB/s (CPU) {megabytes / ours_s:10.1f}   bare 13-gram scan {megabytes / scan_s:8.1f}"
              f"   over {megabytes:.0f} MB; one task a call {megabytes / one_s:.1f}")
        emit("decontamination (ids, canaries, 13-grams, paraphrases)", megabytes / ours_s, megabytes / scan_s,
             "MB/s", ">= 50 MB/s", "bare 13-gram scan (split + set lookup), per CPU second; tasks matched together "
             f"as the screen does (one task a call: {megabytes / one_s:.1f} MB/s)")
        asked = [asked_text(task.prompt) for task in tasks]
        asked_mb = sum(len(body.encode()) for body in asked) / 1e6
        sign_s = best_of(args.rounds, lambda r: signatures(asked))
        sha_s = best_of(args.rounds, lambda r: [hashlib.sha1(body.encode()).digest() for body in asked])
        print(f"  near-duplicates MB/s (CPU) {asked_mb / sign_s:10.1f}   sha1 of the text {asked_mb / sha_s:10.1f}")
        emit("near-duplicates (MinHash signing)", asked_mb / sign_s, asked_mb / sha_s, "MB/s", ">= 50 MB/s",
             "sha1 of the same text, per CPU second")


if __name__ == "__main__":
    main()
