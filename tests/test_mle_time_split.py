"""Time-ordered MLE datasets are split by time (and exact duplicate rows dropped first), and the neighbouring-labels leakage strategy tells a random split of
time-ordered rows from a split by time. Real data (the shipped UCI bike-sharing hours and wine samples), no sandbox:
seconds."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import polars as pl
import pytest

from conftest import SAMPLES
from taskforge.builders.mle.inference import define_problem
from taskforge.builders.mle.prepare import Competition, prepare
from taskforge.builders.mle.source import dataset_spec, load_table
from taskforge.graders.mle.grading import frame_from_csv
from taskforge.graders.mle.order import time_columns
from taskforge.graders.mle.shortcuts import Target
from taskforge.schemas import InputError
from taskforge.schemas.mle import MleSplit
from taskforge.validators.mle.neighbours import leaks, neighbour_scores

MLE = SAMPLES / "mle"
BIKES = "bike_sharing_hourly.parquet"
NEVER_REACHED = 0.0
"""An RMSE median no predictor reaches: only the error the neighbours remove decides."""


def _competition(folder: Path, name: str, by_time: bool = True, **settings) -> Competition:
    """A competition prepared from a dataset; `by_time=False` forces a random split of its rows."""
    spec = dataset_spec(folder / name, folder, settings)
    frame, problem = define_problem(load_table(spec), spec)
    if not by_time:
        problem = replace(problem, time_column=None)
    return prepare(frame, problem, 7, spec.name, spec.test_fraction, int(spec.min_test_rows), spec.display)


def _scores(competition: Competition) -> dict[str, object]:
    target = Target.of(competition.grader)
    answers = frame_from_csv(competition.answers)
    test = frame_from_csv(competition.public["test.csv"])
    labelled = answers.select(target.id_column, target.column).join(test, on=target.id_column, how="left")
    found = neighbour_scores(frame_from_csv(competition.public["train.csv"]), labelled, target)
    return {score.order: score for score in found}


@pytest.fixture(scope="module")
def bikes_by_time() -> Competition:
    return _competition(MLE, BIKES)


@pytest.fixture(scope="module")
def bikes_at_random() -> Competition:
    return _competition(MLE, BIKES, by_time=False)


def test_time_ordered_rows_are_split_by_time_with_the_later_period_held_out(bikes_by_time):
    split = MleSplit(**bikes_by_time.split)
    assert (split.strategy, split.time_column, split.stratified_by) == ("time", "dteday", None)
    train = frame_from_csv(bikes_by_time.public["train.csv"])
    test = frame_from_csv(bikes_by_time.public["test.csv"])
    assert train["dteday"].max() == split.train_until < split.test_from == test["dteday"].min()
    assert test.height == split.test_rows >= 2000 and train.height + test.height == 17379
    ids = train["id"].cast(pl.Int64)
    assert ids.is_sorted() and not train["dteday"].is_sorted(), "ids and row order must not reveal time"


def test_a_date_column_is_found_without_a_declaration_and_the_wine_is_split_at_random(tmp_path):
    bikes = pl.read_parquet(MLE / BIKES).head(4000)
    bikes.write_csv(tmp_path / "hours.csv")
    (tmp_path / "hours.json").write_text(json.dumps({"target": "count", "task_type": "regression"}))
    found = _competition(tmp_path, "hours.csv", min_test_rows=500)
    assert (found.split["strategy"], found.split["time_column"]) == ("time", "dteday")
    wine = _competition(MLE, "wine_quality.csv")
    assert wine.split["strategy"] == "random" and "time_column" not in wine.split
    assert time_columns(frame_from_csv(wine.public["train.csv"])) == []


def test_a_declared_time_column_that_is_neither_dates_nor_numbers_is_refused(tmp_path):
    wine = pl.read_csv(MLE / "wine_quality.csv").head(600)
    wine.write_csv(tmp_path / "wine.csv")
    with pytest.raises(InputError, match="time column 'type' holds neither dates nor numbers"):
        _competition(tmp_path, "wine.csv", target="quality", task_type="regression", time_column="type",
                     min_test_rows=100)


def test_neighbouring_hours_give_a_random_split_away_and_not_a_split_by_time(bikes_by_time, bikes_at_random):
    random_split = _scores(bikes_at_random)["time ('dteday', then 'hr')"]
    assert random_split.enclosed > 0.99 and random_split.score < 0.6 * random_split.without
    assert leaks(random_split, NEVER_REACHED, lower_is_better=True)
    by_time = _scores(bikes_by_time)
    assert by_time["time ('dteday', then 'hr')"].enclosed == 0.0
    assert not [order for order, score in by_time.items() if leaks(score, NEVER_REACHED, lower_is_better=True)]


def test_the_wine_ids_give_nothing_away():
    scores = _scores(_competition(MLE, "wine_quality.csv"))
    assert list(scores) == ["id ('id')"]
    assert not leaks(scores["id ('id')"], NEVER_REACHED, lower_is_better=True)


def test_rows_repeating_another_row_are_dropped_before_the_split():
    """The wine sample repeats 1,168 rows exactly: split apart, a train copy would give a test copy's label away."""
    wine = _competition(MLE, "wine_quality.csv")
    assert wine.split["duplicates_dropped"] == 1168 and wine.split["rows"] == 6497 - 1168
    assert not wine.split["subsampled"]
    train = frame_from_csv(wine.public["train.csv"]).drop("id")
    test = frame_from_csv(wine.public["test.csv"]).join(frame_from_csv(wine.answers), on="id").drop("id")
    assert train.join(test.select(train.columns), on=train.columns, how="semi").height == 0
