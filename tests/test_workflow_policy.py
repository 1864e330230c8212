"""The shipped seeds' rules live in their documents: a solution that skips one kind of the dated memos, notices
or notes scores below 1, and one that ignores them all, or reads the policy's other rules wrongly (budget rates
for reference rates, one rate set for the year, every customer in scope), scores below the solver gate's
ceiling. Each shortcut is the seed's reference itself run on inputs with that part of the rulebook taken out or
misread, graded against the true reference with the task's own grader."""

from __future__ import annotations

import re

import pytest

from taskforge import sandbox
from taskforge.builders.workflow.execute import run_reference
from taskforge.builders.workflow.generation import generated
from taskforge.builders.workflow.seeds import WorkflowSeed, load_seed
from taskforge.graders.workflow.deliverables import grade
from conftest import SAMPLES

SEEDS = SAMPLES / "workflow_seeds"
RULEBOOKS = {
    "sales-commission-run": ("inputs/plan_memos.md", "Memo", ("Void", "Territory handover", "Correction", "Rate change",
                                                             "Withdrawal", "Account merger", "Accelerator",
                                                             "Quota adjustment")),
    "ap-three-way-match": ("inputs/vendor_notices.md", "Notice", ("Void", "Tolerance", "Payment terms", "Payment hold",
                                                                 "Hold released")),
    "subscription-mrr-bridge": ("inputs/finance_notes.md", "Note", ("Reversal",)),
}
KEPT = ("Rename",)
"""Notices a shortcut keeps even when it ignores the rest: without them a renamed supplier is unknown and the
shortcut fails outright instead of scoring low."""
FX, CUSTOMERS, POLICY = "inputs/fx_rates.csv", "inputs/customers.csv", "inputs/revenue_policy.md"
CEILING = 0.75
IGNORING_CEILINGS = {"subscription-mrr-bridge": 0.65}
"""Tighter ceilings for ignoring every dated rule: the MRR bridge's notes only reverse events (about one in a
hundred), yet a bridge that ignores them is wrong in most months' openings, closings and movements."""


@pytest.fixture(scope="module")
def backend():
    with pytest.MonkeyPatch.context() as patch:
        chosen = sandbox.get_sandbox("process")
        patch.setattr(sandbox, "default_sandbox", lambda: chosen)
        yield


@pytest.fixture(scope="module")
def built(backend):
    tasks = {}
    for name in RULEBOOKS:
        seed = generated(load_seed(SEEDS / name), data_seed=11, scale=0.5)
        truth = run_reference(seed)
        assert truth.ok, truth.detail
        tasks[name] = (seed, truth.outputs)
    return tasks


def without(text: str, heading: str, kinds: tuple[str, ...], keep: bool = False) -> str:
    """The rulebook with every entry whose text starts with one of `kinds` left out (or, with `keep`, every
    other entry)."""
    head, *entries = re.split(rf"\n(?=## {heading} )", text)
    return "\n".join([head, *(e for e in entries if e.split("\n\n", 1)[1].startswith(kinds) == keep)])


def budget_rates(inputs: dict[str, str]) -> dict[str, str]:
    """The commission run as read by a solution that takes the budget rates for the reference rates."""
    header, *rows = inputs[FX].splitlines()
    return {FX: "\n".join([header, *(r.replace("budget", "reference") for r in rows if ",budget," in r)]) + "\n"}


def one_rate_set(inputs: dict[str, str]) -> dict[str, str]:
    """The MRR bridge as read by a solution that converts every month at the first set of budget rates."""
    header, *rows = inputs[FX].splitlines()
    first = rows[0].split(",")[0]
    return {FX: "\n".join([header, *(r for r in rows if r.startswith(first))]) + "\n"}


def everyone_in_scope(inputs: dict[str, str]) -> dict[str, str]:
    """The MRR bridge as read by a solution that keeps partner-channel customers and test tenants."""
    return {CUSTOMERS: inputs[CUSTOMERS].replace(",partner", ",via-partner"),
            POLICY: re.sub(r"as well: [^.]+\.", "as well: none.", inputs[POLICY])}


MISREADINGS = {("sales-commission-run", budget_rates), ("subscription-mrr-bridge", one_rate_set),
               ("subscription-mrr-bridge", everyone_in_scope)}
MISREADING_CEILINGS = {one_rate_set: 0.55}
"""Tighter ceilings for some misreadings: the MRR bridge's budget rates are re-forecast in spring and in
autumn, so one rate set for the year gets the EUR totals right in at most four of its twelve months."""


def shortcut_score(built, name: str, edited: dict[str, str]) -> float:
    seed, truth = built[name]
    package = seed.package.model_copy(update={"inputs": {**seed.package.inputs, **edited}})
    run = run_reference(WorkflowSeed(package=package, workflow=seed.workflow))
    assert run.ok, run.detail
    return grade(run.outputs, truth, [d.model_dump(mode="json") for d in seed.package.deliverables])["score"]


@pytest.mark.parametrize("name", RULEBOOKS)
def test_the_reference_scores_one_and_the_request_leaves_the_rules_to_the_documents(built, name):
    seed, truth = built[name]
    path, heading, kinds = RULEBOOKS[name]
    assert grade(truth, truth, [d.model_dump(mode="json") for d in seed.package.deliverables])["score"] == 1.0
    assert all(f"\n\n{kind}" in seed.package.inputs[path] for kind in kinds)
    request = seed.package.rendered_instructions().lower()
    assert not [kind for kind in kinds if kind.lower() in request]


@pytest.mark.parametrize("name,kind", [(n, k) for n, (_, _, kinds) in RULEBOOKS.items() for k in kinds])
def test_skipping_one_kind_of_dated_rule_scores_below_one(built, name, kind):
    path, heading, _ = RULEBOOKS[name]
    assert shortcut_score(built, name, {path: without(built[name][0].package.inputs[path], heading, (kind,))}) < 1.0


@pytest.mark.parametrize("name", RULEBOOKS)
def test_ignoring_the_dated_rules_scores_below_the_ceiling(built, name):
    path, heading, _ = RULEBOOKS[name]
    kept = without(built[name][0].package.inputs[path], heading, KEPT, keep=True)
    assert shortcut_score(built, name, {path: kept}) < IGNORING_CEILINGS.get(name, CEILING)


@pytest.mark.parametrize("name,misread", sorted(MISREADINGS, key=lambda m: (m[0], m[1].__name__)),
                         ids=lambda m: getattr(m, "__name__", m))
def test_misreading_the_policy_scores_below_the_ceiling(built, name, misread):
    score = shortcut_score(built, name, misread(built[name][0].package.inputs))
    assert score < MISREADING_CEILINGS.get(misread, CEILING)
