"""Tabular datasets generated for MLE tests: small, seeded, with a learnable signal."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl


def generated_frame(kind: str, rows: int = 240, seed: int = 0) -> pl.DataFrame:
    """A dataset of one task kind: `binary` (label 0/1), `multiclass` (species), `regression` (target), `ranking`."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(rows, 4))
    colour = rng.choice(["red", "green", "blue"], rows)
    signal = 1.6 * x[:, 0] - 1.1 * x[:, 1] * x[:, 2] + 0.8 * (colour == "red") + np.sin(2 * x[:, 3])
    noisy = signal + rng.normal(0, 0.6, rows)
    frame = pl.DataFrame({f"x{k}": x[:, k].round(4) for k in range(4)}).with_columns(pl.Series("colour", colour))
    if kind == "binary":
        return frame.with_columns(pl.Series("label", (noisy > 0.3).astype(int)))
    if kind == "multiclass":
        species = np.where(noisy < -0.6, "ash", np.where(noisy < 0.9, "birch", "cedar"))
        return frame.with_columns(pl.Series("species", species))
    if kind == "regression":
        return frame.with_columns(pl.Series("target", (10 + 3 * noisy).round(3)))
    if kind == "ranking":
        relevance = np.digitize(noisy, [-1.0, 0.0, 1.0])
        return frame.with_columns(pl.Series("query", np.arange(rows) // 8), pl.Series("relevance", relevance))
    raise ValueError(f"unknown kind {kind!r}")


def write_dataset(frame: pl.DataFrame, folder: Path, name: str, settings: dict[str, Any] | None = None) -> Path:
    """Write a dataset as CSV (with its settings file when given) and return its path."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.csv"
    frame.write_csv(path)
    if settings:
        (folder / f"{name}.json").write_text(json.dumps(settings), encoding="utf-8")
    return path
