"""Running a seed's reference workflow in the sandbox: the run that produces the hidden reference (the runner
itself is shared with the checks that re-derive the reference: `taskforge.graders.workflow.execution`)."""

from __future__ import annotations

from pathlib import Path

from taskforge.builders.workflow.seeds import WORKFLOW_FILE, WorkflowSeed
from taskforge.graders.workflow.execution import ReferenceRun, run_workflow

WFIO_SOURCE = Path(__file__).with_name("wfio.py").read_text(encoding="utf-8")

__all__ = ["ReferenceRun", "run_reference", "workflow_files"]


def workflow_files(seed: WorkflowSeed) -> dict[str, str]:
    """The hidden files of a seed's workflow, as they sit beside its inputs."""
    return {WORKFLOW_FILE: seed.workflow, "wfio.py": WFIO_SOURCE}


def run_reference(seed: WorkflowSeed) -> ReferenceRun:
    """Execute the reference workflow on the seed's inputs inside the sandbox, network off."""
    return run_workflow(workflow_files(seed), seed.package, label=f"workflow-reference:{seed.package.seed_id}")
