"""The leaderboard of a competition: baseline solutions run in the sandbox, graded, and the medal thresholds.

Adapting MLE-bench's rule to a synthetic leaderboard: MLE-bench places medal
thresholds at Kaggle leaderboard positions (for fewer than 100 teams: gold at
the top 10%, silver 20%, bronze 40%, each position at least 1) and takes the
median of all scores. Our "teams" are baseline entries: a model family (a
constant, a shallow tree, a linear model, a random forest, gradient-boosted
trees) fitted on a seeded share of the training rows (10%, 30%, 100%), which
spreads the scores the way a real leaderboard does. With fewer than 10 entries
Kaggle's shares all round to position 1; with our 10 the cut-offs fall on
positions 1, 2 and 4, so gold is the best baseline, silver the second, bronze
the fourth. The direction comes from the metric, not from the leaderboard order.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from taskforge.builders.mle.prepare import Competition
from taskforge.graders.mle.grading import (MIN_LEADERBOARD, InvalidSubmission, Thresholds, metric_score, prediction_columns,
                         thresholds_from_leaderboard)
from taskforge.graders.mle.baseline_runs import BASELINE_ENVIRONMENT, BaselineError, BaselineRuns, run_plan
from taskforge.graders.mle.baseline_runs import baseline_workspace as plan_workspace
from taskforge.graders.mle.metrics import METRICS
from taskforge.sandbox import Sandbox

ENTRIES: tuple[tuple[str, float], ...] = (
    ("constant", 1.0), ("shallow_tree", 1.0),
    ("linear", 0.1), ("linear", 0.3), ("linear", 1.0),
    ("random_forest", 0.3), ("random_forest", 1.0),
    ("gradient_boosting", 0.1), ("gradient_boosting", 0.3), ("gradient_boosting", 1.0),
)
"""Baseline entries of increasing strength: (model family, share of the training rows it sees)."""


@dataclass(frozen=True)
class Leaderboard:
    """Graded baseline entries, best first, the thresholds derived from them, and the best submission."""

    entries: list[dict[str, Any]]
    thresholds: Thresholds
    best_submission: str
    excluded: dict[str, str] = field(default_factory=dict)

    @property
    def best(self) -> dict[str, Any]:
        """The top entry."""
        return self.entries[0]


def entry_name(model: str, fraction: float) -> str:
    """The file-safe name of a baseline entry, e.g. `linear_030`."""
    return f"{model}_{int(round(fraction * 100)):03d}"


def baseline_plan(competition: Competition, seed: int) -> dict[str, Any]:
    """What the baseline script needs to know: columns, task, prediction format, the entries to run."""
    problem = competition.problem
    return {
        "seed": seed % (2**31), "id_column": competition.id_column, "target_column": problem.target,
        "task_type": problem.task_type, "metric": problem.metric,
        "prediction": METRICS[problem.metric].prediction, "classes": list(problem.classes),
        "prediction_columns": prediction_columns(competition.grader), "group_column": problem.group_column,
        "features": [*problem.features, *([problem.group_column] if problem.group_column else [])],
        "entries": [{"name": entry_name(model, fraction), "model": model, "fraction": fraction}
                    for model, fraction in ENTRIES],
    }


def baseline_workspace(competition: Competition, plan: dict[str, Any], root: Path) -> Path:
    """A folder with the public train and test files, the script and its plan (nothing private)."""
    return plan_workspace(plan, competition.public, root)


def run_baselines(competition: Competition, sandbox: Sandbox, seed: int) -> BaselineRuns:
    """Run every baseline entry in one sandbox job with the network off; return their submissions."""
    return run_plan(baseline_plan(competition, seed), competition.public, sandbox,
                    label=f"mle-baselines-{competition.competition_id}", python_env=BASELINE_ENVIRONMENT)


def build_leaderboard(competition: Competition, runs: BaselineRuns) -> Leaderboard:
    """Grade every baseline submission against the private answers and derive the medal thresholds."""
    lower = competition.grader["is_lower_better"]
    fractions = {entry_name(model, fraction): (model, fraction) for model, fraction in ENTRIES}
    excluded = dict(runs.errors)
    graded = []
    for name, text in runs.submissions.items():
        try:
            score = metric_score(text, competition.answers, competition.grader)
        except InvalidSubmission as exc:
            excluded[name] = f"invalid submission: {exc}"
            continue
        model, fraction = fractions[name]
        graded.append({"entry": name, "model": model, "train_fraction": fraction, "score": score})
    if len(graded) < MIN_LEADERBOARD:
        raise BaselineError(f"only {len(graded)} of {len(ENTRIES)} baselines were graded (at least {MIN_LEADERBOARD} "
                            f"are needed): {excluded}")
    graded.sort(key=lambda e: (e["score"] if lower else -e["score"], e["entry"]))
    for rank, entry in enumerate(graded, start=1):
        entry["rank"] = rank
    thresholds = thresholds_from_leaderboard([e["score"] for e in graded], lower)
    return Leaderboard(entries=graded, thresholds=thresholds, best_submission=runs.submissions[graded[0]["entry"]],
                       excluded=excluded)
