"""SWE validation cost per task, side by side with its floor: twice the bare run of the same tests.

The floor is what any validation must pay: the held-out tests run once
without and once with the solution. The bare run is the test command alone,
timed inside the same sandbox session and environment (nothing of the
repository runs outside the sandbox). Ours is the builder's harvest (one
session: install, 1 run without, `repeats` runs with the solution) plus the
checks (one session: install, 1 run with the empty patch, 2 with the
solution), start to removal.

    python bench/swe.py --source PATH_OR_URL [--count N] [--first K]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from builders.base import BuildContext  # noqa: E402
from builders.swe import SweBuilder  # noqa: E402
from schemas import PlanItem  # noqa: E402
from validators.runner import validate  # noqa: E402


def main() -> None:
    """Build and validate `count` SWE tasks and print each task's cost beside its floor."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", required=True, help="a git repository (path or clone URL)")
    parser.add_argument("--count", type=int, default=6)
    parser.add_argument("--first", type=int, default=0, help="skip the newest K candidates")
    args = parser.parse_args()
    item = PlanItem(family="swe", capability="bench", quota=args.count, gap_ids=[], priority=1.0)
    context = BuildContext(cycle_id="bench-swe", first_index=args.first, options={"source": args.source})
    rows = []
    built = SweBuilder().build(item, context)
    while True:
        started = time.perf_counter()
        task = next(built, None)
        if task is None:
            break
        build_s = time.perf_counter() - started
        started = time.perf_counter()
        decided = validate(task)
        validate_s = time.perf_counter() - started
        harvest = task.environment.get("harvest", {})
        runs = [harvest["empty"]["seconds"]] + [r["seconds"] for r in harvest.get("solution", [])] if "empty" in harvest else []
        bare = min(runs) if runs else float("nan")
        rows.append((task.payload["instance_id"], decided.status, harvest.get("session_s", float("nan")), build_s,
                     validate_s, bare))
    print(f"{'instance':40} {'status':9} {'harvest s':>9} {'build s':>8} {'checks s':>8} {'ours s':>8} "
          f"{'floor s':>8} {'ours/floor':>10}")
    for instance, status, harvest_s, build_s, validate_s, bare in rows:
        ours = harvest_s + validate_s
        print(f"{instance[:40]:40} {status:9} {harvest_s:9.2f} {build_s:8.2f} {validate_s:8.2f} {ours:8.2f} "
              f"{2 * bare:8.2f} {ours / (2 * bare):10.1f}")
    valid = [r for r in rows if r[5] == r[5]]
    if valid:
        ours = statistics.median(r[2] + r[4] for r in valid)
        floor = statistics.median(2 * r[5] for r in valid)
        print(f"median per task: ours {ours:.2f} s (harvest + checks), floor {floor:.2f} s (2 x bare run), "
              f"ratio {ours / floor:.1f}; build s includes the environment build of the first task of a version")


if __name__ == "__main__":
    main()
