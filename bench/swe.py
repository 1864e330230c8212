"""SWE validation cost per task, side by side with its floor: twice the bare run of the same tests.

The floor is what any validation must pay: the held-out tests run once
without and once with the solution. The bare run is the test command alone,
timed inside the checks' sandbox session, in the task's environment (nothing
of the repository runs outside the sandbox). Ours is, start to removal, the
builder's harvest (snapshot, one session: install, 1 run without and 3 with
the solution; for the first task of a version also mining and the
environment build, marked `+env` and left out of the medians) plus the
checks (one session: install, 1 run with the empty patch, 2 with the solution).

    python bench/swe.py --source PATH_OR_URL [--count N] [--first K]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from taskforge.builders.base import BuildContext  # noqa: E402
from taskforge.builders.swe import SweBuilder  # noqa: E402
from taskforge.schemas import PlanItem, Task  # noqa: E402
from taskforge.validators.runner import validate  # noqa: E402
from taskforge.validators.swe.execution import outcomes_for  # noqa: E402


def main() -> None:
    """Build and validate `count` SWE tasks and print each task's cost beside its floor."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", required=True, help="a git repository (path or clone URL)")
    parser.add_argument("--count", type=int, default=6)
    parser.add_argument("--first", type=int, default=0, help="skip the newest K candidates")
    args = parser.parse_args()
    item = PlanItem(family="swe", capability="bench", quota=args.count, gap_ids=[], priority=1.0)
    context = BuildContext(cycle_id="bench-swe", first_index=args.first, options={"source": args.source})
    built = SweBuilder().build(item, context)
    rows, versions = [], set()
    print(f"{'instance':34} {'status':9} {'build s':>8} {'checks s':>8} {'ours s':>8} {'bare s':>7} {'floor s':>8} "
          f"{'ours/floor':>10}")
    while True:
        started = time.perf_counter()
        task = next(built, None)
        build_s = time.perf_counter() - started
        if task is None:
            break
        if not isinstance(task, Task):
            print(f"{task.source[:34]:34} quarantined: {task.reason[:80]}")
            continue
        started = time.perf_counter()
        decided = validate(task)
        checks_s = time.perf_counter() - started
        bare = min(run.seconds for run in [outcomes_for(task).empty, *outcomes_for(task).solution])
        first = task.payload["version"] not in versions
        versions.add(task.payload["version"])
        ours = build_s + checks_s
        print(f"{task.payload['instance_id'][:34]:34} {decided.status:9} {build_s:8.2f} {checks_s:8.2f} {ours:8.2f} "
              f"{bare:7.2f} {2 * bare:8.2f} {ours / (2 * bare):10.1f}{'  +env' if first else ''}")
        if not first:
            rows.append((build_s, checks_s, bare))
    if rows:
        build = statistics.median(b for b, _, _ in rows)
        checks = statistics.median(c for _, c, _ in rows)
        ours = statistics.median(b + c for b, c, _ in rows)
        floor = statistics.median(2 * bare for _, _, bare in rows)
        print(f"median over {len(rows)} tasks (environment already built): build {build:.2f} s + checks "
              f"{checks:.2f} s, ours {ours:.2f} s; floor {floor:.2f} s (2 x bare run); ratio {ours / floor:.1f}")


if __name__ == "__main__":
    main()
