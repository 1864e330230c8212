"""Running workflow tasks' own code in the sandbox: a solver command in the solver's workspace, and the
task's grader program on submissions in a separate grading sandbox. The network is off in both.

A submission is a mapping of deliverable paths (`outputs/...`) to file text. The grader compares it with
the reference deliverables as the reference workflow writes them when run again (`rederive.py`), never with
the deliverables the task stores.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from taskforge import sandbox
from taskforge.graders.workflow.deliverables import read_tree, write_tree
from taskforge.schemas import InfrastructureError, Task, TaskforgeError
from taskforge.schemas.workflow import OUTPUTS, WorkflowGrader, WorkflowPackage
from taskforge.validators.workflow.rederive import rederived_deliverables

SOLVER_TIMEOUT_S = 60.0
GRADE_TIMEOUT_S = 60.0
STDERR_TAIL = 1000


class GradingError(TaskforgeError):
    """The task's grader program failed or answered something other than one result per submission."""


def _run(job: sandbox.Job, collected: Path) -> sandbox.Result:
    result = sandbox.run(job, collect_to=collected)
    if result.infrastructure_error:
        raise InfrastructureError(f"{job.label}: {result.infrastructure_error}")
    return result


def solver_workspace(task: Task) -> dict[str, str]:
    """The files a solver starts with: the public inputs and nothing else."""
    return dict(WorkflowPackage.of(task).inputs)


def run_solver(task: Task, command: tuple[str, ...]) -> dict[str, str]:
    """Run a solver command in a fresh copy of the solver's workspace; return what it left under outputs/."""
    with tempfile.TemporaryDirectory(prefix="taskforge-solve-") as tmp:
        workspace, collected = Path(tmp) / "workspace", Path(tmp) / "collected"
        write_tree(str(workspace), solver_workspace(task))
        _run(sandbox.Job(command=command, workspace=workspace, network=False, timeout_s=SOLVER_TIMEOUT_S,
                         collect=(OUTPUTS,), label=f"workflow-solver:{task.task_id}"), collected)
        folder = collected / OUTPUTS
        return {f"{OUTPUTS}/{p}": t for p, t in read_tree(str(folder)).items()} if folder.is_dir() else {}


def grade(task: Task, submissions: dict[str, dict[str, str]]) -> dict[str, dict[str, Any]]:
    """Grade each named submission with the task's grader program in one grading sandbox run, against the
    re-derived reference (ReferenceRunFailed when the reference workflow fails when run again)."""
    names = {name: f"s{i}" for i, name in enumerate(submissions)}
    grader = WorkflowGrader.of(task)
    program = grader.program
    files = {program.name: program.source, "spec.json": json.dumps({"deliverables": grader.specs()})}
    files.update({f"reference/{p}": t for p, t in rederived_deliverables(task).items()})
    for name, submission in submissions.items():
        files.update({f"submissions/{names[name]}/{p}": t for p, t in submission.items()})
    with tempfile.TemporaryDirectory(prefix="taskforge-grade-") as tmp:
        workspace, collected = Path(tmp) / "workspace", Path(tmp) / "collected"
        write_tree(str(workspace), files)
        (workspace / "reference").mkdir(exist_ok=True)
        command = ("python3", program.name, "spec.json", "reference", "result.json",
                   *(f"submissions/{alias}" for alias in names.values()))
        result = _run(sandbox.Job(command=command, workspace=workspace, network=False, timeout_s=GRADE_TIMEOUT_S,
                                  collect=("result.json",), label=f"workflow-grade:{task.task_id}"), collected)
        answer = collected / "result.json"
        if not result.ok or not answer.is_file():
            raise GradingError(f"the grader program failed (exit {result.exit_code}): {result.stderr[-STDERR_TAIL:]}")
        try:
            results = json.loads(answer.read_text(encoding="utf-8"))
            return {name: {"score": float(results[alias]["score"]), **results[alias]} for name, alias in names.items()}
        except (ValueError, KeyError, TypeError) as exc:
            raise GradingError(f"the grader program answered no usable result: {type(exc).__name__}: {exc}") from None
