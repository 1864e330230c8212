"""Leaks of an MLE competition: can the private answers be read off the public files?

Looked for: the label column in the public test file; test ids that also occur
in train (their labels are public); a public column that reproduces the answers
row by row (a sample submission holding the answers); test rows that repeat a
train row's features with its label; and, beyond exact copies, any single
public view (a column through a one-feature lookup of its values or quantile
bins, the id also through its residues and last character) that predicts the
test labels far beyond the honest baselines:
- a column whose one-feature model reaches the gold threshold, or removes most
  of a constant prediction's error, is compared with the leaderboard's best
  entry run again without that column (the honest baseline,
  `rederive.honest_score`; the baselines run with the column would exploit it
  too): it leaks when its error is under half the honest error;
- the id carries no signal in an honest split (ids come from a seeded
  permutation), so an id view that reaches the median baseline leaks: the labels
  are recoverable from id order.
Thresholds are those the re-run baselines give.
"""

from __future__ import annotations

import math

import numpy as np
import polars as pl

from taskforge.graders.mle.grading import frame_from_csv, reaches
from taskforge.graders.mle.shortcuts import Target, constant_predictions, one_feature, views
from taskforge.schemas import Task
from taskforge.schemas.mle import MleGrader, MlePayload, MleReference
from taskforge.validators.mle.rederive import honest_score, rederived_leaderboard

ANSWER_AGREEMENT = 0.99
"""A public column agreeing with this share of the answers reproduces them."""
LEAK_ERROR_SHARE = 0.5
"""A single view leaks when its error is below this share of the honest baselines' error without it."""
SUSPECT_ERROR_SHARE = 0.2
"""A column whose one-feature model's error is at most this share of a constant prediction's is suspect."""
MAX_SUSPECTS = 2
"""At most this many columns, the best first, are compared with the honest baselines (a sandbox job each)."""
MIN_DUPLICATES, DUPLICATE_SHARE, DUPLICATE_AGREEMENT = 3, 0.01, 0.9
"""Test rows repeating train rows leak when there are this many (and this share of the test rows) and the train
label is the answer for this share of them."""


def _agree(left: str | None, right: str | None) -> bool:
    """Two cell texts denote the same value (numbers compared as numbers)."""
    if left is None or right is None:
        return False
    if left.strip() == right.strip():
        return True
    try:
        return math.isclose(float(left), float(right), rel_tol=1e-9, abs_tol=1e-9)
    except ValueError:
        return False


def _reproduced_answers(name: str, public: pl.DataFrame, answers: pl.DataFrame, id_column: str,
                        target: str) -> list[str]:
    """Columns of a public file that, joined on the id, repeat the private labels."""
    if id_column not in public.columns:
        return []
    joined = answers.join(public, on=id_column, how="left", suffix="__public")
    truth = joined[target].to_list()
    leaks = []
    for column in public.columns:
        if column == id_column:
            continue
        values = joined[f"{column}__public" if column == target else column].to_list()
        if len(set(values)) < 2:
            continue
        share = sum(_agree(v, t) for v, t in zip(values, truth)) / len(truth)
        if share >= ANSWER_AGREEMENT:
            leaks.append(f"{name} column {column!r} reproduces the private answers ({share:.1%} of test rows)")
    return leaks


def score_error(score: float, lower_is_better: bool) -> float:
    """How far a score is from perfect (every metric better-is-higher here is at most 1)."""
    return score if lower_is_better else 1.0 - score


def _view_leaks(task: Task, train: pl.DataFrame, labelled_test: pl.DataFrame) -> list[str]:
    """Single public views that predict the test labels far beyond the honest baselines."""
    grader = MleGrader.of(task)
    target, lower = Target.of(task.grader), grader.is_lower_better
    thresholds = rederived_leaderboard(task).thresholds
    train_y = target.labels(train[target.column].to_list())
    train_views, test_views = views(train, target), views(labelled_test, target)
    id_views = {name for name in train_views if name == grader.id_column or grader.id_column in name.split(" ")}
    scores = {}
    for name, values in train_views.items():
        if name in test_views:
            try:
                scores[name] = target.score(labelled_test, one_feature(values, train_y, test_views[name], target))
            except ValueError:
                continue
    constant = score_error(
        target.score(labelled_test, constant_predictions(train_y, labelled_test.height, target, False)), lower)
    leaks = [f"the labels are recoverable from the id: the single public feature {name!r} scores {score:.5g}, as "
             f"well as the median baseline ({thresholds.median})"
             for name, score in scores.items() if name in id_views and reaches(score, thresholds.median, lower)]
    columns = sorted((name for name in scores if name not in id_views),
                     key=lambda name: (scores[name] if lower else -scores[name], name))
    for name in columns[:MAX_SUSPECTS]:
        score = scores[name]
        if reaches(score, thresholds.gold, lower) or score_error(score, lower) <= SUSPECT_ERROR_SHARE * constant:
            honest = honest_score(task, name)
            if honest is None or score_error(score, lower) < LEAK_ERROR_SHARE * score_error(honest, lower):
                leaks.append(f"the single public feature {name!r} predicts the label far beyond the honest "
                             f"baselines: it scores {score:.5g}, the best baseline without it {honest}")
    return leaks


def _duplicate_leaks(train: pl.DataFrame, labelled_test: pl.DataFrame, id_column: str, target: str,
                     regression: bool) -> list[str]:
    """Test rows that repeat a train row's features, when the train label gives their answer."""
    features = [c for c in labelled_test.columns if c not in (id_column, target) and c in train.columns]
    if not features:
        return []
    seen: dict[tuple, list[str]] = {}
    for row in train.select([*features, target]).iter_rows():
        seen.setdefault(row[:-1], []).append(row[-1])
    matched = agreeing = 0
    for row in labelled_test.select([*features, target]).iter_rows():
        labels = seen.get(row[:-1])
        if labels is None:
            continue
        matched += 1
        if regression:
            guess = float(np.mean([float(v) for v in labels]))
            agreeing += math.isclose(guess, float(row[-1]), rel_tol=1e-9, abs_tol=1e-9)
        else:
            agreeing += max(set(labels), key=labels.count) == row[-1]
    if matched < max(MIN_DUPLICATES, DUPLICATE_SHARE * labelled_test.height) or agreeing < DUPLICATE_AGREEMENT * matched:
        return []
    return [f"{matched} test rows ({matched / labelled_test.height:.1%}) repeat a train row's features, and the "
            f"train label is the answer for {agreeing} of them"]


def mle_leaks(task: Task) -> list[str]:
    """Every way found to read the private answers off the public files."""
    files, grader = MlePayload.of(task).files, MleGrader.of(task)
    id_column, target = grader.id_column, grader.target_column
    answers = frame_from_csv(MleReference.of(task).answers, "answers")
    train = frame_from_csv(files.train, "train.csv")
    test = frame_from_csv(files.test, "test.csv")
    leaks = []
    if target in test.columns:
        leaks.append(f"the public test.csv holds the label column {target!r}")
    train_ids = set(train[id_column].to_list()) if id_column in train.columns else set()
    shared = train_ids & set(answers[id_column].to_list())
    if shared:
        leaks.append(f"{len(shared)} test ids also occur in the public train.csv, with their labels")
    for name, text in (("test.csv", files.test), ("sample_submission.csv", files.sample_submission)):
        leaks += _reproduced_answers(name, frame_from_csv(text, name), answers, id_column, target)
    labelled_test = answers.select(id_column, target).join(test.drop(target, strict=False), on=id_column, how="left")
    leaks += _duplicate_leaks(train, labelled_test, id_column, target, regression=not grader.classes)
    return leaks + _view_leaks(task, train, labelled_test)
