"""Workflow shortcut scores, the workflow part of the `shortcut` question: the cheap submissions of
`taskforge.graders.workflow.shortcuts` (inputs copied to outputs; well-formed deliverables with constant values)
and, for a descendant whose ancestor is landed under the data dir, the ancestor's reference, all graded by the
task's grader program in one sandbox run against the re-derived reference.

The constant shortcuts keep the reference's keys and shape, which a solver is not given: each is scored by the
share of the remaining credit it earns beyond a submission with those keys and nothing else (`keys_only`)."""

from __future__ import annotations

from taskforge.graders.workflow.shortcuts import constant_deliverables, copied_inputs
from taskforge.schemas import Task
from taskforge.schemas.locations import Location
from taskforge.schemas.workflow import WorkflowGrader, WorkflowPackage
from taskforge.validators.landed import landed_task
from taskforge.validators.workflow.grading import grade
from taskforge.validators.workflow.rederive import rederived_deliverables

KEYS_ONLY = "keys_only"
KEPT_KEYS = ("constant_zero", "constant_mode")
"""The shortcuts given the reference's keys and shape."""


def beyond_keys(score: float, keys_only: float) -> float:
    """The share of the credit a submission earns beyond what the kept keys and shape alone earn."""
    return max(0.0, (score - keys_only) / (1.0 - keys_only)) if keys_only < 1.0 else 0.0


def shortcut_submissions(task: Task, data_dir: Location | None) -> dict[str, dict[str, str]]:
    """Each shortcut's submission for the task."""
    package, specs = WorkflowPackage.of(task), WorkflowGrader.of(task).specs()
    reference = rederived_deliverables(task)
    submissions = {"copied_inputs": copied_inputs(package.inputs, specs),
                   "constant_zero": constant_deliverables(reference, specs, "zero"),
                   "constant_mode": constant_deliverables(reference, specs, "mode"),
                   KEYS_ONLY: constant_deliverables(reference, specs, "blank")}
    parent_id = task.lineage.parent_task_id
    ancestor = landed_task(data_dir, task.family, parent_id) if package.evolution and parent_id else None
    if ancestor is not None:
        submissions["ancestor_reference"] = rederived_deliverables(ancestor)
    return submissions


def workflow_shortcut_scores(data_dir: Location | None):
    """The scoring function of the workflow shortcut part (ancestors are looked up under `data_dir`)."""

    def scores(task: Task) -> dict[str, float]:
        graded = {name: result["score"] for name, result in grade(task, shortcut_submissions(task, data_dir)).items()}
        keys_only = graded.pop(KEYS_ONLY)
        return {name: beyond_keys(score, keys_only) if name in KEPT_KEYS else score for name, score in graded.items()}

    return scores
