"""The MLE family's contract, in the MLE-bench shape: public files, metric and leaderboard (payload);
private answers and the best baseline (reference); metric, columns, classes and medal thresholds (grader)."""

from __future__ import annotations

from typing import Literal

from pydantic import ConfigDict, Field

from taskforge.schemas.base import Record
from taskforge.schemas.family import FamilyGrader, FamilyPayload, FamilyReference


class PublicFiles(Record):
    """The files of the solver's workspace (`public/`)."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    description: str = Field(alias="description.md")
    train: str = Field(alias="train.csv")
    test: str = Field(alias="test.csv")
    sample_submission: str = Field(alias="sample_submission.csv")

    def by_name(self) -> dict[str, str]:
        """Each file's text under its file name."""
        return self.model_dump(by_alias=True)


class MedalThresholds(Record):
    """Scores a submission must reach for each medal, and the leaderboard median it must beat."""

    gold: float
    silver: float
    bronze: float
    median: float


class LeaderboardEntry(Record):
    """One baseline run on the leaderboard."""

    entry: str
    model: str
    rank: int
    score: float
    train_fraction: float


class LeaderboardNoise(Record):
    """The metric's bootstrap standard deviation on the test set (of the best entry's submission) and the medal
    gaps in its units."""

    bootstrap_sd: float
    resamples: int
    entry: str
    gaps_sd: dict[str, float]
    min_gold_median_sd: float


class MleSplit(Record):
    """How the rows were held out. `strategy`: `time` (a dataset ordered in time: the test set is the latest
    period of `time_column`, from `test_from` on, train up to `train_until`), `stratified` (by class), `groups`
    (whole ranking groups) or `random`; tasks stored before the strategy was recorded were split at random
    (stratified for classification). `seed` seeds the split and the leaderboard's baselines; a split drawn
    without one (None) can be re-derived by nothing, and the determinism check rejects it."""

    strategy: Literal["time", "stratified", "groups", "random"] = "random"
    seed: int | None
    rows: int
    source_rows: int
    train_rows: int
    test_rows: int
    test_fraction: float
    bytes: int
    stratified_by: str | None = None
    duplicates_dropped: int = 0
    """Rows that repeated another row exactly (features and label), dropped before the split."""
    subsampled: bool
    time_column: str | None = None
    train_until: str | None = None
    test_from: str | None = None


class MlePayload(FamilyPayload):
    """What defines a competition and what the solver's workspace holds."""

    competition_id: str
    title: str
    task_type: str
    target_column: str
    id_column: str
    group_column: str | None = None
    metric: str
    is_lower_better: bool
    storage: str
    files: PublicFiles
    checksums: dict[str, str]
    split: MleSplit
    dropped_columns: list[str]
    leaderboard: list[LeaderboardEntry]
    search: dict[str, int] = Field(default_factory=dict)
    """How the leaderboard's tuned entries searched (iterations, folds, rows): the checks rerun them the same way."""
    thresholds: MedalThresholds
    description_writer: str
    noise: LeaderboardNoise | None = None


class MleReference(FamilyReference):
    """The private answers and the best baseline's submission, entry and score."""

    answers: str
    best_submission: str
    best_entry: str
    best_score: float
    checksums: dict[str, str]
    baseline_errors: dict[str, str] = Field(default_factory=dict)
    baseline_backend: str


class MleGrader(FamilyGrader):
    """The competition's metric, direction, columns, classes and medal thresholds."""

    scorer: str
    competition_id: str
    metric: str
    is_lower_better: bool
    id_column: str
    target_column: str
    classes: list[str] = Field(default_factory=list)
    group_column: str | None = None
    thresholds: MedalThresholds
