"""Validation cost per task, per family: every check run again on stored task rows (as `taskforge validate` does).

    .venv/bin/python bench/validation.py [FILES ...] [--data-dir DIR] [--repeats N]

FILES are Parquet files of tasks (default: the shards `make run` landed under
`data/out/shards/`); `--data-dir` is where their collection snapshots and
evaluation sets live (default `data/out`). Each task is validated `--repeats`
times (the first run fills the caches of re-derived runs; the figure is the
median); the script prints, per family, the wall seconds per task, the sandbox
jobs a task costs, the seconds per question, and beside them the floor: one
trivial sandbox job (`true`) in the same backend, the least a check that runs a
task's code pays.
"""

from __future__ import annotations

import argparse
import glob
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

# Run as `python bench/validation.py`, this file's folder comes first on sys.path; drop it (see bench/sandbox.py).
_HERE = Path(__file__).resolve().parent
sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != _HERE]

from taskforge import sandbox  # noqa: E402
from taskforge.schemas import Task  # noqa: E402
from taskforge.store.batches import iter_batch  # noqa: E402
from taskforge.store.layout import DEFAULT_DATA_DIR  # noqa: E402
from taskforge.validators.runner import default_checks, validate  # noqa: E402

sys.path.insert(0, str(_HERE))
from figures import emit  # noqa: E402


def counting_jobs(backend: sandbox.Sandbox) -> list[float]:
    """Count (and time) every job and session the backend starts from now on."""
    started: list[float] = []
    kind = type(backend)
    run, session = kind.run, kind.session

    def counted_run(self, job, collect_to=None):
        started.append(time.perf_counter())
        return run(self, job, collect_to=collect_to)

    def counted_session(self, job):
        started.append(time.perf_counter())
        return session(self, job)

    kind.run, kind.session = counted_run, counted_session
    return started


def trivial_job_s(backend: sandbox.Sandbox, runs: int = 5) -> float:
    """Median wall seconds of a job running `true` in the backend."""
    times = []
    for _ in range(runs):
        begun = time.perf_counter()
        backend.run(sandbox.Job(command=("true",), network=False, label="bench-validation-floor"))
        times.append(time.perf_counter() - begun)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("files", nargs="*", type=Path)
    parser.add_argument("--data-dir", type=Path, default=DEFAULT_DATA_DIR)
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()
    files = args.files or [Path(p) for p in sorted(glob.glob(str(args.data_dir / "shards" / "*" / "*.parquet")))]
    if not files:
        sys.exit(f"no task files given and none under {args.data_dir / 'shards'}: run `make run` first")
    tasks = [task for path in files for task in iter_batch(path, Task)]
    backend = sandbox.default_sandbox()
    jobs = counting_jobs(backend)
    checks = default_checks(args.data_dir)
    wall: dict[str, list[float]] = defaultdict(list)
    per_question: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    job_counts: dict[str, list[int]] = defaultdict(list)
    statuses: dict[str, list[str]] = defaultdict(list)
    for task in tasks:
        runs = []
        for _ in range(args.repeats):
            before = len(jobs)
            begun = time.perf_counter()
            decided = validate(task, checks)
            runs.append((time.perf_counter() - begun, len(jobs) - before, decided))
        seconds, count, decided = sorted(runs, key=lambda run: run[0])[len(runs) // 2]
        wall[task.family].append(seconds)
        job_counts[task.family].append(count)
        statuses[task.family].append(decided.status)
        for result in decided.validation:
            per_question[task.family][result.check].append(result.duration_s or 0.0)
    floor = trivial_job_s(backend)
    print(f"{len(tasks)} tasks from {len(files)} file(s); backend {backend.backend}; one trivial job {floor:.3f} s")
    for family in sorted(wall):
        times = wall[family]
        accepted = statuses[family].count("accepted")
        questions = ", ".join(f"{q} {statistics.mean(v):.3f}" for q, v in per_question[family].items())
        print(f"{family}: {len(times)} tasks ({accepted} accepted), {statistics.mean(times):.3f} s/task, "
              f"{statistics.mean(job_counts[family]):.1f} sandbox jobs/task; per question (s): {questions}")
        emit(f"validation per task, {family} (bench/validation.py)", round(statistics.mean(times), 4),
             round(floor, 4), "s", "", f"floor: one trivial sandbox job; {len(times)} stored tasks, "
             f"{statistics.mean(job_counts[family]):.1f} jobs/task, median of {args.repeats} runs")


if __name__ == "__main__":
    main()
