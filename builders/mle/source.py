"""Tabular datasets as MLE resources: find them, read their optional settings, load them as frames.

A source is one CSV or Parquet file, or a folder of them. Beside `name.csv` an
optional `name.json` gives what cannot be inferred or should not be guessed:
`target`, `task_type`, `metric`, `id_column`, `group_column`, `description`,
`title`, `test_fraction`, `min_test_rows` (default 2,000: the held-out share
grows up to half the rows to reach it, and a smaller dataset is refused),
`time_column` (the column that orders the rows in time: the test set is then
the latest period; a date column is found without it), and
the leaderboard rules `min_gap_sd`, `search_iterations`,
`linear_at_or_below_median` (see `leaderboard.LeaderboardRules`).
Options passed to the builder override both.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from taskforge.schemas import InputError
from taskforge.store.files import sha256_file

TABLE_SUFFIXES = (".csv", ".parquet")
SETTING_KEYS = ("target", "task_type", "metric", "id_column", "group_column", "time_column", "description", "title",
                "test_fraction", "min_test_rows", "min_gap_sd", "search_iterations", "linear_at_or_below_median")
MIN_TEST_ROWS = 2000
"""Fewest test rows a competition is built with by default: enough that medal gaps exceed the metric's noise."""


@dataclass(frozen=True)
class DatasetSpec:
    """One dataset file and what its settings and the run's options say about it."""

    path: Path
    display: str
    target: str | None = None
    task_type: str | None = None
    metric: str | None = None
    id_column: str | None = None
    group_column: str | None = None
    time_column: str | None = None
    description: str | None = None
    title: str | None = None
    test_fraction: float = 0.2
    min_test_rows: int = MIN_TEST_ROWS
    min_gap_sd: float | None = None
    search_iterations: int | None = None
    linear_at_or_below_median: bool | None = None

    @property
    def name(self) -> str:
        """The dataset's name: its file name without suffix."""
        return self.path.stem

    def revision(self) -> str:
        """The content hash of the dataset file, its revision in lineage."""
        return sha256_file(self.path)


def _settings(sidecar: Path, display: str) -> dict[str, Any]:
    """The settings file beside a dataset, checked; none when there is no such file."""
    if not sidecar.exists():
        return {}
    try:
        settings = json.loads(sidecar.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise InputError(display, f"settings are not valid JSON ({exc})") from None
    if not isinstance(settings, dict):
        raise InputError(display, "settings must be a JSON object")
    unknown = sorted(set(settings) - set(SETTING_KEYS))
    if unknown:
        raise InputError(display, f"unknown settings {unknown}; known: {', '.join(SETTING_KEYS)}")
    return settings


def dataset_paths(source: Path) -> list[Path]:
    """Every dataset under a source: the file itself, or a folder's tables in name order."""
    if not source.exists():
        raise InputError(source.name, "no such file or folder")
    paths = [source] if source.is_file() else sorted(p for p in source.iterdir() if p.suffix in TABLE_SUFFIXES)
    if not paths:
        raise InputError(source.name, f"no {' or '.join(TABLE_SUFFIXES)} dataset in this folder")
    return paths


def dataset_spec(path: Path, source: Path, options: dict[str, Any] | None = None) -> DatasetSpec:
    """A dataset with its settings file and the run's options applied (options win).

    Display names are relative to the source's parent folder, so no host path
    reaches a task, a log or the catalog.
    """
    root = source.parent
    sidecar = path.with_suffix(".json")
    settings = _settings(sidecar, str(sidecar.relative_to(root)))
    chosen = {k: v for k, v in (options or {}).items() if k in SETTING_KEYS and v is not None}
    return DatasetSpec(path=path, display=str(path.relative_to(root)), **{**settings, **chosen})


def load_table(spec: DatasetSpec) -> pl.DataFrame:
    """The dataset as a frame; an unreadable or empty file is an InputError naming it."""
    if spec.path.suffix not in TABLE_SUFFIXES:
        raise InputError(spec.display, f"not a dataset: expected {' or '.join(TABLE_SUFFIXES)}")
    try:
        if spec.path.suffix == ".parquet":
            frame = pl.read_parquet(spec.path)
        else:
            frame = pl.read_csv(spec.path, infer_schema_length=10000, null_values=["", "NA", "NaN", "nan"])
    except (pl.exceptions.PolarsError, OSError, ValueError) as exc:
        first_line = str(exc).splitlines()[0]
        raise InputError(spec.display, f"cannot be read as {spec.path.suffix[1:]}: {first_line}") from None
    if frame.height == 0 or frame.width == 0:
        raise InputError(spec.display, "the dataset is empty")
    return frame
