"""How a cycle scales: N vs 10×N tasks, 1 vs 2 Dask workers, and what Prefect itself costs.

    .venv/bin/python bench/scale.py [--tasks N] [--overhead-tasks 1000] [--rounds 2] [--only-overhead]

Prints, side by side:
- wall time and peak RSS of `taskforge cycle` (thread pool) building N and 10×N
  long-context tasks, each in a fresh process and data dir: with streaming
  stages the peak grows with the batch size, not with the number of tasks;
- wall time of the same 2×N-task cycle on a local Dask cluster of 1 and of 2
  worker processes (the cycle reaches it with `--runner-address`);
- Prefect's overhead: a cycle of `--overhead-tasks` tasks (1,000 by default, where
  the goal is stated) run as a Prefect flow (one task-run thread) against the same
  stage code submitting the plain batch functions to one thread (bare), each on a
  fresh data dir, best of `--rounds` rounds; printed as a `BENCH` line too.

Every cycle reports to one Prefect API server the bench starts (its start-up is
not counted). Figures depend on the machine: say how many cores it has.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import subprocess
import sys
import tempfile
import time
import warnings
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any, Callable

from figures import emit

REPO = Path(__file__).resolve().parents[1]
sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != Path(__file__).resolve().parent]
CYCLE = ["cycle", "--family", "long_context", "--target-tokens", "4096", "--json"]


def peak_rss_of(command: Callable[[], subprocess.Popen]) -> tuple[float, float, bytes]:
    """Start a process, wait for it with `wait4`, and return its wall seconds, peak RSS (MiB) and stdout."""
    started = time.perf_counter()
    child = command()
    out = child.stdout.read()
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - started
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        raise SystemExit(f"cycle failed: {child.stderr.read().decode()[-2000:]}")
    return wall, usage.ru_maxrss / 1024, out


def cycle_process(data_dir: Path, budget: int, *extra: str) -> tuple[float, float, dict[str, Any]]:
    """Wall seconds, peak RSS (MiB) and summary of one `taskforge cycle` process."""
    wall, rss, out = peak_rss_of(lambda: subprocess.Popen(
        [sys.executable, "-m", "taskforge.flows.cli", *CYCLE, "--budget", str(budget), "--data-dir", str(data_dir), *extra],
        cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE))
    summary = json.loads(out)
    accepted = summary["families"]["long_context"]["accepted"]
    if accepted != budget:
        raise SystemExit(f"the cycle accepted {accepted} of {budget} tasks")
    return wall, rss, summary


def dask_cycle(data_dir: Path, budget: int, workers: int) -> float:
    """Wall seconds of a cycle on a local Dask cluster of `workers` single-threaded worker processes."""
    from distributed import LocalCluster

    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        wall, _, _ = cycle_process(data_dir, budget, "--task-runner", "dask", "--runner-address",
                                   cluster.scheduler_address)
    return wall


class Bare:
    """Stands in for a Prefect task: `submit` runs the plain function on a one-thread executor (as the
    flow's one task-run thread would), with the results of earlier submits among its arguments unwrapped."""

    def __init__(self, task: Any, executor: ThreadPoolExecutor):
        self.fn = task.fn
        self.executor = executor

    def submit(self, *args: Any) -> Future:
        return self.executor.submit(lambda: self.fn(*(a.result() if isinstance(a, Future) else a for a in args)))


def overhead_rounds(budget: int, root: Path, rounds: int = 2) -> tuple[float, float]:
    """Best wall seconds of the cycle's stages as a Prefect flow (one task-run thread) and as the same stage
    code submitting plain calls to one thread; the two alternate in order from round to round."""
    from prefect.task_runners import ThreadPoolTaskRunner

    import taskforge.flows.cycle as flows_cycle
    import taskforge.flows.stages as flows_stages

    prefect_tasks = {name: getattr(flows_stages, name) for name in ("diagnose_batch", "build_batch", "validate_batch")}
    arguments = dict(traces=None, budget=budget, families=["long_context"], sources={}, seed=0,
                     target_tokens=4096, cycle_id=None)
    flow = flows_cycle.run_cycle.with_options(task_runner=ThreadPoolTaskRunner(max_workers=1))

    def with_prefect(data_dir: Path) -> None:
        flow(data_dir=str(data_dir), **arguments)

    def bare(data_dir: Path) -> None:
        with ThreadPoolExecutor(1) as executor:
            for name, task in prefect_tasks.items():
                setattr(flows_stages, name, Bare(task, executor))
            try:
                flows_cycle.run_cycle.fn(data_dir=str(data_dir), **arguments)
            finally:
                for name, task in prefect_tasks.items():
                    setattr(flows_stages, name, task)

    flow(data_dir=str(root / "warm-up"), **{**arguments, "budget": 1})
    best = {"prefect": float("inf"), "bare": float("inf")}
    ways = [("prefect", with_prefect), ("bare", bare)]
    for round_ in range(rounds):
        for name, way in ways if round_ % 2 == 0 else ways[::-1]:
            started = time.perf_counter()
            way(root / f"{name}-{round_}")
            best[name] = min(best[name], time.perf_counter() - started)
    return best["prefect"], best["bare"]


def main() -> None:
    """Run the three measurements and print them side by side."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tasks", type=int, default=24,
                        help="N: tasks of the small cycle (24 fills the default thread pool with 6 batches)")
    parser.add_argument("--overhead-tasks", type=int, default=1000,
                        help="tasks of the cycle whose Prefect share is measured (the goal is stated at 1,000)")
    parser.add_argument("--rounds", type=int, default=2, help="rounds of the Prefect-share measurement")
    parser.add_argument("--only-overhead", action="store_true", help="measure the Prefect share alone")
    args = parser.parse_args()
    n = args.tasks
    logging.getLogger("distributed").setLevel(logging.ERROR)
    warnings.filterwarnings("ignore", message="Artifact creation outside of a flow", category=FutureWarning)
    os.environ.setdefault("PREFECT_LOGGING_LEVEL", "ERROR")
    os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
    os.environ.setdefault("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "180")
    os.environ.setdefault("PREFECT_HOME", tempfile.mkdtemp(prefix="taskforge-bench-prefect-"))
    from taskforge.flows.runners import share_api_with_workers

    share_api_with_workers()
    cores = os.cpu_count()
    print(f"machine: {cores} cores (shared with other work while measuring); long-context tasks, 4096 tokens")
    with tempfile.TemporaryDirectory(prefix="taskforge-bench-scale-") as tmp:
        root = Path(tmp)
        if not args.only_overhead:
            scaling(root, n)
        m = args.overhead_tasks
        with_prefect, bare = overhead_rounds(m, root / "overhead", rounds=args.rounds)
        share = (with_prefect - bare) / with_prefect
        print(f"\ncycle of {m} tasks, one thread     Prefect flow   bare calls   Prefect share")
        print(f"  wall time (s)                  {with_prefect:>11.1f} {bare:>11.1f}   {share:.1%}")
        emit(f"Prefect share of a {m}-task cycle's wall (bench/scale.py)", 100 * share, None, "%", "<= 5 %",
             f"Prefect flow {with_prefect:.1f} s vs the same stages as bare calls {bare:.1f} s")


def scaling(root: Path, n: int) -> None:
    """Wall time and peak RSS of N vs 10×N tasks, and 1 vs 2 Dask workers."""
    small = cycle_process(root / "n", n)
    large = cycle_process(root / "10n", 10 * n)
    print(f"\ncycle on the thread pool         {n:>5} tasks   {10 * n:>5} tasks   ratio")
    print(f"  wall time (s)                  {small[0]:>11.1f} {large[0]:>11.1f}   {large[0] / small[0]:.2f}")
    print(f"  peak RSS (MiB)                 {small[1]:>11.0f} {large[1]:>11.0f}   {large[1] / small[1]:.2f}")
    one = dask_cycle(root / "dask-1", 2 * n, 1)
    two = dask_cycle(root / "dask-2", 2 * n, 2)
    print(f"\ncycle of {2 * n} tasks on Dask       1 worker   2 workers   speed-up")
    print(f"  wall time (s)                  {one:>11.1f} {two:>11.1f}   {one / two:.2f}")


if __name__ == "__main__":
    main()
