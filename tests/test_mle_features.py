"""The features the tuned reference solutions derive (`graders/mle/baselines.py`): a time column parsed into
calendar fields (features) and a trend (ordering the searches' folds, never a feature), each moment's context from
the public features only, and searches validated forward in time. Real data (the shipped bike-sharing hours), no
sandbox: seconds."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from conftest import SAMPLES
from taskforge.graders.mle import baselines

BIKES = SAMPLES / "mle" / "bike_sharing_hourly.parquet"
FEATURES = ["dteday", "season", "yr", "mnth", "hr", "holiday", "weekday", "workingday", "weathersit", "temp",
            "atemp", "hum", "windspeed"]


@pytest.fixture(scope="module")
def hours() -> tuple[pd.DataFrame, pd.DataFrame, dict]:
    """Train up to 2012-08-06 and the later test hours without their label, shuffled as the public files are."""
    frame = pd.read_parquet(BIKES).sample(frac=1.0, random_state=5).reset_index(drop=True)
    frame.insert(0, "id", np.arange(len(frame)))
    late = frame["dteday"].astype(str) >= "2012-08-07"
    plan = {"features": FEATURES, "time_column": "dteday", "target_column": "count", "cv_folds": 3, "seed": 7}
    return frame[~late].reset_index(drop=True), frame[late].drop(columns="count").reset_index(drop=True), plan


def test_the_time_column_becomes_calendar_fields_and_a_trend_that_orders_folds(hours):
    train, test, plan = hours
    new_train, new_test, features = baselines.engineered(train, test, plan)
    assert "dteday" not in features and {"dteday_month", "dteday_weekday"} <= set(features)
    assert "dteday_trend" not in features, "no tree can extend a trend past the training period"
    assert "dteday_hour" not in features, "a column of whole days has no hour to derive"
    assert new_train["dteday_trend"].min() == 0.0
    assert new_test["dteday_trend"].min() == new_train["dteday_trend"].max() + 1.0
    assert list(new_test["id"]) == list(test["id"]) and list(new_train["count"]) == list(train["count"])
    day = pd.to_datetime(test["dteday"].astype(str))
    assert (new_test["dteday_weekday"].to_numpy() == day.dt.day_of_week.to_numpy()).all()


def test_moment_context_is_read_from_the_public_features_and_never_from_a_label(hours):
    train, test, plan = hours
    _, new_test, _ = baselines.engineered(train, test, plan)
    day = test["dteday"].astype(str)
    first = test[day == "2012-08-08"]
    assert np.allclose(new_test.loc[first.index, "dteday_temp_moment_mean"], first["temp"].mean())
    before = test[day == "2012-08-07"]
    assert np.allclose(new_test.loc[first.index, "dteday_temp_previous_moment_mean"], before["temp"].mean())
    assert (new_test.loc[first.index, "dteday_moment_rows"] == len(first)).all()
    shuffled = train.assign(count=train["count"].sample(frac=1.0, random_state=1).to_numpy())
    _, unchanged, _ = baselines.engineered(shuffled, test, plan)
    pd.testing.assert_frame_equal(unchanged, new_test)


def test_a_plan_without_a_time_column_keeps_its_features(hours):
    train, test, plan = hours
    kept_train, kept_test, features = baselines.engineered(train, test, {**plan, "time_column": None})
    assert features == FEATURES and kept_train is train and kept_test is test


def test_searches_on_rows_ordered_in_time_validate_on_a_later_block(hours):
    train, test, plan = hours
    new_train, _, _ = baselines.engineered(train, test, plan)
    folds = baselines._search_folds(plan, False, new_train)
    assert len(folds) == 3
    trend = new_train["dteday_trend"].to_numpy()
    for fit, check in folds:
        assert trend[fit].max() < trend[check].min() and len(fit) and len(check)
    assert isinstance(baselines._search_folds(plan, False, train[FEATURES[1:]]), baselines.KFold)


def test_gradient_boosting_tries_the_poisson_loss_on_counts_only():
    plan = {"task_type": "regression"}
    assert baselines._space("gradient_boosting_tuned", plan, False, pd.Series([0, 3, 9]))["loss"] == \
        ["squared_error", "poisson"]
    assert "loss" not in baselines._space("gradient_boosting_tuned", plan, False, pd.Series([-1.5, 2.0]))
    assert "loss" not in baselines._space("random_forest_tuned", plan, False, pd.Series([0, 3, 9]))
