"""Landing and decontamination throughput, each beside the bare cost of the same work.

    .venv/bin/python bench/landing.py [--tasks 4000] [--words 2500] [--eval-items 2000]

Tasks are decided long-context envelopes (validation excluded from the timing)
whose documents are random words from a 20,000-word vocabulary, so no two are
near-duplicates. Figures:
- landing, rows per second: `taskforge.store.landing.land` (shards, catalog rows in one
  transaction, manifest) without and with the landing screen (near-duplicate
  lookup and signing), against one bare `pyarrow.parquet.write_table` of the same
  rows as one Arrow table;
- decontamination, MB of task text per second: the `decontamination` check
  against registered evaluation sets (ids, 13-grams, canaries) against the bare
  cost of a whitespace split and a lookup of each 13-gram in a set; and MinHash
  signing (near-duplicates) against hashing the same text once with sha1.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
import tempfile
import time
from pathlib import Path

import pyarrow.parquet as pq

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from taskforge.flows.screening import landing_screen  # noqa: E402
from taskforge.schemas import Lineage, Message, Task, ValidationResult, task_id_for, to_table  # noqa: E402
from taskforge.store.files import write_text_atomic  # noqa: E402
from taskforge.store.landing import land  # noqa: E402
from taskforge.store.layout import DataDir  # noqa: E402
from taskforge.validators.decontamination import DecontaminationCheck, task_fields  # noqa: E402
from taskforge.validators.evalsets import EvalItem, EvalSet, registry_dir  # noqa: E402
from taskforge.validators.near_duplicates import asked_text, signature  # noqa: E402

CHECKS = ("noop", "reference", "leakage", "shortcut", "determinism", "decontamination", "review")


def timed(work):
    """(result, seconds) of one call."""
    started = time.perf_counter()
    result = work()
    return result, time.perf_counter() - started


def row(label: str, ours: float, bare: float, unit: str) -> str:
    """One line of figures: ours, bare, and how many times the bare rate ours is."""
    return f"{label:<52} {ours:>12.1f} {bare:>12.1f} {unit:<8} {bare / ours if ours else float('nan'):>7.2f}x"


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
            validation=[ValidationResult(check=c, passed=True) for c in CHECKS], status="accepted"))
    return tasks


def land_rate(tasks: list[Task], root: Path, screened: bool) -> float:
    """Rows per second landing the tasks into a fresh data dir."""
    data = DataDir(root)
    with data.open_catalog() as catalog:
        screen = landing_screen(catalog, data) if screened else None
        result, seconds = timed(lambda: land(tasks, catalog, data.shards, "bench",
                                             screen=screen.land if screen else None))
    assert result.accepted == len(tasks), "every bench task is distinct and lands"
    return len(tasks) / seconds


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
    parser.add_argument("--tasks", type=int, default=4000)
    parser.add_argument("--words", type=int, default=2500, help="words per task document")
    parser.add_argument("--eval-items", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    vocabulary = [f"w{n}" + "".join(rng.choice("abcdefghij") for _ in range(4)) for n in range(20_000)]
    tasks, build_s = timed(lambda: make_tasks(args.tasks, args.words, rng, vocabulary))
    print(f"{args.tasks} tasks of ~{args.words} words built in {build_s:.1f} s")
    print(f"{'':<52} {'ours':>12} {'bare':>12} {'unit':<8} {'bare/ours':>8}")
    with tempfile.TemporaryDirectory(prefix="taskforge-bench-") as tmp:
        root = Path(tmp)
        table = to_table(tasks, Task)
        _, bare_s = timed(lambda: pq.write_table(table, root / "bare.parquet", compression="zstd"))
        bare_rate = len(tasks) / bare_s
        print(row("land: rows/s (no screen) vs one write_table", land_rate(tasks, root / "plain", False), bare_rate,
                  "rows/s"))
        print(row("land: rows/s (landing screen) vs one write_table", land_rate(tasks, root / "screened", True),
                  bare_rate, "rows/s"))

        items = [EvalItem(item_id=f"e{n}", text=text(rng, vocabulary, 200), ids=(f"doi:10.9999/bench.{n}",),
                          canaries=(f"CANARY-{n:04d}",) if n < 20 else ()) for n in range(args.eval_items)]
        write_text_atomic(registry_dir(root / "plain") / "bench.json",
                          EvalSet(name="bench", source="bench", items=items).to_json())
        check = DecontaminationCheck(root / "plain")
        texts = ["\n".join(body for _, body in task_fields(task)) for task in tasks]
        megabytes = sum(len(body.encode()) for body in texts) / 1e6
        check.run(tasks[0])
        results, ours_s = timed(lambda: [check.run(task) for task in tasks])
        assert all(r.passed for r in results)
        grams = {tuple(item.text.split()[i:i + 13]) for item in items for i in range(188)}
        _, scan_s = timed(lambda: bare_ngram_scan(texts, grams))
        print(row(f"decontamination: MB/s over {megabytes:.0f} MB of task text", megabytes / ours_s,
                  megabytes / scan_s, "MB/s"))
        asked = [asked_text(task.prompt) for task in tasks]
        asked_mb = sum(len(body.encode()) for body in asked) / 1e6
        _, sign_s = timed(lambda: [signature(body) for body in asked])
        _, sha_s = timed(lambda: [hashlib.sha1(body.encode()).digest() for body in asked])
        print(row(f"near-duplicates: MinHash MB/s over {asked_mb:.0f} MB", asked_mb / sign_s, asked_mb / sha_s, "MB/s"))
        print(json.dumps({"tasks": args.tasks, "words": args.words, "eval_items": args.eval_items}))


if __name__ == "__main__":
    main()
