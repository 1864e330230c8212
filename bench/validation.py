"""Validation cost per task, per family: every check run again on stored task rows (as `taskforge validate` does).

    .venv/bin/python bench/validation.py [FILES ...] [--data-dir DIR] [--repeats N]

FILES are Parquet files of tasks (default: the shards `make run` landed under
`data/out/shards/`); `--data-dir` is where their collection snapshots and
evaluation sets live (default `data/out`). Each task is validated `--repeats`
times: the first run pays for what the checks re-derive (give an empty
`$TASKFORGE_VALIDATION_CACHE` to measure that from nothing), the later ones read
it from the validation cache. The script prints, per family, the wall seconds
per task of the first run and the median of the later ones, the sandbox jobs
each costs, the seconds per question (first run), and beside them the floor:
one trivial sandbox job (`true`) in the same backend, the least a check that
runs a task's code pays. It only calls `default_checks` and `validate`, so it
also measures an older checkout (see bench/README.md: validation before and
after re-derivation).
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
    parser.add_argument("--repeats", type=int, default=3, help="validations of each task (at least 2)")
    args = parser.parse_args()
    files = args.files or [Path(p) for p in sorted(glob.glob(str(args.data_dir / "shards" / "*" / "*.parquet")))]
    if not files:
        sys.exit(f"no task files given and none under {args.data_dir / 'shards'}: run `make run` first")
    tasks = [task for path in files for task in iter_batch(path, Task)]
    backend = sandbox.default_sandbox()
    jobs = counting_jobs(backend)
    checks = default_checks(args.data_dir)
    first: dict[str, list[tuple[float, int]]] = defaultdict(list)
    again: dict[str, list[tuple[float, int]]] = defaultdict(list)
    per_question: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    statuses: dict[str, list[str]] = defaultdict(list)
    for task in tasks:
        runs = []
        for _ in range(max(args.repeats, 2)):
            before = len(jobs)
            begun = time.perf_counter()
            decided = validate(task, checks)
            runs.append((time.perf_counter() - begun, len(jobs) - before, decided))
        first[task.family].append(runs[0][:2])
        again[task.family].append(sorted(run[:2] for run in runs[1:])[(len(runs) - 1) // 2])
        statuses[task.family].append(runs[0][2].status)
        for result in runs[0][2].validation:
            per_question[task.family][result.check].append(result.duration_s or 0.0)
    floor = trivial_job_s(backend)
    print(f"{len(tasks)} tasks from {len(files)} file(s); backend {backend.backend}; one trivial job {floor:.3f} s")
    for family in sorted(first):
        cold, warm = first[family], again[family]
        accepted = statuses[family].count("accepted")
        questions = ", ".join(f"{q} {statistics.mean(v):.3f}" for q, v in per_question[family].items())
        print(f"{family}: {len(cold)} tasks ({accepted} accepted); first run {_mean(cold, 0):.3f} s/task, "
              f"{_mean(cold, 1):.1f} sandbox jobs/task; again {_mean(warm, 0):.3f} s/task, {_mean(warm, 1):.1f} "
              f"jobs/task; per question, first run (s): {questions}")
        for stage, runs in (("first run", cold), ("again", warm)):
            emit(f"validation per task, {family}, {stage} (bench/validation.py)", round(_mean(runs, 0), 4),
                 round(floor, 4), "s", "", f"floor: one trivial sandbox job; {len(runs)} stored tasks, "
                 f"{_mean(runs, 1):.1f} jobs/task")


def _mean(runs: list[tuple[float, int]], field: int) -> float:
    return statistics.mean(run[field] for run in runs)


if __name__ == "__main__":
    main()
