"""A workflow seed and its reference run, packed into a task envelope."""

from __future__ import annotations

import hashlib
from pathlib import Path

import taskforge.graders.workflow.deliverables as graders_workflow
from taskforge.builders.workflow.execute import ReferenceRun, workflow_files
from taskforge.builders.workflow.prompting import messages
from taskforge.builders.workflow.seeds import WorkflowSeed
from taskforge.sandbox import BASE_IMAGE
from taskforge.schemas import Lineage, Task, task_id_for
from taskforge.schemas.workflow import INPUTS, OUTPUTS

GRADER_SOURCE = Path(graders_workflow.__file__).read_text(encoding="utf-8")
GRADER_PROGRAM = {"name": "grade.py", "sha256": hashlib.sha256(GRADER_SOURCE.encode()).hexdigest(), "source": GRADER_SOURCE}
"""The grader program every workflow task carries (the standard-library grader, pinned by its hash)."""


def reference_of(seed: WorkflowSeed, run: ReferenceRun) -> dict:
    """The hidden part of a task: the required deliverables as the workflow wrote them, the workflow, the run."""
    required = [d.path for d in seed.package.deliverables]
    return {"deliverables": {p: run.outputs[p] for p in required if p in run.outputs},
            "workflow": workflow_files(seed), "run": {"ok": run.ok, **run.detail}}


def to_task(seed: WorkflowSeed, run: ReferenceRun, capability: str, lineage: Lineage) -> Task:
    """The task envelope of a seed: prompt and payload public, reference and workflow hidden."""
    package = seed.package
    payload = package.model_dump(mode="json")
    return Task(
        task_id=task_id_for("workflow", package.domain, payload),
        family="workflow", kind=package.domain, capability=capability,
        prompt=messages(package), payload=payload, reference=reference_of(seed, run),
        grader={"scorer": graders_workflow.NAME, "deliverables": [d.grading() for d in package.deliverables],
                "program": dict(GRADER_PROGRAM)},
        environment={"image": BASE_IMAGE, "tools": dict(package.tools), "time_budget_s": package.time_budget_s, "network": False,
                     "workspace": {"inputs": f"{INPUTS}/", "outputs": f"{OUTPUTS}/"}},
        lineage=lineage,
    )
