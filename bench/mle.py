"""Benchmark: the time to build one MLE task, split by phase, beside the bare cost of the same work.

Builds one competition from a dataset (the real bike-sharing sample by default:
17,379 hourly rows split by time, 3,488 of them held out, past the 2,000 test rows
the builder asks for; `--source` for a CSV/Parquet file, `--rows N` for a generated
binary dataset of N rows) through the builder, `--repeat` times, and prints per phase the median
of our time, the bare cost and their ratio:

- prepare: problem inference, seeded split, checks, checksums, CSV texts
  vs. a bare `train_test_split` of the frame written as CSV texts;
- baselines: the fifteen baseline entries in one sandbox job (network off)
  vs. the same script run as a plain subprocess on the host;
- grading: every baseline submission validated, scored and ranked
  vs. the metric alone on already aligned arrays;
- description and validation (every check on the finished task): ours only.

    .venv/bin/python bench/mle.py [--source FILE] [--rows N] [--sandbox docker|process] [--repeat 3]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import numpy as np  # noqa: E402
import polars as pl  # noqa: E402

from taskforge.builders.mle.inference import define_problem  # noqa: E402
from taskforge.builders.mle.leaderboard import baseline_plan, baseline_workspace, run_baselines  # noqa: E402
from taskforge.builders.mle.prepare import prepare  # noqa: E402
from taskforge.builders.mle.source import dataset_spec, load_table  # noqa: E402
from taskforge.builders.mle.task import Timings, competition_task  # noqa: E402
from taskforge.graders.mle.grading import frame_from_csv  # noqa: E402
from taskforge.graders.mle.metrics import METRICS, Truth  # noqa: E402
from taskforge.sandbox import get_sandbox  # noqa: E402
from taskforge.validators.runner import validate  # noqa: E402


DEFAULT_SAMPLE = REPO / "data" / "samples" / "mle" / "bike_sharing_hourly.parquet"
"""The dataset benchmarked by default: real, and large enough for the builder's 2,000 test rows."""


def _median_time(work: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        work()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def _dataset(args: argparse.Namespace, folder: Path) -> Path:
    if args.source:
        return Path(args.source).resolve()
    if args.rows:
        rng = np.random.default_rng(0)
        x = rng.normal(size=(args.rows, 8))
        label = (x[:, 0] - x[:, 1] * x[:, 2] + rng.normal(0, 0.5, args.rows) > 0).astype(int)
        frame = pl.DataFrame({f"x{k}": x[:, k].round(5) for k in range(8)}).with_columns(pl.Series("label", label))
        name = f"generated_{args.rows}"
    else:
        return DEFAULT_SAMPLE
    path = folder / f"{name}.csv"
    frame.write_csv(path)
    return path


def _bare_prepare(path: Path, target: str) -> None:
    from sklearn.model_selection import train_test_split

    frame = load_table(dataset_spec(path, path.parent)).to_pandas()
    train, test = train_test_split(frame, test_size=0.2, random_state=0)
    train.to_csv(index=False), test.drop(columns=[target]).to_csv(index=False), test[[target]].to_csv(index=False)


def _bare_baselines(competition, seed: int, folder: Path) -> float:
    workspace = baseline_workspace(competition, baseline_plan(competition, seed), folder)
    started = time.perf_counter()
    subprocess.run([sys.executable, "baselines.py", "plan.json"], cwd=workspace, check=True,
                   env={"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "PATH": "/usr/bin:/bin"})
    seconds = time.perf_counter() - started
    shutil.rmtree(workspace)
    return seconds


def _bare_grading(competition, runs) -> None:
    metric = METRICS[competition.problem.metric]
    answers = frame_from_csv(competition.answers, "answers")
    classes = competition.problem.classes
    target = competition.problem.target
    truth = Truth(target=answers[target].to_numpy() if classes else answers[target].cast(pl.Float64).to_numpy(),
                  classes=classes, groups=answers[competition.problem.group_column].to_numpy()
                  if competition.problem.group_column else None)
    for text in runs.submissions.values():
        frame = frame_from_csv(text)
        columns = [c for c in frame.columns if c != competition.id_column]
        values = frame[columns[0]].to_numpy() if metric.prediction == "label" else \
            frame.select(columns).cast(pl.Float64).to_numpy()
        metric.compute(truth, values)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--source", help="a CSV or Parquet dataset (its settings file beside it is read)")
    parser.add_argument("--rows", type=int, help="generate a binary dataset of this many rows instead")
    parser.add_argument("--sandbox", choices=("docker", "process"), help="sandbox backend (default: auto)")
    parser.add_argument("--repeat", type=int, default=3, help="builds to run (medians are printed)")
    args = parser.parse_args()
    sandbox = get_sandbox(args.sandbox)
    lineage = {"cycle_id": "bench", "gap_ids": [], "builder": "bench", "builder_version": "0"}
    with tempfile.TemporaryDirectory(prefix="bench-mle-") as tmp:
        folder = Path(tmp)
        path = _dataset(args, folder)
        spec = dataset_spec(path, path.parent)
        ours: dict[str, list[float]] = {}
        for _ in range(args.repeat):
            timings = Timings()
            started = time.perf_counter()
            task = competition_task(spec, sandbox, "bench", lineage, seed=0, timings=timings)
            timings.phases["build total"] = time.perf_counter() - started
            started = time.perf_counter()
            decided = validate(task)
            timings.phases["validation"] = time.perf_counter() - started
            for phase, seconds in timings.phases.items():
                ours.setdefault(phase, []).append(seconds)
        competition = prepare(*define_problem(load_table(spec), spec), task.lineage.seed, spec.name,
                              spec.test_fraction)
        runs = run_baselines(competition, sandbox, task.lineage.seed)
        bare = {
            "prepare": _median_time(lambda: _bare_prepare(path, competition.problem.target), args.repeat),
            "baselines": statistics.median(_bare_baselines(competition, task.lineage.seed, folder)
                                           for _ in range(args.repeat)),
            "grading": _median_time(lambda: _bare_grading(competition, runs), args.repeat),
        }
    split, board = task.payload["split"], task.payload["leaderboard"]
    print(f"dataset: {spec.name}, {split['rows']} rows ({split['train_rows']} train / {split['test_rows']} test), "
          f"metric {task.payload['metric']}, best baseline {board[0]['entry']} at {board[0]['score']}, "
          f"sandbox {sandbox.backend}, {decided.status}, median of {args.repeat} builds")
    print(f"{'phase':<14}{'ours (s)':>10}{'bare (s)':>10}{'ratio':>8}   bare = ")
    notes = {"prepare": "train_test_split + CSV texts", "baselines": "same script, plain host subprocess",
             "grading": "metric on aligned arrays (10 submissions)"}
    for phase in ("prepare", "baselines", "grading", "description", "build total", "validation"):
        mine = statistics.median(ours[phase])
        other = bare.get(phase)
        ratio = f"{mine / other:.1f}x" if other else "-"
        print(f"{phase:<14}{mine:>10.3f}{(f'{other:.3f}' if other is not None else '-'):>10}{ratio:>8}   "
              f"{notes.get(phase, '')}")


if __name__ == "__main__":
    main()
