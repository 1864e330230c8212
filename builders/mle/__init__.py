"""The MLE family: Kaggle-style machine-learning competitions built from tabular datasets.

One task per dataset of the source (a CSV/Parquet file or a folder of them):
the builder infers the problem, prepares a seeded split, runs baseline
solutions in the sandbox for a leaderboard and medal thresholds, and writes the
description. A dataset it cannot use is yielded as a `Quarantined` record with
the reason, and the other datasets go on.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

from builders.base import BuildContext
from builders.mle.leaderboard import BaselineError
from builders.mle.prepare import PreparationError
from builders.mle.source import dataset_paths, dataset_spec
from builders.mle.task import competition_task
from sandbox import get_sandbox
from schemas import InfrastructureError, InputError, PlanItem, Quarantined, Task, content_id

BUILD_ERRORS = (InputError, BaselineError, PreparationError, InfrastructureError)


def quarantined(source: str, error: Exception) -> Quarantined:
    """A dataset the builder could not turn into a task, with the reason."""
    reason = str(error)
    return Quarantined(item_id=content_id({"stage": "build", "source": source, "reason": reason}, prefix="q-"),
                       stage="build", source=source, error_type=type(error).__name__, reason=reason,
                       infrastructure=isinstance(error, InfrastructureError))


class MleBuilder:
    """Builds tabular competitions from the datasets of a source, one task per dataset."""

    family = "mle"
    name = "mle.tabular"
    version = "0.1.0"
    default_source = "mle"

    def build(self, item: PlanItem, context: BuildContext) -> Iterator[Task | Quarantined]:
        source = context.options.get("source")
        if not source:
            yield quarantined("mle", InputError("mle", "no dataset source given"))
            return
        root = Path(source)
        try:
            paths = dataset_paths(root)
        except InputError as exc:
            yield quarantined(exc.source, exc)
            return
        chosen = paths[context.first_index: context.first_index + item.quota]
        if not chosen:
            return
        try:
            sandbox = get_sandbox(context.options.get("sandbox"))
        except InfrastructureError as exc:
            for path in chosen:
                yield quarantined(str(path.relative_to(root.parent)), exc)
            return
        lineage = {"cycle_id": context.cycle_id, "gap_ids": item.gap_ids, "builder": self.name,
                   "builder_version": self.version}
        for path in chosen:
            display = str(path.relative_to(root.parent))
            try:
                spec = dataset_spec(path, root, context.options)
                yield competition_task(spec, sandbox, item.capability, lineage, context.seed)
            except BUILD_ERRORS as exc:
                yield quarantined(display, exc)
