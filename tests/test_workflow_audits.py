"""Reviewer, judge and leak finder on hand-made workflow tasks (no workflow runs): planted defects rejected."""

from __future__ import annotations

import json

import pytest

from taskforge.builders.workflow.execute import ReferenceRun
from taskforge.builders.workflow.package import to_task
from taskforge.builders.workflow.seeds import WorkflowSeed
from taskforge.schemas import Lineage, Message
from taskforge.schemas.workflow import WorkflowPackage, summarize
from taskforge.validators.runner import DEFAULT_CHECKS
from taskforge.validators.workflow.audit import PackageAudit, workflow_problems

CHECKS = {check.name: check for check in DEFAULT_CHECKS}

ITEMS = "sku,qty,price\nA-1,3,12.50\nB-2,1,99.90\nC-3,7,1.25\nD-4,2,40.00\n"
WORKFLOW = ('"""Order value per SKU and in total."""\nimport wfio\n\nrows = wfio.table("items")\n'
            'wfio.write_csv("values.csv", ["sku", "value"], [{"sku": r["sku"], "value": wfio.fmt(wfio.dec(r["qty"]) * wfio.dec(r["price"]))} for r in rows])\n')
OUTPUTS = {"outputs/values.csv": "sku,value\nA-1,37.50\nB-2,99.90\nC-3,8.75\nD-4,80.00\n",
           "outputs/total.json": json.dumps({"total": 226.15, "skus": 4})}
LINEAGE = Lineage(cycle_id="test", resource_id="workflow-seed:order-values", resource_revision="1", builder="test",
                  builder_version="0")


def _package(**changes) -> WorkflowPackage:
    base = {
        "seed_id": "order-values", "root_seed_id": "order-values", "domain": "report_generation", "title": "Order values",
        "instructions": "Compute each SKU's order value (qty x price) with {places} decimals.", "params": {"places": "2"},
        "variants": [{"axis": "operations", "params": {"places": "3"}}],
        "tables": {"items": {"describe": "order lines: sku, qty, price", "drop": 0.25}},
        "deliverables": [{"path": "outputs/values.csv", "format": "csv", "describe": "CSV with columns sku, value",
                          "key": ["sku"], "columns": {"value": {"type": "number", "abs": 0.01}}}],
        "optional_deliverables": [{"path": "outputs/total.json", "format": "json", "describe": "JSON with total and skus",
                                   "fields": {"total": {"type": "number", "abs": 0.01}, "skus": {"type": "number"}}}],
        "tools": {"python": "3.11"}, "time_budget_s": 600, "inputs": {"inputs/items.csv": ITEMS},
    }
    return WorkflowPackage.model_validate({**base, **changes})


def _task(package=None, workflow=WORKFLOW, outputs=OUTPUTS, ok=True):
    seed = WorkflowSeed(package=package or _package(), workflow=workflow)
    return to_task(seed, ReferenceRun(ok=ok, outputs=dict(outputs), detail={"exit_code": 0 if ok else 1,
                                                                           "stderr_tail": "" if ok else "KeyError: 'qty'"}),
                   "verification", LINEAGE)


def _reason(check, task) -> str | None:
    result = check.run(task)
    return None if result.passed else result.reason


def test_sound_package_passes_reviewer_and_leak_finder():
    task = _task()
    assert _reason(PackageAudit(), task) is None
    assert _reason(CHECKS["leakage"], task) is None


@pytest.mark.parametrize("plant, expected", [
    (lambda t: t.grader["deliverables"][0]["columns"]["value"].update(abs=50.0), "abs tolerance 50.0 exceeds 5%"),
    (lambda t: t.grader["deliverables"][0]["columns"].clear(), "column value is not graded"),
    (lambda t: t.grader["deliverables"].pop(), "the grader's deliverables differ from the stated ones"),
    (lambda t: t.grader["program"].update(source="print(1)"), "does not match its pinned hash"),
    (lambda t: t.prompt.__setitem__(1, Message(role="user", content="Compute values.")), "the prompt never names outputs/values.csv"),
    (lambda t: t.reference["workflow"].update({"reference.py": WORKFLOW.replace('wfio.table("items")',
                                                                           'wfio.table("items")[:0]')}),
     "the reference has no rows"),
    (lambda t: t.payload.update(time_budget_s=5), "time budget 5s outside"),
    (lambda t: t.reference["workflow"].update({"reference.py": "import socket\nimport numpy\n"}), "outside the standard library: numpy"),
])
def test_reviewer_rejects_planted_defects(plant, expected):
    task = _task()
    plant(task)
    assert expected in (_reason(PackageAudit(), task) or "")


def test_workflow_imports_network_and_process_modules_are_named():
    problems = workflow_problems({"reference.py": "import urllib.request\nfrom subprocess import run\nimport csv\n"})
    assert problems == ["reference.py imports network or process modules: subprocess, urllib"]


@pytest.mark.parametrize("plant, expected", [
    (lambda t: t.payload["inputs"].update({"inputs/expected.csv": OUTPUTS["outputs/values.csv"]}),
     "the reference outputs/values.csv is contained in inputs/expected.csv"),
    (lambda t: t.prompt.append(Message(role="user", content="Hint: C-3 comes to 8.75, B-2 to 99.90.")),
     "the prompt states computed values of outputs/values.csv: 8.75"),
    (lambda t: t.payload["inputs"].update({"inputs/reference.py": WORKFLOW}), "inputs/reference.py is a hidden file in the workspace"),
    (lambda t: t.payload["inputs"].update({"inputs/notes.txt": "see below\n" + WORKFLOW}), "reference.py is pasted into inputs/notes.txt"),
])
def test_leak_finder_rejects_planted_leaks(plant, expected):
    task = _task()
    plant(task)
    assert expected in (_reason(CHECKS["leakage"], task) or "")


def _descendant(axes, **changes):
    parent = summarize(_package(), {p: t for p, t in OUTPUTS.items() if p == "outputs/values.csv"})
    evolution = {"parent": parent.model_dump(), "parent_task_id": "workflow-parent", "operators": ["test"], "axes": axes, "seed": 1}
    return _package(generation=1, seed_id="order-values.g1-x", evolution=evolution, **changes)


FEWER_ITEMS = {"inputs/items.csv": "sku,qty,price\nA-1,3,12.50\nB-2,1,99.90\nC-3,7,1.25\n"}
FEWER_VALUES = {"outputs/values.csv": "sku,value\nA-1,37.50\nB-2,99.90\nC-3,8.75\n"}
RENAMED_QTY = {"inputs/items.csv": "sku,quantity,price\nA-1,3,12.50\nB-2,1,99.90\nC-3,7,1.25\n"}
"""Evolved inputs the reference workflow really fails on (a stored run's `ok` is never read: it runs again)."""


def test_judge_accepts_a_descendant_that_differs_along_its_recorded_axes():
    child = _descendant(["data", "operations"], inputs=FEWER_ITEMS, params={"places": "3"})
    assert _reason(CHECKS["shortcut"], _task(child, outputs=FEWER_VALUES)) is None


@pytest.mark.parametrize("axes, changes, outputs, ok, expected", [
    (["data", "operations"], {"inputs": RENAMED_QTY, "params": {"places": "3"}}, FEWER_VALUES, True,
     "descendant: on the evolved inputs, the reference workflow fails when run again (exit 1)"),
    (["data", "grading"], {"inputs": FEWER_ITEMS, "params": {"places": "3"}}, FEWER_VALUES, True,
     "records axes ['data', 'grading'] but differs from its ancestor along ['data', 'operations']"),
    (["data"], {"inputs": FEWER_ITEMS}, FEWER_VALUES, True, "fewer than 2"),
    (["operations"], {"params": {"places": "3"}}, OUTPUTS, True, "asks for exactly the deliverables its ancestor already answers"),
    (["data", "object"], {"inputs": {"inputs/items.csv": "sku,qty,price\nA-1,3,12.50\n"}, "params": {"places": "3"}},
     {"outputs/values.csv": "sku,value\nA-1,37.50\n"}, True, "table items keeps 1 of its ancestor's 4 rows"),
])
def test_judge_rejects_material_defects(axes, changes, outputs, ok, expected):
    child = _descendant(axes, **changes)
    assert expected in (_reason(CHECKS["shortcut"], _task(child, outputs=outputs, ok=ok)) or "")
