"""The workflow reference, re-derived: the task's shipped reference workflow run again on its inputs and
parameters in the sandbox (network off). Every workflow check that grades reads the reference from this run,
never from the deliverables the task stores.

The run is cached by the content hash of the workflow files, inputs,
parameters, pinned Python and harness (`taskforge.validators.cache`), so the
checks of one task share one run and a rerun of validation pays for none.
"""

from __future__ import annotations

from dataclasses import dataclass

from taskforge.graders.workflow.execution import HARNESS, ReferenceRun, run_workflow
from taskforge.schemas import Task, TaskforgeError
from taskforge.schemas.workflow import WorkflowGrader, WorkflowPackage, WorkflowReference
from taskforge.validators.cache import cached_run

CACHE_KIND = "workflow-reference"


class ReferenceRunFailed(TaskforgeError):
    """The shipped reference workflow fails, or leaves out a required deliverable, when it is run again."""


@dataclass(frozen=True)
class Rederived:
    """The re-run: its outputs and record, the required deliverables it wrote, and whether it came from the
    cache."""

    run: ReferenceRun
    deliverables: dict[str, str]
    missing: list[str]
    cached: bool

    def failure(self) -> str | None:
        """Why the run cannot stand for the reference (None when it can)."""
        if not self.run.ok:
            detail = self.run.detail
            why = "timed out" if detail.get("timed_out") else f"exit {detail.get('exit_code')}"
            return f"the reference workflow fails when run again ({why}): {detail.get('stderr_tail', '').strip()[-300:]}"
        if self.missing:
            return f"the reference workflow, run again, does not write {', '.join(self.missing)}"
        return None


def rerun(task: Task) -> Rederived:
    """The task's reference workflow run again on its inputs (from the cache when run before)."""
    package, workflow = WorkflowPackage.of(task), WorkflowReference.of(task).workflow
    sources = {"workflow": workflow, "inputs": package.inputs, "params": package.params,
               "python": package.tools.get("python", ""), "harness": HARNESS}

    def run() -> dict:
        done = run_workflow(workflow, package, label=f"workflow-rederive:{task.task_id}")
        return {"ok": done.ok, "outputs": done.outputs, "detail": done.detail}

    result, cached = cached_run(CACHE_KIND, sources, run, keep=lambda r: not r["detail"].get("timed_out"))
    done = ReferenceRun(ok=result["ok"], outputs=result["outputs"], detail=result["detail"])
    required = [spec.path for spec in WorkflowGrader.of(task).deliverables]
    return Rederived(run=done, deliverables={p: done.outputs[p] for p in required if p in done.outputs},
                     missing=[p for p in required if p not in done.outputs], cached=cached)


def rederived_deliverables(task: Task) -> dict[str, str]:
    """The required deliverables as the reference workflow writes them now; ReferenceRunFailed when it cannot."""
    again = rerun(task)
    failure = again.failure()
    if failure:
        raise ReferenceRunFailed(failure)
    return again.deliverables
