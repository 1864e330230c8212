"""Batch-sized Prefect tasks: each reads its inputs from files, writes its outputs to files, returns paths.

Every task is idempotent: when its output file already exists (it is only ever
renamed into place complete), the task returns it instead of redoing the work.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from prefect import task

from builders.base import BuildContext
from builders.registry import builder_for
from diagnosis.readers import SourceFile, read_traces
from diagnosis.rules import diagnose
from schemas import Diagnosis, Episode, InfrastructureError, PlanItem, Quarantined, Task
from store.batches import iter_batch, write_batch
from validators.runner import validate_all


@task(name="diagnose-batch")
def diagnose_batch(sources: list[tuple[str, str]], out_dir: str, batch_id: str) -> dict[str, str]:
    """Read a batch of trace files into episodes, diagnose them, and quarantine what cannot be read."""
    out = Path(out_dir)
    paths = {kind: out / f"{batch_id}.{kind}.parquet" for kind in ("episodes", "diagnoses", "quarantine")}
    if paths["quarantine"].exists():
        return {kind: str(path) for kind, path in paths.items()}
    episodes: list[Episode] = []
    quarantined: list[Quarantined] = []
    for item in read_traces(SourceFile(path=Path(p), name=name) for p, name in sources):
        (quarantined if isinstance(item, Quarantined) else episodes).append(item)
    diagnoses: list[Diagnosis] = [d for e in episodes for d in diagnose(e)]
    write_batch(paths["episodes"], episodes, Episode)
    write_batch(paths["diagnoses"], diagnoses, Diagnosis)
    write_batch(paths["quarantine"], quarantined, Quarantined)
    return {kind: str(path) for kind, path in paths.items()}


def infrastructure_failure(task: object, task_run: object, state: Any) -> bool:
    """Retry a batch only when it failed for an infrastructure reason (never for a task's own failure)."""
    try:
        state.result()
    except InfrastructureError:
        return True
    except Exception:  # any other failure is final
        return False
    return False


@task(name="build-batch", retries=2, retry_delay_seconds=5, retry_condition_fn=infrastructure_failure)
def build_batch(item: dict[str, Any], context: dict[str, Any], out_path: str) -> dict[str, str]:
    """Build the candidates of one plan item (or one slice of it) into a batch file.

    Candidates the builder could not build, and a builder that fails outright,
    are written as quarantine records beside the batch; an infrastructure
    failure is raised instead, so Prefect retries the batch a bounded number of times.
    """
    out = Path(out_path)
    failed = out.with_suffix(".quarantine.parquet")
    if not out.exists():
        plan_item = PlanItem.model_validate(item)
        built: list[Task] = []
        quarantined: list[Quarantined] = []
        try:
            for candidate in builder_for(plan_item.family).build(plan_item, BuildContext(**context)):
                (quarantined if isinstance(candidate, Quarantined) else built).append(candidate)
        except InfrastructureError:
            raise
        except Exception as exc:  # a builder failing on its resource must not stop the cycle
            source = f"{plan_item.family}:{plan_item.capability}#{context.get('first_index', 0)}"
            quarantined.append(Quarantined.from_error(exc, "build", source))
        write_batch(failed, quarantined, Quarantined)
        write_batch(out, built, Task, crash_at="build")
    return {"candidates": str(out), "quarantine": str(failed)}


@task(name="validate-batch")
def validate_batch(built: dict[str, str], out_path: str) -> dict[str, Any]:
    """Run every check on a batch of candidates; write the decided tasks; return their counts."""
    out = Path(out_path)
    if not out.exists():
        write_batch(out, validate_all(iter_batch(Path(built["candidates"]), Task)), Task, crash_at="validate")
    return {"path": str(out), "counts": batch_counts(out), "quarantine": built["quarantine"]}


def batch_counts(path: Path) -> dict[str, dict[str, Any]]:
    """Candidates, accepted, rejected and rejections by failing check, per family, in one decided batch."""
    counts: dict[str, dict[str, Any]] = {}
    for decided in iter_batch(path, Task):
        family = counts.setdefault(decided.family, {"candidates": 0, "accepted": 0, "rejected": 0,
                                                    "rejected_by_check": Counter()})
        family["candidates"] += 1
        family[decided.status] += 1
        for result in decided.validation:
            if not result.passed:
                family["rejected_by_check"][result.check] += 1
    for family in counts.values():
        family["rejected_by_check"] = dict(sorted(family["rejected_by_check"].items()))
    return counts
