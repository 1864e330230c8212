"""Workflow tasks built and certified for real: reference workflows and graders run in the sandbox.

Most tests use the process backend (network namespace); the `docker` tests run
a few seeds in containers. Every small fixture seed is built and validated once
per module, with one descendant each (a build pairs each seed with a descendant).
"""

from __future__ import annotations

import json
import random

import pytest

from taskforge import sandbox
from taskforge.builders.base import BuildContext
from taskforge.builders.workflow import WorkflowBuilder
from taskforge.builders.workflow.evolve import evolve
from taskforge.builders.workflow.operators import OPERATORS, Operator, table_header, with_table
from taskforge.builders.workflow.seeds import load_seed, seed_from_task, write_seed
from conftest import FIXTURE_SEEDS, SAMPLES
from taskforge.schemas import PlanItem, Quarantined
from taskforge.schemas.workflow import WorkflowPackage, changed_axes, summarize, table_rows
from taskforge.validators.runner import validate
from taskforge.validators.questions import parts_of
from taskforge.validators.workflow.perturbation import KINDS

SEEDS = FIXTURE_SEEDS
SEED_COUNT = len(list(SEEDS.glob("*/seed.json")))
WORKFLOW_PARTS = {"noop": ["scorer_noop", "workflow_noop"],
                  "reference": ["scorer_reference", "workflow_reference", "package_audit"],
                  "leakage": ["workflow_leaks"], "determinism": ["workflow_perturbation"]}
ACCEPT_ANYTHING = ('import json, sys, os\nnames = [os.path.basename(p) for p in sys.argv[4:]]\n'
                   'json.dump({n: {"score": 1.0} for n in names}, open(sys.argv[3], "w"))\n')


def _use(kind: str, monkeypatch: pytest.MonkeyPatch) -> None:
    chosen = sandbox.get_sandbox(kind)
    monkeypatch.setattr(sandbox, "default_sandbox", lambda: chosen)


@pytest.fixture(scope="module")
def process_backend():
    with pytest.MonkeyPatch.context() as patch:
        _use("process", patch)
        yield


def _build(source, first: int, count: int, cycle_id: str = "test-cycle") -> list:
    item = PlanItem(family="workflow", capability="verification", quota=count, gap_ids=["gap-w"], priority=1.0)
    context = BuildContext(cycle_id=cycle_id, first_index=first, options={"source": str(source)})
    return list(WorkflowBuilder().build(item, context))


@pytest.fixture(scope="module")
def pairs(process_backend):
    return _build(SEEDS, 0, 2 * SEED_COUNT)


@pytest.fixture(scope="module")
def seed_tasks(pairs):
    tasks = pairs[0::2]
    assert all(not isinstance(t, Quarantined) and t.payload["generation"] == 0 for t in tasks)
    return tasks, [validate(t) for t in tasks]


@pytest.fixture(scope="module")
def descendants(pairs):
    return [item if isinstance(item, Quarantined) else validate(item) for item in pairs[1::2]]


def _result(task, check):
    return next(r for r in task.validation if r.check == check)


def _part(task, question, part):
    return parts_of(_result(task, question))[part]


HALF_SOLVED_BY_SHORTCUTS = {"ar-aging", "customer-dedup"}
"""Small hand-made fixture seeds that a shortcut solver half solves (the most common value of each column; the
inputs copied): the `shortcut` question rejects them. The shipped seeds are the generated ones."""


def test_every_fixture_seed_is_accepted_but_those_a_shortcut_half_solves(seed_tasks):
    _, decided = seed_tasks
    assert len(decided) == SEED_COUNT
    rejected = {t.payload["seed_id"]: t.reasons for t in decided if t.status != "accepted"}
    assert set(rejected) <= HALF_SOLVED_BY_SHORTCUTS, rejected
    assert all(r.startswith("shortcut: too easy: the ") for reasons in rejected.values() for r in reasons), rejected
    for task in (t for t in decided if t.status == "accepted"):
        assert WORKFLOW_PARTS.items() <= {r.check: r.detail.get("strategy") for r in task.validation}.items()
        shortcut = _result(task, "shortcut")
        assert shortcut.detail["strategy"] == ["workflow_shortcuts"], "a seed task has no ancestor to reuse"
        assert shortcut.passed and max(shortcut.detail["scores"].values()) <= shortcut.detail["threshold"]
        assert task.reference["run"]["backend"] == "process" and task.reference["run"]["ok"]
        assert "reference.py" not in json.dumps(task.payload["inputs"]) and "outputs/" not in "".join(task.payload["inputs"])


def test_reference_scores_one_twice_and_the_untouched_workspace_zero(seed_tasks):
    for task in seed_tasks[1]:
        assert _part(task, "reference", "workflow_reference").detail["scores"] == [1.0, 1.0]
        noop = _part(task, "noop", "workflow_noop")
        assert noop.score == 0.0 and noop.detail["files_left"] == []


def test_perturbation_suite_scores_below_one_for_every_perturbation(seed_tasks):
    kinds, count = set(), 0
    for task in seed_tasks[1]:
        scores = _result(task, "determinism").detail["scores"]
        assert scores and max(scores.values()) < 1.0, task.payload["seed_id"]
        kinds |= {label.split(":")[0] for label in scores}
        count += len(scores)
    assert kinds == set(KINDS) and count > 10 * SEED_COUNT


def test_the_same_seed_builds_the_same_task(seed_tasks):
    again = _build(SEEDS, 2, 1)[0]
    assert again == seed_tasks[0][1], "a rebuild gives the same row, reference run included"


def test_a_grader_that_accepts_anything_is_rejected(seed_tasks):
    task = seed_tasks[0][0].model_copy(deep=True)
    task.grader["program"] = {"name": "grade.py", "source": ACCEPT_ANYTHING, "sha256": "not-checked-here"}
    decided = validate(task)
    assert decided.status == "rejected"
    assert _part(decided, "noop", "workflow_noop").reason == "the untouched workspace scores 1.0"
    assert "the grader scores 1.0 for" in _result(decided, "determinism").reason
    assert _part(decided, "noop", "scorer_noop").passed, "the in-process scorer is not the task's program: only the sandbox run shows it"


def test_a_reference_leaked_into_the_inputs_is_rejected(seed_tasks):
    task = next(t for t in seed_tasks[0] if t.payload["seed_id"] == "gl-trial-balance").model_copy(deep=True)
    leaked = task.reference["deliverables"]["outputs/trial_balance.csv"]
    task.payload["inputs"]["inputs/prior_work.csv"] = leaked
    task.payload["files"]["prior_work.csv"] = {"describe": "notes"}
    decided = validate(task)
    assert decided.status == "rejected"
    assert "the reference outputs/trial_balance.csv is contained in inputs/prior_work.csv" in _result(decided, "leakage").reason


def _drop_column(name: str, column: str) -> Operator:
    def apply(package: WorkflowPackage, rng: random.Random) -> WorkflowPackage:
        header = [c for c in table_header(package, name) if c != column]
        return with_table(package, name, header, [{c: r[c] for c in header} for r in table_rows(package, name)])
    return Operator(f"drop_{column}", "data", lambda p: name in p.tables, apply)


def test_a_workflow_that_fails_on_the_evolved_inputs_is_rejected(seed_tasks):
    parent = next(t for t in seed_tasks[0] if t.payload["seed_id"] == "vat-return")
    seed = seed_from_task(parent)
    grading = next(op for op in OPERATORS if op.axis == "grading")
    child = evolve(seed, summarize(seed.package, parent.reference["deliverables"]), parent.task_id, 4,
                   operators=(_drop_column("sales", "vat_rate_pct"), grading))
    task = WorkflowBuilder()._task(child, PlanItem(family="workflow", capability="verification", quota=1, gap_ids=[],
                                                    priority=1.0), BuildContext(cycle_id="test"), parent.task_id, 4)
    decided = validate(task)
    assert decided.status == "rejected" and not task.reference["run"]["ok"]
    assert "KeyError: 'vat_rate_pct'" in task.reference["run"]["stderr_tail"]
    assert _part(decided, "shortcut", "descendant").reason.startswith(
        "on the evolved inputs, the reference workflow fails when run again")
    assert _part(decided, "reference", "workflow_reference").reason.startswith("the reference workflow fails when run again")


def test_an_evolution_round_yields_accepted_descendants_along_two_recorded_axes(seed_tasks, descendants):
    parents = {t.task_id: t for t in seed_tasks[0]}
    accepted = [d for d in descendants if not isinstance(d, Quarantined) and d.status == "accepted"]
    assert len(accepted) >= 0.8 * SEED_COUNT
    for task in accepted:
        evolution = task.payload["evolution"]
        parent = parents[task.lineage.parent_task_id]
        assert task.payload["root_seed_id"] == parent.payload["seed_id"] and task.payload["generation"] == 1
        before = summarize(WorkflowPackage.model_validate(parent.payload), parent.reference["deliverables"])
        after = summarize(WorkflowPackage.model_validate(task.payload), task.reference["deliverables"])
        assert sorted(changed_axes(before, after)) == evolution["axes"] and len(evolution["axes"]) >= 2
        assert evolution["parent"] == json.loads(before.model_dump_json())
        assert _part(task, "shortcut", "descendant").detail["axes"] == evolution["axes"]
    for task in descendants:
        if not isinstance(task, Quarantined) and task.status == "rejected":
            assert task.reasons, "a rejected descendant says why"


def test_accepted_descendants_seed_the_next_round(descendants, tmp_path, process_backend):
    accepted = [d for d in descendants if not isinstance(d, Quarantined) and d.status == "accepted"][:3]
    for task in accepted:
        write_seed(seed_from_task(task), tmp_path)
    assert load_seed(tmp_path / accepted[0].payload["seed_id"]).package == WorkflowPackage.model_validate(accepted[0].payload)
    second = [validate(t) for t in _build(tmp_path, 6, 3, cycle_id="round-2") if not isinstance(t, Quarantined)]
    grown = [t for t in second if t.status == "accepted"]
    assert grown and all(t.payload["generation"] == 2 for t in grown)
    assert {t.lineage.parent_task_id for t in grown} <= {t.task_id for t in accepted}


@pytest.mark.docker
def test_seeds_are_accepted_with_the_docker_backend(docker_engine, monkeypatch):
    _use("docker", monkeypatch)
    names = [p.parent.name for p in sorted(SEEDS.glob("*/seed.json"))]
    decided = [validate(_build(SEEDS, names.index(name), 1)[0]) for name in ("gl-trial-balance", "pii-redaction")]
    assert [t.status for t in decided] == ["accepted", "accepted"], [t.reasons for t in decided]
    assert {t.reference["run"]["backend"] for t in decided} == {"docker"}
