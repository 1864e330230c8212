"""Literature search environment at scale: loading, index build and query rate on synthetic paper collections,
each beside the bare cost of the same work.

    .venv/bin/python bench/literature.py [--papers 100000] [--queries 2000]

Figures: load (JSONL → normalised papers with resolved citations) vs parsing
the JSON alone; index build vs running the same analyzer over the same text
(and vs a bare whitespace split); queries per second vs an exhaustive
term-overlap scan and vs the top-k selection alone over every document; the
share of queries by a (unique) title that rank their paper first.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from figures import emit  # noqa: E402
from taskforge.builders.literature.collection import load_collection  # noqa: E402
from taskforge.builders.literature.synthetic import generate_records, write_jsonl  # noqa: E402
from taskforge.graders.literature.bm25 import Analyzer, BM25Index  # noqa: E402
from taskforge.graders.literature.environment import SearchEnvironment, indexed_text  # noqa: E402
from taskforge.graders.literature.papers import load_snapshot, save_snapshot  # noqa: E402


def timed(work):
    """(result, seconds) of one call."""
    started = time.perf_counter()
    result = work()
    return result, time.perf_counter() - started


def report(label: str, ours: float, bare: float, unit: str = "s") -> None:
    """Print one row of the table and its BENCH figure (the bare side as the floor)."""
    print(f"{label:<44} {ours:>12.3f} {bare:>12.3f} {unit:<4} {ours / bare if bare else float('nan'):>8.2f}x")
    emit(f"literature: {label}", ours, bare, unit)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--papers", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory(prefix="taskforge-bench-") as tmp:
        source = Path(tmp) / "papers.jsonl"
        _, generate_s = timed(lambda: write_jsonl(source, generate_records(args.papers, args.seed)))
        size_mb = source.stat().st_size / 1e6
        _, parse_s = timed(lambda: [json.loads(line) for line in open(source, encoding="utf-8")])
        loaded, load_s = timed(lambda: load_collection(source))
        collection = loaded.collection
        _, version_s = timed(lambda: collection.version)
        _, save_s = timed(lambda: save_snapshot(collection, Path(tmp)))
        _, reload_s = timed(lambda: load_snapshot(Path(tmp), collection.collection_id, collection.version))

        texts = [indexed_text(p) for p in collection.papers]
        analyzer = Analyzer()
        _, split_s = timed(lambda: [t.split() for t in texts])
        _, analyze_s = timed(lambda: [analyzer.terms(t) for t in texts])
        index, build_s = timed(lambda: BM25Index(texts))
        env = SearchEnvironment.__new__(SearchEnvironment)
        env.collection, env.index = collection, index

        sample = rng.sample(collection.papers, args.queries)
        queries = [p.title if i % 2 else p.abstract.split(". ")[2] for i, p in enumerate(sample)]
        hits, query_s = timed(lambda: [index.search(q, 10) for q in queries])
        _, tool_s = timed(lambda: [env.search(q, 10) for q in queries])
        titles = Counter(p.title for p in collection.papers)
        asked = [(p, h) for p, q, h in zip(sample, queries, hits) if q == p.title and titles[q] == 1]
        top1 = sum(1 for p, h in asked if h and collection.papers[h[0][0]].paper_id == p.paper_id) / max(1, len(asked))

        scores = np.random.default_rng(args.seed).random(len(texts), dtype=np.float32)
        _, topk_s = timed(lambda: [np.argpartition(scores, -10)[-10:] for _ in queries])
        term_sets = [set(analyzer.terms(t)) for t in texts]
        scan_queries = queries[:20]
        _, scan_s = timed(lambda: [sorted(range(len(term_sets)), key=lambda d: -len(term_sets[d] & set(
            analyzer.terms(q))))[:10] for q in scan_queries])

    print(f"literature bench: {len(collection):,} papers ({size_mb:.0f} MB JSONL, "
          f"{sum(1 for p in collection.papers if p.sections):,} with full text), "
          f"{len(index.vocabulary):,} terms, {len(index.docs):,} postings, {len(queries):,} queries\n")
    print(f"{'':<44} {'ours':>12} {'bare':>12} {'':<4} {'ratio':>9}")
    report("load JSONL → papers  vs  json.loads only", load_s, parse_s)
    report("index build  vs  same analyzer over the text", build_s, analyze_s)
    report("index build  vs  str.split over the text", build_s, split_s)
    qps, tool_qps = len(queries) / query_s, len(queries) / tool_s
    report("queries/s: BM25 top-10  vs  top-k pick over N", qps, len(queries) / topk_s, "q/s")
    report("queries/s: BM25 top-10  vs  term-overlap scan", qps, len(scan_queries) / scan_s, "q/s")
    report("queries/s: search tool (JSON-ready)  vs  BM25", tool_qps, qps, "q/s")
    print(f"\nother: generate {generate_s:.1f} s, content version {version_s:.2f} s, snapshot save {save_s:.2f} s, "
          f"snapshot load+verify {reload_s:.2f} s, a unique title as query ranks its paper first: {top1:.1%}")


if __name__ == "__main__":
    main()
