"""The MLE grader: metrics, submission validation, thresholds from a leaderboard, reports and rewards."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from sklearn import metrics as skm

from taskforge.builders.mle.inference import define_problem
from taskforge.builders.mle.prepare import prepare
from taskforge.builders.mle.source import dataset_spec, load_table
from taskforge.graders import scorer_for
from taskforge.graders.mle.grading import grade, report_for, reward, thresholds_from_leaderboard
from mle_data import generated_frame, write_dataset


def _competition(tmp_path, kind, settings=None, seed=5):
    path = write_dataset(generated_frame(kind), tmp_path, kind, settings)
    spec = dataset_spec(path, tmp_path)
    return prepare(*define_problem(load_table(spec), spec), seed=seed, name=kind)


def _graded(competition, scores):
    """The competition's grader with thresholds from a given leaderboard of scores, and its reference."""
    thresholds = thresholds_from_leaderboard(scores, competition.grader["is_lower_better"])
    return {**competition.grader, "thresholds": vars(thresholds)}, {"answers": competition.answers}


def _answers(competition):
    return pl.read_csv(competition.answers.encode(), infer_schema=False)


@pytest.mark.parametrize("n, positions", [(10, (1, 2, 4)), (12, (1, 2, 4)), (150, (10, 30, 60)),
                                          (500, (11, 50, 100)), (2000, (14, 100, 200))])
def test_medal_positions_follow_kaggle_progression_for_both_directions(n, positions):
    scores = [float(k) for k in range(1, n + 1)]
    high = thresholds_from_leaderboard(scores, is_lower_better=False)
    low = thresholds_from_leaderboard(scores, is_lower_better=True)
    assert (high.gold, high.silver, high.bronze) == tuple(float(n + 1 - p) for p in positions)
    assert (low.gold, low.silver, low.bronze) == tuple(float(p) for p in positions)
    assert high.median == low.median == (n + 1) / 2
    assert high.gold >= high.silver >= high.bronze >= high.median
    assert low.gold <= low.silver <= low.bronze <= low.median


def test_medals_are_exclusive_and_above_median_is_strict():
    thresholds = thresholds_from_leaderboard([0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1, 0.0], False)
    assert (thresholds.gold, thresholds.silver, thresholds.bronze, thresholds.median) == (0.9, 0.8, 0.6, 0.45)
    cases = {0.95: "gold", 0.85: "silver", 0.65: "bronze", 0.5: None, 0.45: None}
    for score, medal in cases.items():
        report = report_for(score, thresholds, False, "c", "accuracy")
        got = [m for m in ("gold", "silver", "bronze") if getattr(report, f"{m}_medal")]
        assert got == ([medal] if medal else []) and report.any_medal == bool(medal)
        assert report.above_median == (score > 0.45)
    lower = report_for(0.0, thresholds_from_leaderboard([0.1 * k for k in range(10)], True), True, "c", "rmse")
    assert lower.gold_medal and lower.above_median and lower.is_lower_better


def test_metrics_agree_with_scikit_learn(tmp_path):
    binary = _competition(tmp_path, "binary")
    rng = np.random.default_rng(0)
    answers = _answers(binary)
    probabilities = rng.uniform(size=answers.height).round(6)
    submission = answers.select("id").with_columns(pl.Series("label", probabilities)).write_csv()
    grader, reference = _graded(binary, [0.5] * 10)
    truth = answers["label"].cast(pl.Int64).to_numpy()
    assert grade(submission, reference, grader).score == round(skm.roc_auc_score(truth, probabilities), 5)
    regression = _competition(tmp_path, "regression")
    answers = _answers(regression)
    values = answers["target"].cast(pl.Float64).to_numpy() + rng.normal(0, 1, answers.height).round(3)
    grader, reference = _graded(regression, [1.0] * 10)
    for metric, expected in (("rmse", np.sqrt(skm.mean_squared_error(answers["target"].cast(pl.Float64), values))),
                             ("mae", skm.mean_absolute_error(answers["target"].cast(pl.Float64), values))):
        text = answers.select("id").with_columns(pl.Series("target", values)).write_csv()
        assert grade(text, reference, {**grader, "metric": metric}).score == round(expected, 5)


def test_multiclass_log_loss_takes_one_probability_column_per_class(tmp_path):
    competition = _competition(tmp_path, "multiclass", {"target": "species", "metric": "log_loss"})
    answers = _answers(competition)
    rng = np.random.default_rng(1)
    probabilities = rng.dirichlet([1, 1, 1], answers.height).round(6)
    columns = {f"species_{label}": probabilities[:, k] for k, label in enumerate(("ash", "birch", "cedar"))}
    submission = answers.select("id").with_columns(**columns).write_csv()
    grader, reference = _graded(competition, [1.0] * 10)
    expected = skm.log_loss(answers["species"].to_list(), probabilities / probabilities.sum(1, keepdims=True),
                            labels=["ash", "birch", "cedar"])
    report = grade(submission, reference, grader)
    assert report.is_lower_better and report.score == pytest.approx(expected, abs=1e-5)


@pytest.mark.parametrize("mutate, message", [
    (lambda f: f.head(f.height - 3), "3 ids of the test set are missing"),
    (lambda f: f.rename({"label": "prediction"}), "wrong columns: expected ['id', 'label']; missing ['label']; "
                                                  "unexpected ['prediction']"),
    (lambda f: f.with_columns(pl.lit("x").alias("extra")), "unexpected ['extra']"),
    (lambda f: f.with_columns(pl.when(pl.col("id") == f["id"][0]).then(None).otherwise(pl.col("label"))
                              .alias("label")), "column 'label' has 1 missing values"),
    (lambda f: f.with_columns(pl.lit("NaN").alias("label")), "not finite numbers"),
    (lambda f: f.with_columns(pl.lit("high").alias("label")), "not finite numbers, e.g. 'high'"),
    (lambda f: pl.concat([f, f.head(1)]), "1 ids occur more than once"),
    (lambda f: f.with_columns((pl.col("id").cast(pl.Int64) + 100000).cast(pl.Utf8).alias("id")),
     "ids of the test set are missing"),
    (lambda f: f.with_columns(pl.lit("1.5").alias("label")), "probabilities must lie in [0, 1]"),
])
def test_invalid_submissions_get_a_report_with_the_reason(tmp_path, mutate, message):
    competition = _competition(tmp_path, "binary")
    grader, reference = _graded(competition, [0.5 + 0.01 * k for k in range(10)])
    sample = pl.read_csv(competition.public["sample_submission.csv"].encode(), infer_schema=False)
    report = grade(mutate(sample).write_csv(), reference, grader)
    assert not report.valid_submission and report.score is None and not report.any_medal
    assert message in report.message
    assert report.gold_threshold == 0.59 and report.median_threshold == 0.545


def test_unreadable_and_missing_submissions_are_invalid(tmp_path):
    competition = _competition(tmp_path, "multiclass", {"target": "species"})
    grader, reference = _graded(competition, [0.5 + 0.01 * k for k in range(10)])
    assert grade(None, reference, grader).submission_exists is False
    assert "the submission is empty" in grade("", reference, grader).message
    answers = _answers(competition).with_columns(pl.lit("oak").alias("species"))
    assert "not among the classes" in grade(answers.write_csv(), reference, grader).message


def test_labels_written_as_floats_are_accepted_and_answers_score_perfectly(tmp_path):
    competition = _competition(tmp_path, "binary", {"metric": "accuracy"})
    grader, reference = _graded(competition, [0.5 + 0.01 * k for k in range(10)])
    as_floats = _answers(competition).with_columns(pl.col("label").cast(pl.Float64))
    report = grade(as_floats.write_csv(), reference, grader)
    assert report.score == 1.0 and report.gold_medal


def test_reward_is_zero_to_the_median_one_from_gold_linear_between(tmp_path):
    competition = _competition(tmp_path, "regression")
    grader, reference = _graded(competition, [float(k) for k in range(1, 11)])
    thresholds = thresholds_from_leaderboard([float(k) for k in range(1, 11)], True)
    assert (thresholds.gold, thresholds.median) == (1.0, 5.5)
    for score, expected in ((0.5, 1.0), (1.0, 1.0), (3.25, 0.5), (5.5, 0.0), (9.0, 0.0)):
        assert reward(report_for(score, thresholds, True, "c", "rmse")) == expected
    scorer = scorer_for(grader)
    assert all(scorer.score(text, reference, grader) == 0.0 for text in scorer.noop_submissions(grader))
