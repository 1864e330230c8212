"""Batch-sized Prefect tasks: each reads its inputs from files, writes its outputs to files, returns paths.

Every task is idempotent: when its output file already exists (it is only ever
renamed into place complete), the task returns it instead of redoing the work.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from prefect import task

from agents.client import Agents
from agents.session import using
from builders.base import BuildContext
from builders.registry import builder_for
from diagnosis.llm import diagnose_episodes
from diagnosis.readers import SourceFile, read_traces
from schemas import Diagnosis, Episode, LLMCall, PlanItem, Quarantined, Task
from store.batches import iter_batch, write_batch
from validators.review import review_accepted
from validators.runner import validate_all


def calls_path(batch: Path) -> Path:
    """Where the LLM calls made while producing a batch file are kept (beside it)."""
    return batch.with_name(batch.name.removesuffix(".parquet") + ".llm_calls.parquet")


@task(name="diagnose-batch")
def diagnose_batch(sources: list[tuple[str, str]], out_dir: str, batch_id: str, llm_dir: str,
                   cycle_id: str) -> dict[str, str]:
    """Read a batch of trace files into episodes, diagnose them, and quarantine what cannot be read."""
    out = Path(out_dir)
    paths = {kind: out / f"{batch_id}.{kind}.parquet" for kind in ("episodes", "diagnoses", "llm_calls", "quarantine")}
    if paths["quarantine"].exists():
        return {kind: str(path) for kind, path in paths.items()}
    episodes: list[Episode] = []
    quarantined: list[Quarantined] = []
    for item in read_traces(SourceFile(path=Path(p), name=name) for p, name in sources):
        (quarantined if isinstance(item, Quarantined) else episodes).append(item)
    with Agents.open(llm_dir, cycle_id, "diagnose") as agents:
        diagnoses: list[Diagnosis] = diagnose_episodes(episodes, agents)
        calls = agents.take_calls()
    write_batch(paths["episodes"], episodes, Episode)
    write_batch(paths["diagnoses"], diagnoses, Diagnosis)
    write_batch(paths["llm_calls"], calls, LLMCall)
    write_batch(paths["quarantine"], quarantined, Quarantined)
    return {kind: str(path) for kind, path in paths.items()}


@task(name="build-batch")
def build_batch(item: dict[str, Any], context: dict[str, Any], out_path: str, llm_dir: str) -> str:
    """Build the candidates of one plan item (or one slice of it) into a batch file.

    Builders reach the LLM roles through `agents.session.current_agents()`.
    """
    out = Path(out_path)
    if not out.exists():
        plan_item = PlanItem.model_validate(item)
        builder = builder_for(plan_item.family)
        with Agents.open(llm_dir, context["cycle_id"], "build") as agents, using(agents):
            candidates = list(builder.build(plan_item, BuildContext(**context)))
            write_batch(calls_path(out), agents.take_calls(), LLMCall)
        write_batch(out, candidates, Task)
    return str(out)


@task(name="validate-batch")
def validate_batch(in_path: str, out_path: str, llm_dir: str, cycle_id: str) -> dict[str, Any]:
    """Run every check (and the reviewer, where configured) on a batch of candidates; write the decided
    tasks; return their counts and the files of the LLM calls made building and deciding them."""
    out = Path(out_path)
    if not out.exists():
        with Agents.open(llm_dir, cycle_id, "validate") as agents:
            decided = list(review_accepted(validate_all(iter_batch(Path(in_path), Task)), agents))
            write_batch(calls_path(out), agents.take_calls(), LLMCall)
        write_batch(out, decided, Task)
    calls = [str(p) for p in (calls_path(Path(in_path)), calls_path(out)) if p.exists()]
    return {"path": str(out), "counts": batch_counts(out), "llm_calls": calls}


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
