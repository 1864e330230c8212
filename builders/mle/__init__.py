"""The MLE family: Kaggle-style machine-learning competitions built from tabular datasets.

One task per dataset of the source (a CSV/Parquet file or a folder of them):
the builder infers the problem, prepares a seeded split, runs baseline
solutions in the sandbox for a leaderboard and medal thresholds, and writes the
description. A dataset it cannot use is yielded as a `Quarantined` record with
the reason, and the other datasets go on; an infrastructure failure (no
sandbox, engine gone) is raised, so that the batch is retried. A task is
labelled with the plan item's capability when a competition exercises it
(`EXERCISED`), else with `method_assumptions`.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Iterator

from taskforge.builders.base import BuildContext
from taskforge.builders.mle.leaderboard import LeaderboardRules
from taskforge.graders.mle.baseline_runs import BaselineEnvironmentError, BaselineError
from taskforge.builders.mle.prepare import PreparationError
from taskforge.builders.mle.source import DatasetSpec, dataset_paths, dataset_spec
from taskforge.builders.mle.task import competition_task
from taskforge.sandbox import get_sandbox
from taskforge.schemas import InputError, PlanItem, Quarantined, Task
from taskforge.schemas.locations import join

CACHE_FOLDER = ("cache", "mle-leaderboards")
"""Where under the data dir the sandbox runs of the reference solutions are cached."""
EXERCISED = ("method_assumptions", "implementation", "output_sanity_checking")
"""The capabilities a competition exercises (choosing and tuning a method for the data, writing it, checking
its predictions); a plan item asking for another is labelled with the first."""
DATASET_ERRORS = (InputError, BaselineError, PreparationError, BaselineEnvironmentError)
"""Failures that stop one dataset: it is quarantined and the others go on (a sandbox without the baselines'
packages is recorded as infrastructure, without retries that could not help)."""


class MleBuilder:
    """Builds tabular competitions from the datasets of a source, one task per dataset."""

    family = "mle"
    name = "mle.tabular"
    version = "0.1.0"
    default_source = "mle"

    def build(self, item: PlanItem, context: BuildContext) -> Iterator[Task | Quarantined]:
        """One task per dataset of the item's slice of the source, in name order; unusable ones quarantined."""
        source = context.options.get("source")
        if not source:
            yield Quarantined.from_error(InputError("mle", "no dataset source given"), "build", "mle")
            return
        root = Path(source)
        try:
            paths = dataset_paths(root)
        except InputError as exc:
            yield Quarantined.from_error(exc, "build", exc.source)
            return
        chosen = paths[context.first_index: context.first_index + item.quota]
        if not chosen:
            return
        sandbox = get_sandbox(context.options.get("sandbox"))
        capability = item.capability if item.capability in EXERCISED else EXERCISED[0]
        lineage = {"cycle_id": context.cycle_id, "gap_ids": item.gap_ids, "builder": self.name,
                   "builder_version": self.version}
        for path in chosen:
            display = str(path.relative_to(root.parent))
            try:
                spec = dataset_spec(path, root, context.options)
                yield competition_task(spec, sandbox, capability, lineage, context.seed,
                                       rules=leaderboard_rules(spec, context))
            except DATASET_ERRORS as exc:
                yield Quarantined.from_error(exc, "build", display)


def leaderboard_rules(spec: DatasetSpec, context: BuildContext) -> LeaderboardRules:
    """The leaderboard rules of one dataset: defaults, overridden by its settings or the run's options
    (`min_gap_sd`, `search_iterations`, `linear_at_or_below_median`); sandbox runs cached under the data dir
    (option `cache: false` turns that off)."""
    cache = join(context.data_dir, *CACHE_FOLDER) if context.data_dir and context.options.get("cache", True) else None
    chosen = {name: getattr(spec, name) for name in ("min_gap_sd", "search_iterations", "linear_at_or_below_median")
              if getattr(spec, name) is not None}
    return replace(LeaderboardRules(cache=cache), **chosen)
