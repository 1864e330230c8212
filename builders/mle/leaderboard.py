"""The leaderboard of a competition: reference solutions run in the sandbox, graded, and the medal thresholds.

Adapting MLE-bench's rule to a leaderboard of reference solutions: MLE-bench
places medal thresholds at Kaggle leaderboard positions (for fewer than 100
teams: gold at the top 10%, silver 20%, bronze 40%, each position at least 1)
and takes the median of all scores. Our "teams" are what competent
practitioners submit, from a default linear model to tuned gradient boosting
and a stack (`ENTRIES`); with 15 of them gold is the best entry, silver the
third, bronze the sixth, the median the eighth. The direction comes from the
metric, not from the leaderboard order.

Two rules make a medal mean something (`LeaderboardRules`): a default linear
model must land at or below the median (it earns no reward), and the gold
threshold must lie `min_gap_sd` bootstrap deviations of the metric beyond the
median (`noise`). A competition that breaks either is refused with the figures.
The sandbox job is the expensive part (cross-validated searches): its result is
cached under the data dir by the content of the script, the plan and the
public files, so a rebuild replays it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from taskforge.builders.mle.noise import MIN_GAP_SD, RESAMPLES, Noise, bootstrap_sd, medal_gaps
from taskforge.builders.mle.prepare import Competition, checksum
from taskforge.graders.mle.grading import (MIN_LEADERBOARD, InvalidSubmission, Thresholds, metric_score, prediction_columns,
                         thresholds_from_leaderboard)
from taskforge.graders.mle.metrics import METRICS
from taskforge.graders.mle.baseline_runs import (BASELINE_ENVIRONMENT, BASELINE_SCRIPT, SEARCH_ITERATIONS,
                                                 BaselineError, BaselineRuns, run_plan, search_settings)
from taskforge.graders.mle.baseline_runs import baseline_workspace as plan_workspace
from taskforge.sandbox import Sandbox
from taskforge.schemas import content_id
from taskforge.schemas.locations import Location, exists, join, read_text
from taskforge.store.files import write_text_atomic

ENTRIES: tuple[tuple[str, float], ...] = (
    ("constant", 1.0), ("shallow_tree", 1.0), ("linear", 0.3), ("linear", 1.0), ("knn", 1.0),
    ("linear_tuned", 1.0), ("gradient_boosting", 0.3), ("random_forest", 0.3), ("gradient_boosting", 1.0),
    ("random_forest", 1.0), ("extra_trees", 1.0), ("knn_tuned", 1.0), ("random_forest_tuned", 1.0),
    ("gradient_boosting_tuned", 1.0), ("stacking", 1.0),
)
"""The leaderboard's teams: (model, share of the training rows it sees). Beside a constant, a shallow tree and
default linear and neighbours models, what competent teams submit: default tree ensembles (some on part of
the data), a linear model on spline features with tuned regularisation, tuned neighbours, a random forest and
gradient-boosted trees tuned by a randomised cross-validated search, and a stack of the tuned models (run
after them, reusing their choices). With 15 teams Kaggle's rule puts gold at rank 1, silver at 3, bronze at 6
and the median at rank 8."""
DEFAULT_LINEAR = "linear_100"
"""The entry of a default linear model, which the thresholds must leave at or below the median."""



@dataclass(frozen=True)
class LeaderboardRules:
    """How thoroughly the references are tuned and what a leaderboard must show to be kept."""

    search_iterations: int = SEARCH_ITERATIONS
    min_gap_sd: float = MIN_GAP_SD
    resamples: int = RESAMPLES
    linear_at_or_below_median: bool = True
    """Refuse a competition a default linear model does well in (off only for small test fixtures)."""
    cache: Location | None = None
    """Where sandbox runs are cached (None: no cache)."""



@dataclass(frozen=True)
class Leaderboard:
    """Graded baseline entries, best first, the thresholds derived from them, and the best submission."""

    entries: list[dict[str, Any]]
    thresholds: Thresholds
    best_submission: str
    noise: Noise
    excluded: dict[str, str] = field(default_factory=dict)

    @property
    def best(self) -> dict[str, Any]:
        """The top entry."""
        return self.entries[0]


def entry_name(model: str, fraction: float) -> str:
    """The file-safe name of a baseline entry, e.g. `linear_030`."""
    return f"{model}_{int(round(fraction * 100)):03d}"


def baseline_plan(competition: Competition, seed: int, search_iterations: int = SEARCH_ITERATIONS) -> dict[str, Any]:
    """What the baseline script needs to know: columns, task, prediction format, the entries to run."""
    problem = competition.problem
    return {
        "seed": seed % (2**31), "id_column": competition.id_column, "target_column": problem.target,
        "task_type": problem.task_type, "metric": problem.metric,
        "prediction": METRICS[problem.metric].prediction, "classes": list(problem.classes),
        "prediction_columns": prediction_columns(competition.grader), "group_column": problem.group_column,
        "features": [*problem.features, *([problem.group_column] if problem.group_column else [])],
        "time_column": problem.time_column, "entries": [{"name": entry_name(model, fraction), "model": model, "fraction": fraction}
                    for model, fraction in ENTRIES],
        **search_settings(search_iterations),
    }


def baseline_workspace(competition: Competition, plan: dict[str, Any], root: Path) -> Path:
    """A folder with the public train and test files, the script and its plan (nothing private)."""
    return plan_workspace(plan, competition.public, root)


def _cache_entry(rules: LeaderboardRules, plan: dict[str, Any], competition: Competition) -> Location | None:
    """The cache file of one sandbox job: addressed by the script, the plan and the public files it reads."""
    if rules.cache is None:
        return None
    key = content_id({"script": checksum(BASELINE_SCRIPT.read_text(encoding="utf-8")), "plan": plan,
                      "train": checksum(competition.public["train.csv"]),
                      "test": checksum(competition.public["test.csv"])}, prefix="baselines-", length=32)
    return join(rules.cache, f"{key}.json")


def run_baselines(competition: Competition, sandbox: Sandbox, seed: int,
                  rules: LeaderboardRules = LeaderboardRules()) -> BaselineRuns:
    """Run every baseline entry in one sandbox job with the network off (or replay it from the cache)."""
    plan = baseline_plan(competition, seed, rules.search_iterations)
    cached = _cache_entry(rules, plan, competition)
    if cached is not None and exists(cached):
        return BaselineRuns(**{**json.loads(read_text(cached)), "seconds": 0.0})
    runs = _sandbox_run(competition, sandbox, plan)
    if cached is not None:
        write_text_atomic(cached, json.dumps({"submissions": runs.submissions, "errors": runs.errors,
                                              "backend": runs.backend}))
    return runs


def _sandbox_run(competition: Competition, sandbox: Sandbox, plan: dict[str, Any]) -> BaselineRuns:
    """The sandbox job that fits every entry on the public files."""
    return run_plan(plan, competition.public, sandbox, label=f"mle-baselines-{competition.competition_id}",
                    python_env=BASELINE_ENVIRONMENT)


def build_leaderboard(competition: Competition, runs: BaselineRuns, seed: int = 0,
                      rules: LeaderboardRules = LeaderboardRules()) -> Leaderboard:
    """Grade every baseline submission against the private answers, derive the medal thresholds, measure the
    metric's bootstrap noise; raise BaselineError when the leaderboard breaks one of the rules."""
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
    best = runs.submissions[graded[0]["entry"]]
    noise = measured_noise(competition, graded[0]["entry"], best, thresholds, seed, rules)
    _check_rules(graded, thresholds, noise, lower, rules)
    return Leaderboard(entries=graded, thresholds=thresholds, best_submission=best, noise=noise, excluded=excluded)


def measured_noise(competition: Competition, entry: str, submission: str, thresholds: Thresholds, seed: int,
                   rules: LeaderboardRules) -> Noise:
    """The bootstrap deviation of the best entry's metric and the medal gaps in its units."""
    sd = bootstrap_sd(submission, competition.answers, competition.grader, prediction_columns(competition.grader),
                      seed, rules.resamples)
    if sd <= 0:
        raise BaselineError(f"the metric of the best entry {entry} does not vary over {rules.resamples} bootstrap "
                            "resamples of the test set: the competition cannot rank submissions")
    return Noise(bootstrap_sd=sd, resamples=rules.resamples, entry=entry, gaps_sd=medal_gaps(thresholds, sd),
                 min_gold_median_sd=rules.min_gap_sd)


def _check_rules(graded: list[dict[str, Any]], thresholds: Thresholds, noise: Noise, lower: bool,
                 rules: LeaderboardRules) -> None:
    """A default linear model at or below the median, and a gold threshold clear of the noise."""
    linear = next((e for e in graded if e["entry"] == DEFAULT_LINEAR), None)
    if linear is None:
        raise BaselineError(f"the default linear model ({DEFAULT_LINEAR}) has no graded submission")
    beats_median = linear["score"] < thresholds.median if lower else linear["score"] > thresholds.median
    if beats_median and rules.linear_at_or_below_median:
        raise BaselineError(f"a default linear model scores {linear['score']}, beyond the median threshold "
                            f"{thresholds.median}: tuning earns nothing here, the competition is too easy")
    if noise.gaps_sd["gold_median"] < rules.min_gap_sd:
        raise BaselineError(f"the gold threshold {thresholds.gold} is {noise.gaps_sd['gold_median']} bootstrap "
                            f"deviations ({noise.bootstrap_sd}) from the median {thresholds.median}, fewer than "
                            f"{rules.min_gap_sd}: a medal would not stand out of the test set's noise")
