"""How a cycle scales: N vs 10×N tasks, 1 vs 2 Dask workers, and what Prefect itself costs.

    .venv/bin/python bench/scale.py [--tasks N] [--overhead-tasks 1000] [--rounds 2] [--only-overhead]

Prints, side by side:
- wall time and peak RSS of `taskforge cycle` (thread pool) building N and 10×N
  long-context tasks, each in a fresh process and data dir: with streaming
  stages the peak grows with the batch size, not with the number of tasks;
- wall time of the same 2×N-task cycle on a local Dask cluster of 1 and of 2
  worker processes (the cycle reaches it with `--runner-address`);
- Prefect's overhead: a cycle of `--overhead-tasks` tasks (1,000 by default, where
  the goal is stated) run as a Prefect flow (one task-run thread) and as the same
  stage code submitting the plain batch functions to one thread (bare), each on a
  fresh data dir, best of `--rounds` rounds. Prefect's share is what only Prefect
  runs, in CPU seconds: the flow process's CPU outside its main thread and outside
  the batch functions' bodies (Prefect's task engine, event loops, event and log
  workers) less the same sum in the bare way (Arrow's threads, the executor), plus
  the Prefect API server's process, over the flow process's and the server's CPU.
  Prefect's flow engine in the main thread is not told apart (the main thread's CPU
  of both ways is printed). The difference from the bare way, CPU and wall, is
  printed beside it, but on a machine shared with other work both measure that work
  more than Prefect: the one-round wall difference of the same 1,000-task cycle came
  out +19 %, -17 % and -21 % in three runs, and the flow process's CPU of either way
  moved by 10 % from run to run. On a machine with a core to spare the server's CPU
  runs beside the flow, so the CPU share bounds the wall share from above. Printed
  as a `BENCH` line too.

Every cycle reports to one Prefect API server the bench starts (its start-up is
not counted; with `PREFECT_API_URL` set to a server elsewhere its CPU cannot be
read and only the flow process counts). Figures depend on the machine: say how
many cores it has.
"""

from __future__ import annotations

import argparse
import functools
import json
import logging
import os
import subprocess
import sys
import tempfile
import threading
import time
import warnings
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, Callable

import psutil
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


class BodyClock:
    """Thread CPU seconds spent inside the batch functions' bodies, summed over every thread that ran one."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.lock = threading.Lock()

    def wrap(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        """`fn`, adding the CPU time of each call's thread to `seconds`."""
        @functools.wraps(fn)
        def timed(*args: Any, **kwargs: Any) -> Any:
            started = time.thread_time()
            try:
                return fn(*args, **kwargs)
            finally:
                with self.lock:
                    self.seconds += time.thread_time() - started
        return timed


class Bare:
    """Stands in for a Prefect task: `submit` runs the plain function on a one-thread executor (as the
    flow's one task-run thread would), with the results of earlier submits among its arguments unwrapped."""

    def __init__(self, fn: Callable[..., Any], executor: ThreadPoolExecutor):
        self.fn = fn
        self.executor = executor

    def submit(self, *args: Any) -> Future:
        return self.executor.submit(lambda: self.fn(*(a.result() if isinstance(a, Future) else a for a in args)))


@dataclass(frozen=True)
class Cost:
    """CPU and wall seconds of one way of running the cycle. `process` is every thread of this process; `flow` its
    main thread (the stages' own code, Prefect's flow engine); `bodies` the batch functions' bodies; the rest
    of the process (`engine`) is what runs around them: Prefect's task engine, event loops and event and log
    workers, or the bare way's executor, and either way Arrow's threads. `server` is the Prefect API server's
    process."""

    wall: float
    process: float
    flow: float
    bodies: float
    server: float

    @property
    def engine(self) -> float:
        return self.process - self.flow - self.bodies


def server_processes() -> list[psutil.Process]:
    """The processes this bench started that are still running when the overhead is measured: the API server."""
    return psutil.Process().children(recursive=True)


def measured(way: Callable[[BodyClock], None], servers: list[psutil.Process]) -> Cost:
    """Run `way` with a fresh body clock and return what it cost."""
    def server_cpu() -> float:
        return sum(sum(process.cpu_times()[:2]) for process in servers)

    clock = BodyClock()
    started, process, flow, serving = time.perf_counter(), time.process_time(), time.thread_time(), server_cpu()
    way(clock)
    return Cost(time.perf_counter() - started, time.process_time() - process, time.thread_time() - flow,
                clock.seconds, server_cpu() - serving)


def overhead_rounds(budget: int, root: Path, rounds: int = 2) -> dict[str, Cost]:
    """Best costs (each figure its minimum over rounds) of the cycle's stages as a Prefect flow (one task-run
    thread) and as the same stage code submitting plain calls to one thread; the two alternate in order from
    round to round. Either way the batch functions run under a body clock."""
    from prefect.task_runners import ThreadPoolTaskRunner

    import taskforge.flows.cycle as flows_cycle
    import taskforge.flows.stages as flows_stages

    prefect_tasks = {name: getattr(flows_stages, name) for name in ("diagnose_batch", "build_batch", "validate_batch")}
    arguments = dict(traces=None, budget=budget, families=["long_context"], sources={}, seed=0,
                     target_tokens=4096, cycle_id=None)
    flow = flows_cycle.run_cycle.with_options(task_runner=ThreadPoolTaskRunner(max_workers=1))

    def clocked(clock: BodyClock, executor: ThreadPoolExecutor | None) -> dict[str, Any]:
        """The batch tasks with their bodies clocked: Prefect tasks, or (given an executor) bare stand-ins."""
        tasks = {}
        for name, task in prefect_tasks.items():
            if executor is None:
                tasks[name] = task.with_options()
                tasks[name].fn = clock.wrap(task.fn)
            else:
                tasks[name] = Bare(clock.wrap(task.fn), executor)
        return tasks

    def run(data_dir: Path, clock: BodyClock, bare: bool) -> None:
        with ThreadPoolExecutor(1) as executor:
            for name, task in clocked(clock, executor if bare else None).items():
                setattr(flows_stages, name, task)
            try:
                (flows_cycle.run_cycle.fn if bare else flow)(data_dir=str(data_dir), **arguments)
            finally:
                for name, task in prefect_tasks.items():
                    setattr(flows_stages, name, task)

    flow(data_dir=str(root / "warm-up"), **{**arguments, "budget": 1})
    servers = server_processes()
    costs: dict[str, list[Cost]] = {"prefect": [], "bare": []}
    ways = ["prefect", "bare"]
    for round_ in range(rounds):
        for name in ways if round_ % 2 == 0 else ways[::-1]:
            costs[name].append(measured(lambda clock: run(root / f"{name}-{round_}", clock, name == "bare"), servers))
    return {name: Cost(*(min(getattr(c, f.name) for c in runs) for f in fields(Cost)))
            for name, runs in costs.items()}


def print_overhead(m: int, costs: dict[str, Cost]) -> None:
    """Print the Prefect flow's costs beside the bare calls' and Prefect's share; emit the share."""
    ours, bare = costs["prefect"], costs["bare"]
    total = ours.process + ours.server
    engine = ours.engine - bare.engine
    share = (engine + ours.server) / total
    print(f"\ncycle of {m} tasks, one thread             Prefect flow   bare calls")
    rows = [("wall time (s)", ours.wall, bare.wall), ("CPU of the flow process (s)", ours.process, bare.process),
            ("  the batch functions' bodies", ours.bodies, bare.bodies), ("  the flow's thread", ours.flow, bare.flow),
            ("  the rest: task engine, workers", ours.engine, bare.engine),
            ("CPU of the API server (s)", ours.server, 0.0)]
    for label, prefect_figure, bare_figure in rows:
        print(f"  {label:<36} {prefect_figure:>10.1f} {bare_figure:>11.1f}")
    print(f"Prefect share of the cycle's CPU: (task engine and workers {engine:.1f} s beyond the bare calls' rest + "
          f"API server {ours.server:.1f} s) / {total:.1f} s = {share:.1%}")
    print(f"by difference from the bare calls (load average now {os.getloadavg()[0]:.1f}): CPU "
          f"{(total - bare.process) / total:.1%}, wall {(ours.wall - bare.wall) / ours.wall:.1%}")
    emit(f"Prefect share of a {m}-task cycle (bench/scale.py, CPU)", 100 * share, None, "%", "<= 5 %",
         f"Prefect's task engine and workers {engine:.1f} CPU s + API server {ours.server:.1f} CPU s of "
         f"{total:.1f} CPU s; bare calls {bare.process:.1f} CPU s; wall {ours.wall:.1f} s vs {bare.wall:.1f} s")


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
        print_overhead(m, overhead_rounds(m, root / "overhead", rounds=args.rounds))


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
