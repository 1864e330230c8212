"""Running an MLE leaderboard's baselines in the sandbox, network off: the builder runs them to make the leaderboard,
the checks run them again to re-derive its scores and medal thresholds.

The job runs `baselines.py` (beside this module; it imports nothing from
taskforge) on a plan (columns, task, prediction format, the entries to fit) and
the public train and test files only, in the sandbox's `science` environment.
"""

from __future__ import annotations

import json
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from taskforge.sandbox import Job, Sandbox
from taskforge.schemas import InfrastructureError, TaskforgeError

BASELINE_SCRIPT = Path(__file__).with_name("baselines.py")
BASELINE_TIMEOUT_S = 1800.0
"""The limit of one leaderboard job: fifteen entries, four of them searched and a stack, on up to 2 MiB of data
(a loaded shared machine takes several times what an idle one does: bike sharing ran past 600 s at a load of 10
on 2 cores)."""
BASELINE_MEMORY_MB = 2048
BASELINE_ENVIRONMENT = "science"
"""The sandbox's Python environment with numpy, pandas and scikit-learn."""
MISSING_PACKAGES_EXIT = 3
"""The baseline script's exit code when numpy, pandas or scikit-learn cannot be imported."""
NO_INTERPRETER_EXIT = 127
SEARCH_ITERATIONS = 10
"""Candidates each randomised search tries (with `CV_FOLDS`-fold cross-validation)."""
CV_FOLDS = 3
SEARCH_ROWS = 4000
"""A search runs on a seeded subsample of at most this many training rows; the chosen model sees them all."""


class BaselineError(TaskforgeError):
    """The baselines could not produce a usable leaderboard for a competition."""


class BaselineEnvironmentError(InfrastructureError):
    """The sandbox has no Python with the baselines' packages: no dataset can be built until it has."""


@dataclass(frozen=True)
class BaselineRuns:
    """What the sandbox returned: each entry's submission text (or error), and how long the job took."""

    submissions: dict[str, str]
    errors: dict[str, str]
    seconds: float
    backend: str


def search_settings(search_iterations: int = SEARCH_ITERATIONS) -> dict[str, int]:
    """How the plan's tuned entries search: the builder stores these with the task, the checks rerun with them."""
    return {"search_iterations": search_iterations, "cv_folds": CV_FOLDS, "search_rows": SEARCH_ROWS}


def baseline_workspace(plan: dict[str, Any], public: dict[str, str], root: Path) -> Path:
    """A folder with the public train and test files, the script and its plan (nothing private)."""
    workspace = root / "workspace"
    (workspace / "public").mkdir(parents=True)
    for name in ("train.csv", "test.csv"):
        (workspace / "public" / name).write_text(public[name], encoding="utf-8")
    shutil.copyfile(BASELINE_SCRIPT, workspace / BASELINE_SCRIPT.name)
    (workspace / "plan.json").write_text(json.dumps(plan), encoding="utf-8")
    return workspace


def run_plan(plan: dict[str, Any], public: dict[str, str], sandbox: Sandbox, label: str,
             python_env: str | None = BASELINE_ENVIRONMENT) -> BaselineRuns:
    """Run every entry of a baseline plan in one sandbox job with the network off; return their submissions."""
    with tempfile.TemporaryDirectory(prefix="taskforge-mle-") as tmp:
        root = Path(tmp)
        job = Job(command=("python3", BASELINE_SCRIPT.name, "plan.json"), python_env=python_env,
                  workspace=baseline_workspace(plan, public, root), network=False,
                  timeout_s=BASELINE_TIMEOUT_S, memory_mb=BASELINE_MEMORY_MB,
                  env=(("OMP_NUM_THREADS", "1"), ("OPENBLAS_NUM_THREADS", "1")),
                  collect=("submissions",), label=label)
        started = time.perf_counter()
        result = sandbox.run(job, collect_to=root / "out")
        seconds = time.perf_counter() - started
        if result.infrastructure_error:
            raise InfrastructureError(f"{label}: {result.infrastructure_error}")
        if result.exit_code in (MISSING_PACKAGES_EXIT, NO_INTERPRETER_EXIT) and not result.timed_out:
            raise BaselineEnvironmentError(f"the {result.backend} sandbox cannot run the baselines: "
                                           f"{result.stderr.strip()[-300:]}")
        if not result.ok:
            why = "timed out" if result.timed_out else "ran out of memory" if result.oom_killed else \
                f"exited with {result.exit_code}"
            raise BaselineError(f"the baseline job {why}: {result.stderr.strip()[-500:]}")
        folder = root / "out" / "submissions"
        runs = json.loads((folder / "runs.json").read_text(encoding="utf-8"))
        submissions = {name: (folder / f"{name}.csv").read_text(encoding="utf-8")
                       for name, run in runs.items() if run["ok"]}
        errors = {name: run["error"] for name, run in runs.items() if not run["ok"]}
    return BaselineRuns(submissions=submissions, errors=errors, seconds=seconds, backend=result.backend)
