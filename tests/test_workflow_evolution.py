"""Evolution operators and descendant construction, without running workflows: deterministic, honest about axes."""

from __future__ import annotations

import random

import pytest

from taskforge.builders.workflow import wfio
from taskforge.builders.workflow.evolve import NotEvolvableError, evolve, vary
from taskforge.builders.workflow.operators import (OPERATORS, TOLERANCE_FLOORS, relayout_table, resample_data, table_header,
                                         with_table)
from taskforge.builders.workflow.seeds import load_seeds
from conftest import FIXTURE_SEEDS, SAMPLES
from taskforge.graders.workflow.deliverables import write_tree
from taskforge.schemas.workflow import changed_axes, summarize, table_rows

OPERATOR = {op.name: op for op in OPERATORS}


@pytest.fixture(scope="module")
def seeds():
    return {s.package.seed_id: s for s in load_seeds(FIXTURE_SEEDS)}


def _axes(before, after):
    return changed_axes(summarize(before, {}), summarize(after, {}))


@pytest.mark.parametrize("name", [op.name for op in OPERATORS])
def test_each_operator_changes_its_own_axis_only(seeds, name):
    operator = OPERATOR[name]
    applicable = [s.package for s in seeds.values() if operator.applies(s.package)]
    assert len(applicable) >= 3, f"{name} applies to too few seeds"
    for package in applicable:
        assert _axes(package, operator.apply(package, random.Random(7))) == {operator.axis}, package.seed_id


def test_operators_are_deterministic(seeds):
    package = seeds["gl-trial-balance"].package
    for operator in OPERATORS:
        if operator.applies(package):
            assert operator.apply(package, random.Random(3)) == operator.apply(package, random.Random(3))


def test_resample_keeps_journal_entries_balanced(seeds):
    package = resample_data(seeds["gl-trial-balance"].package, random.Random(11))
    rows = table_rows(package, "gl")
    before = table_rows(seeds["gl-trial-balance"].package, "gl")
    assert 0.5 * len(before) <= len(rows) < len(before)
    entries: dict[str, float] = {}
    for row in rows:
        entries[row["entry_id"]] = entries.get(row["entry_id"], 0) + float(row["debit"]) - float(row["credit"])
    assert all(abs(balance) < 1e-9 for balance in entries.values())


@pytest.mark.parametrize("layout", ["parts", "jsonl"])
def test_relaid_tables_read_back_identically_by_the_workflow_helper(seeds, tmp_path, monkeypatch, layout):
    package = seeds["vat-return"].package
    header = table_header(package, "sales")
    relaid = with_table(package, "sales", header, table_rows(package, "sales"), layout=layout, parts=3)
    assert set(relaid.inputs) - set(package.inputs) == set(relaid.tables["sales"].files("sales"))
    write_tree(str(tmp_path), relaid.inputs)
    monkeypatch.chdir(tmp_path)
    assert wfio.table("sales") == table_rows(package, "sales")
    with pytest.raises(FileNotFoundError, match="no input table named 'ledger'"):
        wfio.table("ledger")


def test_every_seed_evolves_along_recorded_axes(seeds):
    for seed in seeds.values():
        for rng_seed in (1, 2):
            varied, applied, axes = vary(seed.package, random.Random(rng_seed), OPERATORS)
            assert axes == sorted(_axes(seed.package, varied)) and 2 <= len(axes) <= 3, seed.package.seed_id
            assert {OPERATOR[name].axis for name in applied} == set(axes)
            assert set(axes) & {"data", "object", "operations", "deliverables"}


def test_descendant_records_parent_and_is_named_by_content(seeds):
    seed = seeds["ssh-bruteforce"]
    summary = summarize(seed.package, {})
    child = evolve(seed, summary, "workflow-parent", 5)
    assert child.package.generation == 1 and child.package.root_seed_id == "ssh-bruteforce"
    assert child.package.seed_id.startswith("ssh-bruteforce.g1-") and child.workflow == seed.workflow
    assert child.package.evolution.parent == summary and child.package.evolution.parent_task_id == "workflow-parent"
    assert evolve(seed, summary, "workflow-parent", 5) == child
    assert evolve(seed, summary, "workflow-parent", 6).package.seed_id != child.package.seed_id


def test_a_seed_without_a_second_axis_is_not_evolvable(seeds):
    with pytest.raises(NotEvolvableError, match="two axes"):
        vary(seeds["netflow-top-talkers"].package, random.Random(1), (OPERATOR["resample_data"],))
    relaid = relayout_table(seeds["vat-return"].package, random.Random(1))
    assert _axes(seeds["vat-return"].package, relaid) == {"dependencies"}


def test_tolerances_are_halved_down_to_a_floor_only(seeds):
    original = seeds["calibration-curve"].package
    package = original
    for _ in range(12):
        package = OPERATOR["tighten_grading"].apply(package, random.Random(1))

    def rules(p):
        return {(d.path, name): rule for d in p.deliverables for name, rule in [*d.columns.items(), *d.fields.items()]}

    before, after = rules(original), rules(package)
    for where, rule in before.items():
        for key, floor in TOLERANCE_FLOORS.items():
            if key in rule:
                assert after[where][key] == min(rule[key], floor), where
