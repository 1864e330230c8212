"""The stages of a cycle as flow-side wiring: submit batch tasks, wait, commit results to the catalog.

Only this side writes the catalog (DuckDB has one writer); workers return paths.
"""

from __future__ import annotations

import time
from collections import Counter
from contextlib import contextmanager
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path
from typing import Any, Iterator

from prefect.exceptions import UnfinishedRun

from taskforge.agents.config import AgentsConfig
from taskforge.agents.steps import step_states
from taskforge.builders.registry import builder_for
from taskforge.diagnosis.gaps import aggregate, plan
from taskforge.diagnosis.readers import SourceFile
from taskforge.diagnosis.verdicts import Verdicts, load_verdicts, unmatched
from taskforge.flows.progress import report
from taskforge.flows.screening import landing_screen
from taskforge.flows.tasks import (BatchInfrastructureFailure, build_batch, diagnose_batch, validate_batch,
                         with_infrastructure_retries)
from taskforge.schemas import (BuildPlan, Diagnosis, Episode, Gap, InfrastructureError, LLMCall, PlanItem, Quarantined,
                     content_id)
from taskforge.schemas.locations import join
from taskforge.store.batches import iter_batch, read_batch, task_batch_name
from taskforge.store.catalog import Catalog
from taskforge.store.files import sha256_file
from taskforge.store.landing import LandingResult, land_files
from taskforge.store.layout import SAMPLES_DIR, DataDir
from taskforge.store.report import gap_trends, llm_usage

FILES_PER_DIAGNOSE_BATCH = 64
EPISODES_PER_COMMIT = 1024
MIN_TASKS_PER_BUILD_BATCH = 4
MAX_BUILD_BATCHES_PER_ITEM = 16


def build_batch_size(quota: int) -> int:
    """Tasks per build-and-validate batch of a plan item of `quota` tasks: `quota / 16` rounded up, and at
    least 4.

    The rule: a plan item runs in at most 16 batches (32 Prefect task runs, build and validate), so what
    Prefect costs per task run (about 35 ms of CPU measured on a busy 2-core machine: ~10 ms in the task
    engine, ~25 ms in the API server recording its states) stays a fixed cost per item however many tasks it
    asks for (at 1,000 tasks, 16 batches of 63), while 16 batches still keep every worker of a thread pool or
    a small Dask cluster busy. A small item still gets batches of 4, so its first tasks do not wait for a
    large batch. Builders number tasks by their index in the item, so the batch size never changes which
    tasks are built.
    """
    return max(MIN_TASKS_PER_BUILD_BATCH, -(-quota // MAX_BUILD_BATCHES_PER_ITEM))


@dataclass
class DiagnoseOutcome:
    """What the diagnosis stage committed: counts, the batch files holding the diagnoses, the gaps and trends.

    The diagnoses themselves stay in their batch files (`diagnoses_in` streams
    them back): the stage never holds every diagnosis of a run in memory.
    """

    episodes: int = 0
    failed: int = 0
    ungraded: int = 0
    diagnoses: int = 0
    diagnoses_by_mode: Counter[str] = field(default_factory=Counter)
    batches: list[dict[str, str]] = field(default_factory=list)
    gaps: list[Gap] = field(default_factory=list)
    trends: list[dict[str, Any]] = field(default_factory=list)
    verdicts: dict[str, Any] = field(default_factory=dict)

    def diagnoses_in(self) -> Iterator[Diagnosis]:
        """Every committed diagnosis, read back batch by batch."""
        for paths in self.batches:
            yield from iter_batch(paths["diagnoses"], Diagnosis)


@contextmanager
def timed_stage(catalog: Catalog, cycle_id: str, stage: str) -> Iterator[None]:
    """Record the wall time of the enclosed stage in the catalog."""
    started = time.perf_counter()
    yield
    catalog.record_stage_time(cycle_id, stage, time.perf_counter() - started)


def run_id_for(kind: str, sources: list[SourceFile], params: dict[str, Any]) -> str:
    """A run's id from the content of its traces and its parameters, so a rerun resumes the same run."""
    return content_id({"traces": sorted((s.name, sha256_file(s.path)) for s in sources), "params": params},
                      prefix=f"{kind}-", length=12)


def verdict_fingerprint(verdict_files: list[str] | None) -> list[tuple[str, str]]:
    """The verdict files' names and content digests, for a run's id (other verdicts make another run)."""
    found = [p for given in map(Path, verdict_files or []) for p in (sorted(given.rglob("*")) if given.is_dir()
                                                                     else [given]) if p.is_file()]
    return sorted((p.name, sha256_file(p)) for p in found)


def _chunks(items: list[Any], size: int) -> list[list[Any]]:
    return [items[i:i + size] for i in range(0, len(items), size)]


def diagnose_stage(sources: list[SourceFile], data: DataDir, cycle_id: str, catalog: Catalog,
                   verdict_files: list[str] | None = None) -> DiagnoseOutcome:
    """Read, grade (by the verdict files) and diagnose traces in batches; commit episodes, diagnoses, quarantine
    and gaps. Verdict files that cannot be read, verdict ids no episode matched and ungraded episodes no
    verdict named are recorded in the quarantine (stage `verdicts`)."""
    out_dir = data.work(cycle_id, "diagnose")
    batches = _chunks([(str(s.path), s.name) for s in sources], FILES_PER_DIAGNOSE_BATCH)
    futures = [
        diagnose_batch.submit(batch, str(out_dir), content_id([name for _, name in batch], prefix="b-"),
                              str(data.llm), cycle_id, verdict_files or None)
        for batch in batches
    ]
    outcome = DiagnoseOutcome()
    matched: set[str] = set()
    without_verdict: list[tuple[str, str]] = []
    for done, future in enumerate(futures, start=1):
        try:
            paths = future.result()
        except BatchInfrastructureFailure as failure:
            with catalog.transaction():
                record_infrastructure(catalog, cycle_id, failed_batch(failure))
            continue
        diagnoses = read_batch(paths["diagnoses"], Diagnosis)
        episodes = iter_batch(paths["episodes"], Episode)
        with catalog.transaction():
            while chunk := list(islice(episodes, EPISODES_PER_COMMIT)):
                catalog.record_episodes(cycle_id, chunk)
                outcome.episodes += len(chunk)
                outcome.failed += sum(1 for e in chunk if e.outcome.graded and not e.outcome.success)
                outcome.ungraded += sum(1 for e in chunk if not e.outcome.graded)
            catalog.record_diagnoses(cycle_id, diagnoses)
            catalog.record_quarantine(cycle_id, read_batch(paths["quarantine"], Quarantined))
            catalog.record_llm_calls(iter_batch(paths["llm_calls"], LLMCall))
            record_infrastructure(catalog, cycle_id, paths)
        outcome.diagnoses += len(diagnoses)
        outcome.diagnoses_by_mode.update(d.failure_mode.value for d in diagnoses)
        outcome.batches.append(paths)
        matched.update(paths.get("verdicts_matched", []))
        without_verdict += [tuple(pair) for pair in paths.get("without_verdict", [])]
        report("diagnose", done, len(futures))
    if verdict_files:
        outcome.verdicts = record_verdicts(catalog, cycle_id, load_verdicts(verdict_files), matched, without_verdict)
    outcome.gaps = aggregate(outcome.diagnoses_in(), cycle_id, outcome.episodes)
    catalog.record_gaps(outcome.gaps)
    outcome.trends = gap_trends(catalog, cycle_id)
    return outcome


def record_verdicts(catalog: Catalog, cycle_id: str, verdicts: Verdicts, matched: set[str],
                    without_verdict: list[tuple[str, str]]) -> dict[str, Any]:
    """Record what the verdict files left unmatched (and files that could not be read); return the counts."""
    leftovers = unmatched(verdicts, matched, without_verdict)
    with catalog.transaction():
        catalog.record_quarantine(cycle_id, [*verdicts.problems, *leftovers])
    return {"files": verdicts.files, "verdicts": len(verdicts), "matched": len(matched),
            "unmatched_verdicts": len(verdicts) - len(matched),
            "episodes_without_verdict": len(without_verdict), "problems": len(verdicts.problems)}


def plan_stage(gaps: list[Gap], cycle_id: str, budget: int, families: list[str], catalog: Catalog) -> BuildPlan:
    """Derive the build plan from the gaps and commit it."""
    build_plan = plan(gaps, cycle_id, budget, families)
    catalog.record_plan(cycle_id, build_plan.items)
    return build_plan


def source_for(family: str, sources: dict[str, str]) -> str | None:
    """The resource a family builds from: the one given for the run, else the builder's shipped sample."""
    if sources.get(family):
        return sources[family]
    default = builder_for(family).default_source
    return str(SAMPLES_DIR / default) if default else None


def build_stage(build_plan: BuildPlan, data: DataDir, context: dict[str, Any],
                sources: dict[str, str] | None = None) -> list[dict[str, Any]]:
    """Build and validate every plan item in batches; returns each decided batch's path and counts."""
    cycle_id = context["cycle_id"]
    candidates_dir, decided_dir = data.work(cycle_id, "candidates"), data.work(cycle_id, "decided")
    futures = []
    for item in build_plan.items:
        source = source_for(item.family, sources or {})
        options = {**context.get("options", {}), **({"source": source} if source else {})}
        size = build_batch_size(item.quota)
        for start in range(0, item.quota, size):
            part = item.model_copy(update={"quota": min(size, item.quota - start)})
            batch_context = {**context, "options": options, "first_index": start}
            name = content_id({"item": part.model_dump(), "context": batch_context}, prefix=f"{item.family}-")
            built = build_batch.submit(part.model_dump(), {**batch_context, "data_dir": str(data.root)},
                                       str(join(candidates_dir, task_batch_name(name))), str(data.llm))
            futures.append((built, validate_batch.submit(built, str(join(decided_dir, task_batch_name(name))),
                                                         str(data.root), str(data.llm), cycle_id)))
    results = []
    for done, (built, decided) in enumerate(futures, start=1):
        results.append(_decided_or_failed(built, decided))
        report("build and validate", done, len(futures))
    return results


def failed_batch(failure: BatchInfrastructureFailure) -> dict[str, Any]:
    """What a batch whose infrastructure failed on every attempt leaves for the catalog."""
    return {"failed": failure.stage, "batch": failure.batch, "error": str(failure), "infrastructure": failure.events}


def record_infrastructure(catalog: Catalog, cycle_id: str, batch: dict[str, Any]) -> None:
    """Record a batch's failed infrastructure attempts; a batch that never got through is quarantined as such
    (never as a task failure: a rerun builds it again)."""
    failed = "failed" in batch
    catalog.record_infrastructure_events(cycle_id, batch["infrastructure"], recovered=not failed)
    if failed:
        record = Quarantined.from_error(InfrastructureError(batch["error"]), batch["failed"], batch["batch"])
        attempts = {"attempts": len(batch["infrastructure"])}
        catalog.record_quarantine(cycle_id, [record.model_copy(update={"detail": attempts})])


def _decided_or_failed(built: Any, decided: Any) -> dict[str, Any]:
    """A decided batch's result, or — when its infrastructure failed on every attempt — what failed."""
    try:
        return decided.result()
    except BatchInfrastructureFailure as failure:
        return failed_batch(failure)
    except UnfinishedRun:
        try:
            built.result()
        except BatchInfrastructureFailure as failure:
            return failed_batch(failure)
        raise


def land_stage(decided: list[dict[str, Any]], data: DataDir, cycle_id: str, catalog: Catalog) -> LandingResult:
    """Land every decided batch through the landing screen (decontamination, near-duplicates): accepted tasks
    into shards; every task, build failure, LLM call and infrastructure failure into the catalog. A batch
    whose infrastructure failed on every attempt is quarantined as such (a rerun builds it again)."""
    landed = [d for d in decided if "failed" not in d]
    with catalog.transaction():
        for batch in decided:
            record_infrastructure(catalog, cycle_id, batch)
            if "failed" not in batch:
                catalog.record_quarantine(cycle_id, read_batch(batch["quarantine"], Quarantined))
    screen = landing_screen(catalog, data)
    try:
        result, events = with_infrastructure_retries("land", "shards", lambda: land_files(
            [d["path"] for d in landed], catalog, data.shards, cycle_id, screen=screen.land_rows))
    except BatchInfrastructureFailure as failure:
        result, events = LandingResult(), []
        with catalog.transaction():
            record_infrastructure(catalog, cycle_id, failed_batch(failure))
    with catalog.transaction():
        catalog.record_infrastructure_events(cycle_id, events, recovered=True)
    catalog.record_signatures(screen.passed)
    with catalog.transaction():
        for batch in landed:
            for path in batch["llm_calls"]:
                catalog.record_llm_calls(iter_batch(path, LLMCall))
    report("land", 1, 1)
    return result


def finish_run(catalog: Catalog, run_id: str, summary: dict[str, Any]) -> dict[str, Any]:
    """Close a run in the catalog: `completed`, or `incomplete` when batches failed on infrastructure on every
    attempt (a rerun does them); returns the summary with those failures."""
    failures = catalog.infrastructure_failures(run_id)
    summary = {**summary, "infrastructure_failures": failures}
    catalog.finish_cycle(run_id, "incomplete" if failures else "completed", summary)
    return summary


def llm_section(catalog: Catalog, cycle_id: str, config: AgentsConfig) -> dict[str, Any]:
    """The run summary's LLM part: usage per stage and family from the catalog, and each step's state."""
    usage = llm_usage(catalog, cycle_id)
    return {"llm": usage, "llm_steps": step_states(config, usage["by_stage"])}


def family_counts(decided: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per-family funnel counts summed over decided batches."""
    totals: dict[str, dict[str, Any]] = {}
    for batch in decided:
        for family, counts in batch.get("counts", {}).items():
            total = totals.setdefault(family, {"candidates": 0, "accepted": 0, "rejected": 0, "rejected_by_check": {}})
            for key in ("candidates", "accepted", "rejected"):
                total[key] += counts[key]
            for check, n in counts["rejected_by_check"].items():
                total["rejected_by_check"][check] = total["rejected_by_check"].get(check, 0) + n
    return dict(sorted(totals.items()))


def plan_for_family(family: str, count: int, capability: str, cycle_id: str) -> BuildPlan:
    """A one-item plan for a manual build of one family."""
    item = PlanItem(family=family, capability=capability, quota=count, gap_ids=[], priority=1.0)
    return BuildPlan(cycle_id=cycle_id, budget=count, items=[item] if count > 0 else [])
