"""Workflow descendant check, the workflow `shortcut` strategy: compares an evolved task with its ancestor and
rejects material defects (above all, a descendant its ancestor's answer would solve).

A descendant is rejected when its reference workflow fails on the evolved
inputs (run again: `rederive.py`), when the axes it records are not the axes along which it actually
differs from its ancestor, when it differs along fewer than two axes, when it
asks for exactly the ancestor's answer, or when evolution gutted its data.
"""

from __future__ import annotations

from taskforge.schemas import Task, ValidationResult
from taskforge.schemas.workflow import WorkflowPackage, changed_axes, summarize
from taskforge.validators.workflow.rederive import Rederived, rerun

MIN_AXES = 2
MIN_ROW_SHARE = 0.5
MIN_ROWS = 3


def judge(package: WorkflowPackage, again: Rederived) -> list[str]:
    """The material defects of a descendant relative to the ancestor its evolution record names, with its
    reference workflow run again on the evolved inputs."""
    evolution = package.evolution
    if evolution is None:
        return []
    failure = again.failure()
    if failure:
        return [f"on the evolved inputs, {failure}"]
    parent, child = evolution.parent, summarize(package, again.deliverables)
    defects = []
    actual, recorded = changed_axes(parent, child), set(evolution.axes)
    if actual != recorded:
        defects.append(f"records axes {sorted(recorded)} but differs from its ancestor along {sorted(actual)}")
    if len(actual) < MIN_AXES:
        defects.append(f"differs from its ancestor along {len(actual)} axis(es), fewer than {MIN_AXES}")
    if child.reference == {p: d for p, d in parent.reference.items() if p in child.reference} \
            and set(child.deliverables) <= set(parent.deliverables):
        defects.append("asks for exactly the deliverables its ancestor already answers")
    if package.generation != parent.generation + 1:
        defects.append(f"generation {package.generation} does not follow its ancestor's {parent.generation}")
    for name, rows in child.table_rows.items():
        before = parent.table_rows.get(name, rows)
        if rows < MIN_ROWS or rows < MIN_ROW_SHARE * before:
            defects.append(f"table {name} keeps {rows} of its ancestor's {before} rows")
    return defects


class DescendantCheck:
    """Rejects an evolved workflow task with material defects relative to its ancestor."""

    name = "descendant"

    def applies_to(self, task: Task) -> bool:
        return task.family == "workflow" and WorkflowPackage.of(task).evolution is not None

    def run(self, task: Task) -> ValidationResult:
        package = WorkflowPackage.of(task)
        defects = judge(package, rerun(task))
        axes = sorted(package.evolution.axes) if package.evolution else []
        return ValidationResult(check=self.name, passed=not defects, reason="; ".join(defects) or None,
                                detail={"defects": defects, "axes": axes,
                                        "operators": package.evolution.operators if package.evolution else []})
