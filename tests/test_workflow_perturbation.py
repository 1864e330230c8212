"""The perturbation suite as pure functions: every kind is produced, and a sound grader scores each below 1."""

from __future__ import annotations

import json

from taskforge.graders.workflow.deliverables import grade
from taskforge.validators.workflow.perturbation import KINDS, beyond_tolerance, perturbations

SPECS = [
    {"path": "outputs/a.csv", "format": "csv", "key": ["id"], "columns": {"amount": {"type": "number", "abs": 0.01}, "city": {"type": "text"}}},
    {"path": "outputs/b.json", "format": "json", "fields": {"total": {"type": "number", "abs": 0.5}, "hosts": {"type": "set"}, "ok": {"type": "text"}}},
    {"path": "outputs/c.txt", "format": "text"},
]
REFERENCE = {
    "outputs/a.csv": "id,amount,city\nA1,12.50,Oslo\nA2,7.25,Lima\nA3,0.00,Pune\n",
    "outputs/b.json": json.dumps({"total": 19.75, "hosts": ["h1", "h2"], "ok": True}, indent=2),
    "outputs/c.txt": "Report\nTotal: 19.75\nRows: 3\n",
}


def test_every_kind_applies_to_every_format():
    suite = perturbations(REFERENCE, SPECS)
    for spec in SPECS:
        assert {p.kind for p in suite if p.path == spec["path"]} == set(KINDS), spec["path"]
    changed_columns = {p.target for p in suite if p.kind == "changed_value" and p.path == "outputs/a.csv"}
    assert changed_columns == {"id", "amount", "city"}


def test_a_sound_grader_scores_every_perturbation_below_one():
    for perturbation in perturbations(REFERENCE, SPECS):
        score = grade({**REFERENCE, perturbation.path: perturbation.text}, REFERENCE, SPECS)["score"]
        assert score < 1.0, perturbation.label


def test_an_ungraded_column_lets_its_changed_value_through():
    partial = [{**SPECS[0], "columns": {"amount": {"type": "number", "abs": 0.01}}}]
    through = [p.label for p in perturbations(REFERENCE, partial)
               if grade({**REFERENCE, p.path: p.text}, REFERENCE, partial)["score"] == 1.0]
    assert through == ["changed_value:outputs/a.csv:city"]


def test_changed_values_leave_the_tolerance():
    rule = {"abs": 0.01, "rel": 0.001}
    for value in (0.0, 0.004, 12.5, -3000.0):
        assert abs(beyond_tolerance(value, rule) - value) > rule["abs"] + rule["rel"] * abs(value)
