"""`--target` names the label of a real dataset whose label is not named like one (Palmer penguins: `species`).

penguins.csv (CC0, tests/fixtures/mle/README.md) has no settings file. Without
`--target` the dataset is refused with a reason that says to pass it; with it the
problem is three-class species classification over the other columns, and a
seeded split prepares from it. `taskforge build mle --target` naming no column
is quarantined naming that column, which shows the flag reaches the builder. The shipped real
dataset (wine quality) is checked the same way through its settings file.
"""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

from taskforge.builders.mle.inference import define_problem
from taskforge.builders.mle.prepare import prepare
from taskforge.builders.mle.source import dataset_spec, load_table
from taskforge.flows.cli import main
from taskforge.schemas import InputError
from taskforge.store.layout import SAMPLES_DIR

PENGUINS = Path(__file__).parent / "fixtures" / "mle" / "penguins.csv"


def _problem(path: Path, options: dict):
    spec = dataset_spec(path, path, options)
    return define_problem(load_table(spec), spec)


def test_target_option_names_a_label_that_is_not_named_like_one():
    frame, problem = _problem(PENGUINS, {"target": "species"})

    assert (problem.target, problem.task_type, problem.metric) == ("species", "classification", "accuracy")
    assert problem.classes == ("Adelie", "Chinstrap", "Gentoo")
    assert "island" in problem.features and "species" not in problem.features
    competition = prepare(frame, problem, seed=0, name="penguins")
    assert competition.public["test.csv"].splitlines()[0].count("species") == 0
    assert len(competition.answers.splitlines()) > 60


def test_the_shipped_real_dataset_is_large_enough_for_a_2000_row_test_split():
    frame, problem = _problem(SAMPLES_DIR / "mle" / "wine_quality.csv", {})

    assert (problem.target, problem.task_type, problem.metric) == ("quality", "regression", "rmse")
    assert frame.height == 6497 and frame.height * 0.31 >= 2000
    assert set(pl.read_csv(SAMPLES_DIR / "mle" / "wine_quality.csv")["type"].unique()) == {"red", "white"}


def test_without_a_target_the_reason_says_to_pass_one():
    with pytest.raises(InputError, match="no column is named like a label .* name the label column with --target COLUMN"):
        _problem(PENGUINS, {})


@pytest.mark.usefixtures("prefect_server")
def test_build_passes_target_to_the_builder_and_a_wrong_one_is_quarantined_naming_it(capsys, monkeypatch, data_dir):
    monkeypatch.setenv("TASKFORGE_SANDBOX", "process")
    code = main(["build", "mle", "--source", str(PENGUINS), "--target", "bill_colour", "--count", "1",
                 "--data-dir", str(data_dir), "--json"])
    summary = json.loads(capsys.readouterr().out)

    assert code == 0 and summary["families"] == {}
    (quarantined,) = summary["quarantine"]
    assert quarantined["source"] == "penguins.csv"
    assert "target column 'bill_colour' is not among the columns" in quarantined["reason"]
