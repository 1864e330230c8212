"""Cost of building and certifying workflow tasks, against the fixed cost of the sandbox jobs they need.

    .venv/bin/python bench/workflow.py [--seeds N] [--backend process|docker]

Builds the first N shipped seeds (each runs its reference workflow once) and
validates them (no-op, reference x2, perturbation: five more jobs), counting
sandbox jobs. Prints, side by side, seconds per task and what the same number
of trivial jobs (`true`) costs in the same backend: the share of the time that
is sandbox overhead rather than workflow and grading work. Each stage is also
a `BENCH` line (bench/figures.py): seconds per task beside those trivial jobs.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

from figures import emit

# Run as `python bench/workflow.py`, this file's folder comes first on sys.path; drop it (see bench/sandbox.py).
sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != Path(__file__).resolve().parent]

from taskforge import sandbox  # noqa: E402
from taskforge.builders.base import BuildContext  # noqa: E402
from taskforge.builders.workflow import WorkflowBuilder  # noqa: E402
from taskforge.schemas import PlanItem  # noqa: E402
from taskforge.store.layout import SAMPLES_DIR  # noqa: E402
from taskforge.validators.runner import validate  # noqa: E402


def main() -> None:
    """Build, validate, count jobs, then time the same number of trivial jobs; print the table."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", type=int, default=8)
    parser.add_argument("--backend", choices=("process", "docker"), default="process")
    args = parser.parse_args()
    backend = sandbox.get_sandbox(args.backend)
    jobs: list[float] = []

    def counted(job: sandbox.Job, collect_to: Path | None = None) -> sandbox.Result:
        started = time.perf_counter()
        result = backend.run(job, collect_to=collect_to)
        jobs.append(time.perf_counter() - started)
        return result

    sandbox.run = counted
    item = PlanItem(family="workflow", capability="bench", quota=args.seeds, gap_ids=[], priority=1.0)
    context = BuildContext(cycle_id="bench", options={"source": str(SAMPLES_DIR / "workflow_seeds")})
    started = time.perf_counter()
    tasks = list(WorkflowBuilder().build(item, context))
    built_s, build_jobs = time.perf_counter() - started, len(jobs)
    started = time.perf_counter()
    accepted = sum(validate(task).status == "accepted" for task in tasks)
    validated_s = time.perf_counter() - started
    trivial = []
    for _ in range(len(jobs)):
        begun = time.perf_counter()
        backend.run(sandbox.Job(command=("true",)))
        trivial.append(time.perf_counter() - begun)
    n = len(tasks)
    print(f"{args.backend} backend, {n} seeds ({accepted} accepted), {len(jobs)} sandbox jobs")
    print(f"{'stage':<28} {'s/task':>8} {'jobs/task':>10} {'trivial jobs s/task':>20} {'overhead':>9}")
    for stage, seconds, count in (("build (reference run)", built_s, build_jobs),
                                  ("validate (all checks)", validated_s, len(jobs) - build_jobs)):
        fixed = statistics.median(trivial) * count
        print(f"{stage:<28} {seconds / n:>8.2f} {count / n:>10.1f} {fixed / n:>20.2f} {fixed / seconds:>9.0%}")
        emit(f"workflow {stage} per task (bench/workflow.py, {args.backend})", round(seconds / n, 4),
             round(fixed / n, 4), "s", note=f"{count / n:.1f} trivial sandbox jobs (`true`), as many as it ran")


if __name__ == "__main__":
    main()
