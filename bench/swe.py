"""SWE build and validation cost per task, side by side with its floor: the bare test runs of the same task.

The floor is what any validation must pay: the held-out tests run once with
the test patch alone and `repeats` (3) times with the solution, timed as the
test command alone inside the sandbox session, in the task's environment.
Ours is, per task, everything the builder and the checks do for it: snapshot,
the session (workspace copy in, git apply/reset, the runs, and one more run
per shortcut patch of the `shortcut` check), statement, and the checks (no-op,
reference, leakage audit, statement, decontamination …). The environment
builds (one per recipe) are counted apart, once each, and are in the CPU-hour
figure. Mining is paid once per build and is also in the totals. CPU is this
process's and its child processes', plus, under Docker, its sandbox
containers' (`container_cpu.py`).

    python bench/swe.py [--source PATH] [--count N] [--since DATE] [--first K]

Default source: the shipped tomlkit history, whole (since ""). Use a fresh
`TASKFORGE_SWE_CACHE` to count environment builds and session runs; a second
run over the same cache shows the cross-cycle cache (runs read, not re-run).
Totals and the JSON line (stage, ours, floor, unit, goal, ratio) are printed every 10 tasks and at the end.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from container_cpu import ContainerCpu  # noqa: E402
from figures import emit  # noqa: E402
from taskforge.builders.base import BuildContext  # noqa: E402
from taskforge.builders.swe import SweBuilder  # noqa: E402
from taskforge.graders.swe.harness import cache_root  # noqa: E402
from taskforge.sandbox import default_sandbox  # noqa: E402
from taskforge.schemas import PlanItem, Task  # noqa: E402
from taskforge.validators.runner import validate  # noqa: E402
from taskforge.validators.swe.execution import outcomes_for  # noqa: E402

SAMPLE = Path(__file__).resolve().parents[1] / "data" / "samples" / "swe" / "tomlkit.bundle"
GOAL_RATIO = 1.3


def cpu_seconds() -> float:
    """CPU time of this process and the child processes it waited for (the process backend's sandboxes, git)."""
    times = os.times()
    return times.user + times.system + times.children_user + times.children_system


def main() -> None:
    """Build and validate `count` SWE tasks and print each task's cost beside its floor, then the totals."""
    with ContainerCpu() as containers:
        run(containers)


def run(containers: ContainerCpu) -> None:
    """The build and the checks, task by task, with the sandbox containers' CPU read by `containers`."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", default=str(SAMPLE), help="a git repository (path, bundle or clone URL)")
    parser.add_argument("--count", type=int, default=30)
    parser.add_argument("--since", default="", help="mine changes committed on or after this date ('' = all)")
    parser.add_argument("--first", type=int, default=0, help="skip the first K candidates")
    args = parser.parse_args()
    item = PlanItem(family="swe", capability="bench", quota=args.count, gap_ids=[], priority=1.0)
    context = BuildContext(cycle_id="bench-swe", first_index=args.first,
                           options={"source": args.source, "since": args.since})
    envs_before = set(p.name for p in (cache_root() / "envs").glob("env-*"))
    runs_before = sessions_run(0)
    started_wall, started_cpu = time.perf_counter(), cpu_seconds()
    built = SweBuilder().build(item, context)
    rows, quarantined, statuses = [], 0, {}
    print(f"backend: {default_sandbox().backend}; cache: {'warm' if envs_before else 'cold'}")
    print(f"{'instance':36} {'status':9} {'build s':>8} {'checks s':>8} {'ours s':>7} {'floor s':>7} {'ratio':>6}")
    while True:
        started = time.perf_counter()
        task = next(built, None)
        build_s = time.perf_counter() - started
        if task is None:
            break
        if not isinstance(task, Task):
            quarantined += 1
            print(f"{task.source[:36]:36} quarantined: {task.reason[:90]}")
            continue
        started = time.perf_counter()
        decided = validate(task)
        checks_s = time.perf_counter() - started
        outcomes = outcomes_for(task)
        floor = outcomes.empty.seconds + sum(run.seconds for run in outcomes.solution)
        fresh_env = task.environment["build"]["key"] not in envs_before and not any(
            r["env"] == task.environment["env"] for r in rows)
        first = not rows
        statuses[decided.status] = statuses.get(decided.status, 0) + 1
        reason = "" if decided.status == "accepted" else f"  {'; '.join(decided.reasons)[:70]}"
        print(f"{task.payload['instance_id'][:36]:36} {decided.status:9} {build_s:8.2f} {checks_s:8.2f} "
              f"{build_s + checks_s:7.2f} {floor:7.2f} {(build_s + checks_s) / floor:6.2f}"
              f"{'  +env' if fresh_env else ''}{'  +mining' if first else ''}{reason}")
        rows.append({"env": task.environment["env"], "build": build_s, "checks": checks_s, "floor": floor,
                     "status": decided.status, "fresh_env": fresh_env, "first": first})
        if len(rows) % 10 == 0:
            summarise(rows, statuses, quarantined, sessions_run(runs_before), time.perf_counter() - started_wall,
                      cpu_seconds() - started_cpu, containers)
    summarise(rows, statuses, quarantined, sessions_run(runs_before), time.perf_counter() - started_wall,
              cpu_seconds() - started_cpu, containers, final=True)


def sessions_run(runs_before: int) -> int:
    """Task sessions run so far (each leaves one run-cache entry)."""
    return len(list((cache_root() / "runs").glob("*.json"))) - runs_before


def summarise(rows: list[dict], statuses: dict[str, int], quarantined: int, sessions: int, wall: float,
              own_cpu: float, containers: ContainerCpu, final: bool = False) -> None:
    """Print the totals so far, and at the end the BENCH lines."""
    cpu = own_cpu + containers.seconds
    steady = [r for r in rows if not r["fresh_env"] and not r["first"]]
    accepted = statuses.get("accepted", 0)
    ours = statistics.median(r["build"] + r["checks"] for r in steady) if steady else float("nan")
    floor = statistics.median(r["floor"] for r in steady) if steady else float("nan")
    print(f"\ntasks {len(rows)} ({statuses}), quarantined {quarantined}; environments used "
          f"{len({r['env'] for r in rows})}, built in this run {sum(r['fresh_env'] for r in rows)}; "
          f"task sessions run {sessions} (the others' runs were read from the cache)")
    print(f"wall {wall:.1f} s, CPU {cpu:.1f} s = {own_cpu:.1f} s this process and its child processes + "
          f"{containers.seconds:.1f} s its sandbox containers"
          f"{'' if containers.available else ' (not readable here: containers not counted)'}; "
          f"wall per accepted task {wall / max(accepted, 1):.2f} s; "
          f"validated (accepted) tasks per CPU-hour {accepted * 3600 / cpu:.0f}")
    print(f"median over {len(steady)} tasks (environment built, history mined): ours {ours:.2f} s; "
          f"floor {floor:.2f} s (1 + 3 bare test runs); ratio {ours / floor:.2f} (goal <= {GOAL_RATIO})")
    if not final:
        return
    emit("SWE validation per task (bench/swe.py)", ours, floor, "s", f"<= {GOAL_RATIO}x", "1 + 3 bare test runs")
    emit("SWE validated tasks per CPU-hour", accepted * 3600 / cpu, None, "tasks/CPU-h", ">= 200 tasks/CPU-h",
         f"{len(rows)} tasks, {len({r['env'] for r in rows})} environments")

if __name__ == "__main__":
    main()
