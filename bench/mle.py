"""Benchmark: the time to build one MLE task, split by phase, beside the bare cost of the same work.

Builds one competition from a dataset (scikit-learn's breast_cancer by default,
`--source` for a CSV/Parquet file, `--rows N` for a generated binary dataset of
N rows) and prints, per phase, our time, the bare cost and their ratio:

- prepare: problem inference, seeded split, checks, checksums, CSV texts
  vs. a bare `train_test_split` of the frame written as CSV texts;
- baselines: the ten baseline entries in one sandbox job (network off)
  vs. the same script run as a plain subprocess on the host;
- grading: every baseline submission validated, scored and ranked
  vs. the metric alone on already aligned arrays;
- description and validation (every check on the finished task): ours only.

    .venv/bin/python bench/mle.py [--source FILE] [--rows N] [--sandbox docker|process] [--repeat 5]
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

from builders.mle.description import description_facts, render_description  # noqa: E402
from builders.mle.inference import define_problem  # noqa: E402
from builders.mle.leaderboard import baseline_plan, baseline_workspace, build_leaderboard, run_baselines  # noqa: E402
from builders.mle.prepare import prepare  # noqa: E402
from builders.mle.source import dataset_spec, load_table  # noqa: E402
from builders.mle.task import payload_for  # noqa: E402
from graders.mle import frame_from_csv  # noqa: E402
from graders.mle_metrics import METRICS, Truth  # noqa: E402
from sandbox import get_sandbox  # noqa: E402
from schemas import Lineage, Message, Task  # noqa: E402
from validators.runner import validate  # noqa: E402


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
    else:
        from sklearn.datasets import load_breast_cancer

        frame = pl.from_pandas(load_breast_cancer(as_frame=True).frame)
    path = folder / "dataset.csv"
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
    parser.add_argument("--repeat", type=int, default=5, help="repetitions of the fast phases (median)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-mle-") as tmp:
        folder = Path(tmp)
        path = _dataset(args, folder)
        spec = dataset_spec(path, path.parent)
        seed = 7
        sandbox = get_sandbox(args.sandbox)
        rows: list[tuple[str, float, float | None]] = []

        def prepared():
            frame, problem = define_problem(load_table(spec), spec)
            return prepare(frame, problem, seed, spec.name, spec.test_fraction)

        competition = prepared()
        rows.append(("prepare", _median_time(prepared, args.repeat),
                     _median_time(lambda: _bare_prepare(path, competition.problem.target), args.repeat)))
        started = time.perf_counter()
        runs = run_baselines(competition, sandbox, seed)
        ours = time.perf_counter() - started
        rows.append((f"baselines ({sandbox.backend})", ours, _bare_baselines(competition, seed, folder)))
        leaderboard = build_leaderboard(competition, runs)
        rows.append(("grading (10 submissions)", _median_time(lambda: build_leaderboard(competition, runs), args.repeat),
                     _median_time(lambda: _bare_grading(competition, runs), args.repeat)))
        started = time.perf_counter()
        description = render_description(description_facts(competition, spec.name, spec.description))
        rows.append(("description", time.perf_counter() - started, None))
        task = Task(task_id="bench", family="mle", kind="tabular_competition", capability="bench",
                    prompt=[Message(role="user", content=description)],
                    payload=payload_for(competition, leaderboard, description, spec.name),
                    reference={"answers": competition.answers, "best_submission": leaderboard.best_submission,
                               "best_entry": leaderboard.best["entry"], "best_score": leaderboard.best["score"],
                               "checksums": {k: v for k, v in competition.checksums.items() if k.startswith("private/")}},
                    grader={**competition.grader, "thresholds": vars(leaderboard.thresholds)},
                    lineage=Lineage(cycle_id="bench", resource_id="bench", resource_revision="bench",
                                    builder="bench", builder_version="0"))
        started = time.perf_counter()
        decided = validate(task)
        rows.append((f"validation ({decided.status})", time.perf_counter() - started, None))
    split = competition.split
    print(f"dataset: {spec.name}, {split['rows']} rows ({split['train_rows']} train / {split['test_rows']} test), "
          f"metric {competition.problem.metric}, best baseline {leaderboard.best['entry']} "
          f"at {leaderboard.best['score']}")
    print(f"{'phase':<28}{'ours (s)':>10}{'bare (s)':>10}{'ratio':>8}")
    for phase, ours, bare in rows:
        ratio = f"{ours / bare:.1f}x" if bare else "-"
        print(f"{phase:<28}{ours:>10.3f}{(f'{bare:.3f}' if bare is not None else '-'):>10}{ratio:>8}")
    total = sum(ours for phase, ours, _ in rows if not phase.startswith("validation"))
    print(f"{'build total (no validation)':<28}{total:>10.3f}")


if __name__ == "__main__":
    main()
