"""The commission run's rules live in its documents: a solution that skips the plan's memos (or one kind of
them), or reads the budget rates instead of the reference rates, scores below 1, and one that ignores every
memo scores well below the solver gate's ceiling. Each shortcut is the reference itself run on inputs with
that part of the rulebook taken out, graded against the true reference with the task's own grader."""

from __future__ import annotations

import re

import pytest

from taskforge import sandbox
from taskforge.builders.workflow.execute import run_reference
from taskforge.builders.workflow.generation import generated
from taskforge.builders.workflow.seeds import WorkflowSeed, load_seed
from taskforge.graders.workflow.deliverables import grade
from conftest import SAMPLES

SEED = SAMPLES / "workflow_seeds" / "sales-commission-run"
MEMOS, FX = "inputs/plan_memos.md", "inputs/fx_rates.csv"
MEMO_KINDS = ("Void", "Territory handover", "Correction", "Rate change", "Withdrawal", "Account merger",
              "Accelerator", "Quota adjustment")
CEILING = 0.75


@pytest.fixture(scope="module")
def task():
    with pytest.MonkeyPatch.context() as patch:
        chosen = sandbox.get_sandbox("process")
        patch.setattr(sandbox, "default_sandbox", lambda: chosen)
        seed = generated(load_seed(SEED), data_seed=11, scale=0.5)
        truth = run_reference(seed)
        assert truth.ok, truth.detail
        yield seed, truth.outputs, chosen


def without_memos(text: str, kind: str) -> str:
    """The memo file with every memo of one kind (its text starting with `kind`) left out."""
    head, *memos = re.split(r"\n(?=## Memo )", text)
    return "\n".join([head, *(m for m in memos if not m.split("\n\n", 1)[1].startswith(kind))])


def budget_rates(text: str) -> str:
    """The rate file as read by a solution that takes the budget rates for the reference rates."""
    header, *rows = text.splitlines()
    return "\n".join([header, *(r.replace("budget", "reference") for r in rows if ",budget," in r)]) + "\n"


def shortcut_score(task, edited: dict[str, str]) -> float:
    seed, truth, chosen = task
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sandbox, "default_sandbox", lambda: chosen)
        package = seed.package.model_copy(update={"inputs": {**seed.package.inputs, **edited}})
        run = run_reference(WorkflowSeed(package=package, workflow=seed.workflow))
    assert run.ok, run.detail
    specs = [d.model_dump(mode="json") for d in seed.package.deliverables]
    return grade(run.outputs, truth, specs)["score"]


def test_the_reference_scores_one_and_every_memo_kind_is_present(task):
    seed, truth, _ = task
    specs = [d.model_dump(mode="json") for d in seed.package.deliverables]
    assert grade(truth, truth, specs)["score"] == 1.0
    memos = seed.package.inputs[MEMOS]
    assert all(f"\n\n{kind}" in memos for kind in MEMO_KINDS)
    assert "rate change" not in seed.package.rendered_instructions().lower()


@pytest.mark.parametrize("kind", MEMO_KINDS)
def test_skipping_one_kind_of_memo_scores_below_one(task, kind):
    assert shortcut_score(task, {MEMOS: without_memos(task[0].package.inputs[MEMOS], kind)}) < 1.0


def test_ignoring_every_memo_scores_below_the_ceiling(task):
    memos = task[0].package.inputs[MEMOS]
    assert shortcut_score(task, {MEMOS: memos.split("\n## Memo ", 1)[0] + "\n"}) < CEILING


def test_budget_rates_for_reference_rates_score_below_the_ceiling(task):
    assert shortcut_score(task, {FX: budget_rates(task[0].package.inputs[FX])}) < CEILING
