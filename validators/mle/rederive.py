"""The MLE leaderboard, re-derived: the leaderboard's baselines run again in the sandbox on the public files (the
plan rebuilt from the task: its columns, metric, split seed and the stored entries), each graded against the
stored private answers, and the medal thresholds derived from those scores. Every MLE check that grades against
thresholds reads them from here, never from the ones the task stores.

The runs are cached by the content hash of the baseline script, the plan and the
public train and test files (`taskforge.validators.cache`, kind
`mle-baselines`): the checks of one task share one sandbox job, and a rerun of
validation pays for none. One extra job, cached the same way, re-runs the best
entry without one column when the leakage check must know what the honest
baselines reach without it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from taskforge import sandbox
from taskforge.graders.mle.baseline_runs import BASELINE_SCRIPT, run_plan, search_settings
from taskforge.graders.mle.grading import (InvalidSubmission, Thresholds, frame_from_csv, metric_score,
                                           prediction_columns, thresholds_from_leaderboard)
from taskforge.graders.mle.metrics import METRICS
from taskforge.schemas import Task, TaskforgeError
from taskforge.schemas.mle import MleGrader, MlePayload, MleReference
from taskforge.validators.cache import cached_run

CACHE_KIND = "mle-baselines"
LINEAR_SHORTCUT = "shortcut_linear"
"""A plain linear model on all of train, run beside the leaderboard's entries (the `linear_model` shortcut)."""


class LeaderboardUnavailable(TaskforgeError):
    """Too few baselines could be graded to derive thresholds from."""


@dataclass(frozen=True)
class RederivedLeaderboard:
    """The baselines' scores as graded now, best first; the thresholds they give; every submission; errors."""

    scores: dict[str, float]
    order: list[str]
    thresholds: Thresholds
    submissions: dict[str, str]
    errors: dict[str, str]
    cached: bool

    @property
    def best(self) -> str:
        return self.order[0]


def baseline_plan(task: Task, entries: list[dict[str, Any]], drop: tuple[str, ...] = ()) -> dict[str, Any]:
    """The baseline script's plan for a stored task: its columns and metric, the seed of its split, the entries."""
    payload, grader = MlePayload.of(task), MleGrader.of(task)
    header = frame_from_csv(payload.files.train, "train.csv").columns
    features = [c for c in header if c not in (payload.id_column, payload.target_column, *drop)]
    seed = payload.split.seed
    return {"seed": None if seed is None else seed % (2**31), "id_column": payload.id_column,
            "target_column": payload.target_column, "task_type": payload.task_type, "metric": payload.metric,
            "prediction": METRICS[payload.metric].prediction, "classes": list(grader.classes),
            "prediction_columns": prediction_columns(task.grader), "group_column": payload.group_column,
            "features": features, "time_column": payload.split.time_column, "entries": entries, **search_settings(), **payload.search}


def run_cached(task: Task, plan: dict[str, Any], kind: str = CACHE_KIND) -> tuple[dict[str, Any], bool]:
    """The baseline runs of a plan on the task's public files (from the cache of that kind when run before)."""
    public = MlePayload.of(task).files.by_name()
    sources = {"script": BASELINE_SCRIPT.read_text(encoding="utf-8"), "plan": plan,
               "train": public["train.csv"], "test": public["test.csv"]}

    def run() -> dict[str, Any]:
        runs = run_plan(plan, public, sandbox.default_sandbox(), label=f"mle-rederive:{task.task_id}")
        return {"submissions": runs.submissions, "errors": runs.errors, "backend": runs.backend}

    return cached_run(kind, sources, run)


def graded(task: Task, submissions: dict[str, str]) -> tuple[dict[str, float], dict[str, str]]:
    scores, errors = {}, {}
    for name, text in submissions.items():
        try:
            scores[name] = metric_score(text, MleReference.of(task).answers, task.grader)
        except InvalidSubmission as exc:
            errors[name] = f"invalid submission: {exc}"
    return scores, errors


def rederived_leaderboard(task: Task) -> RederivedLeaderboard:
    """The stored leaderboard's entries, and the linear shortcut, run again and graded against the answers."""
    entries = [{"name": e.entry, "model": e.model, "fraction": e.train_fraction}
               for e in MlePayload.of(task).leaderboard]
    runs, cached = run_cached(task, baseline_plan(task, [*entries, {"name": LINEAR_SHORTCUT, "model": "linear",
                                                                    "fraction": 1.0}]))
    scores, invalid = graded(task, runs["submissions"])
    board = {e["name"]: scores[e["name"]] for e in entries if e["name"] in scores}
    if len(board) < 2:
        raise LeaderboardUnavailable(f"only {len(board)} baselines could be graded when run again: "
                                     f"{ {**runs['errors'], **invalid} }")
    lower = MleGrader.of(task).is_lower_better
    order = sorted(board, key=lambda name: (board[name] if lower else -board[name], name))
    return RederivedLeaderboard(scores=scores, order=order,
                                thresholds=thresholds_from_leaderboard(list(board.values()), lower),
                                submissions=runs["submissions"], errors={**runs["errors"], **invalid}, cached=cached)


def rederived_grader(task: Task) -> dict[str, Any]:
    """The task's grader with the medal thresholds the re-run baselines give."""
    return {**task.grader, "thresholds": vars(rederived_leaderboard(task).thresholds)}


def honest_score(task: Task, without: str) -> float | None:
    """What the leaderboard's best entry scores when run again without one public column (None: it failed)."""
    best = rederived_leaderboard(task).best
    entry = next(e for e in MlePayload.of(task).leaderboard if e.entry == best)
    plan = baseline_plan(task, [{"name": best, "model": entry.model, "fraction": entry.train_fraction}], (without,))
    runs, _ = run_cached(task, plan)
    scores, _ = graded(task, runs["submissions"])
    return scores.get(best)
