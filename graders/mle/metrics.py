"""The metrics an MLE competition can be scored by, each with its direction and the prediction it needs.

scikit-learn is imported inside the metrics that use it: it takes over a second to import, and
importing the grader registry must stay cheap for every command.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Literal

import numpy as np

TaskType = Literal["classification", "regression", "ranking"]
Prediction = Literal["label", "probability", "value"]
NDCG_AT = 10
"""NDCG is cut at this rank within each group."""
PROBABILITY_EPSILON = 1e-15
"""Probabilities are clipped to [eps, 1 - eps] before the log loss, as Kaggle does."""


@dataclass(frozen=True)
class Truth:
    """What a metric compares predictions with: labels or values, the class list, and ranking groups."""

    target: np.ndarray
    classes: tuple[str, ...] = ()
    groups: np.ndarray | None = None


@dataclass(frozen=True)
class Metric:
    """A competition metric: how to compute it, whether lower is better, what a submission must predict."""

    name: str
    is_lower_better: bool
    prediction: Prediction
    task_types: tuple[TaskType, ...]
    compute: Callable[[Truth, np.ndarray], float]
    binary_only: bool = False

    def describe(self) -> str:
        """One sentence for the competition description."""
        return f"{DESCRIPTIONS[self.name]} ({'lower' if self.is_lower_better else 'higher'} is better)"


def _accuracy(truth: Truth, predicted: np.ndarray) -> float:
    """Share of rows whose predicted label is the true one."""
    return float(np.mean(truth.target == predicted))


def _f1_macro(truth: Truth, predicted: np.ndarray) -> float:
    """F1 per class, averaged over the classes."""
    from sklearn import metrics as skm

    return float(skm.f1_score(truth.target, predicted, labels=list(truth.classes), average="macro", zero_division=0))


def _roc_auc(truth: Truth, predicted: np.ndarray) -> float:
    """ROC AUC of the probability of the positive class (the last class in sorted order)."""
    from sklearn import metrics as skm

    positive = truth.target == truth.classes[-1]
    return float(skm.roc_auc_score(positive, predicted[:, 0]))


def _log_loss(truth: Truth, predicted: np.ndarray) -> float:
    """Cross-entropy of clipped, row-normalised class probabilities (one column: the positive class)."""
    if predicted.shape[1] == 1:
        positive = predicted[:, 0]
        predicted = np.column_stack([1.0 - positive, positive])
    clipped = np.clip(predicted, PROBABILITY_EPSILON, 1.0 - PROBABILITY_EPSILON)
    clipped = clipped / clipped.sum(axis=1, keepdims=True)
    index = {label: k for k, label in enumerate(truth.classes)}
    rows = np.arange(len(truth.target))
    columns = np.array([index[label] for label in truth.target])
    return float(-np.mean(np.log(clipped[rows, columns])))


def _rmse(truth: Truth, predicted: np.ndarray) -> float:
    """Root mean squared error."""
    return float(np.sqrt(np.mean((truth.target.astype(float) - predicted[:, 0]) ** 2)))


def _mae(truth: Truth, predicted: np.ndarray) -> float:
    """Mean absolute error."""
    return float(np.mean(np.abs(truth.target.astype(float) - predicted[:, 0])))


def _ndcg(truth: Truth, predicted: np.ndarray) -> float:
    """Mean NDCG@k over the groups with at least two rows (ties in the scores are averaged, not broken)."""
    from sklearn import metrics as skm

    relevance = truth.target.astype(float)
    values = []
    for group in np.unique(truth.groups):
        rows = truth.groups == group
        if rows.sum() < 2:
            continue
        values.append(skm.ndcg_score(relevance[rows][None, :], predicted[rows, 0][None, :], k=NDCG_AT))
    return float(np.mean(values))


METRICS: dict[str, Metric] = {metric.name: metric for metric in (
    Metric("accuracy", False, "label", ("classification",), _accuracy),
    Metric("f1_macro", False, "label", ("classification",), _f1_macro),
    Metric("roc_auc", False, "probability", ("classification",), _roc_auc, binary_only=True),
    Metric("log_loss", True, "probability", ("classification",), _log_loss),
    Metric("rmse", True, "value", ("regression",), _rmse),
    Metric("mae", True, "value", ("regression",), _mae),
    Metric(f"ndcg@{NDCG_AT}", False, "value", ("ranking",), _ndcg),
)}

DESCRIPTIONS = {
    "accuracy": "accuracy: the share of test rows whose predicted class is the true class",
    "f1_macro": "macro-averaged F1: the F1 score of each class, averaged over the classes with equal weight",
    "roc_auc": "area under the ROC curve of the predicted probability of the positive class",
    "log_loss": "log loss (cross-entropy) of the predicted class probabilities, clipped to [1e-15, 1 - 1e-15] "
                "and renormalised per row",
    "rmse": "root mean squared error between predicted and true values",
    "mae": "mean absolute error between predicted and true values",
    f"ndcg@{NDCG_AT}": f"NDCG@{NDCG_AT} of the rows of each group ordered by predicted score, averaged over groups",
}


def default_metric(task_type: TaskType, n_classes: int) -> str:
    """The metric a task is scored by when none is asked for."""
    if task_type == "regression":
        return "rmse"
    if task_type == "ranking":
        return f"ndcg@{NDCG_AT}"
    return "roc_auc" if n_classes == 2 else "accuracy"
