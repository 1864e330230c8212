"""Batch-sized Prefect tasks: each reads its inputs from files, writes its outputs to files, returns paths.

Every task is idempotent: when its output file already exists (it is only ever
renamed into place complete), the task returns it instead of redoing the work.
Everything a task needs comes in its arguments, by value or as a location (a
local path or an fsspec URL every worker reaches): no working directory, open
handle or module global of the flow's process is relied on.
"""

from __future__ import annotations

import errno
import os
import time
from collections import Counter
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

from prefect import task

from taskforge.agents.client import Agents
from taskforge.agents.session import using
from taskforge.builders.base import BuildContext, emitted
from taskforge.builders.registry import builder_for
from taskforge.diagnosis.diagnose import diagnose
from taskforge.diagnosis.llm import in_llm_scope, llm_diagnoses
from taskforge.diagnosis.readers import SourceFile, read_traces
from taskforge.diagnosis.verdicts import graded_by, load_verdicts
from taskforge.flows.evolution import validate_evolving
from taskforge.flows.gc_pause import gc_paused
from taskforge.schemas import Diagnosis, Episode, InfrastructureError, LLMCall, PlanItem, Quarantined, Task
from taskforge.schemas.locations import Location, exists, join, name_of
from taskforge.store.batches import ExtraColumn, iter_batch, without_batch_suffix, write_batch
from taskforge.store.landing import SIGNATURE
from taskforge.validators.near_duplicates import accepted_signatures
from taskforge.validators.runner import default_checks


def beside(batch: Location, kind: str) -> str:
    """The location of a file kept beside a batch file: `<batch stem>.<kind>.parquet` (whatever the batch's own
    format)."""
    return without_batch_suffix(batch) + f".{kind}.parquet"


def calls_path(batch: Location) -> str:
    """Where the LLM calls made while producing a batch file are kept (beside it)."""
    return beside(batch, "llm_calls")


@task(name="diagnose-batch")
def diagnose_batch(sources: list[tuple[str, str]], out_dir: str, batch_id: str, llm_dir: str,
                   cycle_id: str, verdict_files: list[str] | None = None) -> dict[str, Any]:
    """Read a batch of trace files into episodes, grade them by the verdict files, diagnose them, and
    quarantine what cannot be read.

    Episodes stream from the readers through the rule diagnoser into the episodes
    file one row group at a time; only the diagnoses, the quarantine records and
    the episodes the LLM diagnoser will read are collected. With verdict files,
    the result also names the verdict ids matched and the ungraded episodes no
    verdict named (the flow records both sides' leftovers).
    """
    paths = {kind: join(out_dir, f"{batch_id}.{kind}.parquet")
             for kind in ("episodes", "diagnoses", "llm_calls", "quarantine")}
    verdicts = load_verdicts(verdict_files) if verdict_files else None
    matched: set[str] = set()
    without_verdict: list[tuple[str, str]] = []

    def read_and_diagnose() -> None:
        quarantined: list[Quarantined] = []
        by_rules: dict[str, list[Diagnosis]] = {}
        for_llm: list[Episode] = []
        matched.clear()
        without_verdict.clear()
        with Agents.open(llm_dir, cycle_id, "diagnose") as agents:

            def diagnosed() -> Iterator[Episode]:
                """Episodes as they are read, graded and diagnosed by the rules on the way; quarantine set aside."""
                for item in read_traces(SourceFile(path=Path(p), name=name) for p, name in sources):
                    if isinstance(item, Quarantined):
                        quarantined.append(item)
                        continue
                    if verdicts is not None:
                        verdict = verdicts.match(item)
                        if verdict is not None:
                            matched.add(verdict.key)
                            item = graded_by(item, verdict)
                        elif not item.outcome.graded:
                            without_verdict.append((item.episode_id, item.source_file))
                    found = by_rules[item.episode_id] = diagnose(item)
                    if in_llm_scope(item, found, agents):
                        for_llm.append(item)
                    yield item

            write_batch(paths["episodes"], diagnosed(), Episode)
            diagnoses = [d for found in by_rules.values() for d in found] + llm_diagnoses(for_llm, by_rules, agents)
            calls = agents.take_calls()
        write_batch(paths["diagnoses"], diagnoses, Diagnosis)
        write_batch(paths["llm_calls"], calls, LLMCall)
        write_batch(paths["quarantine"], quarantined, Quarantined)

    events: list[dict[str, Any]] = []
    if not exists(paths["quarantine"]):
        with gc_paused():
            _, events = with_infrastructure_retries("diagnose", batch_id, read_and_diagnose)
    elif verdicts is not None:
        for episode in iter_batch(paths["episodes"], Episode):
            verdict = verdicts.match(episode)
            if verdict is not None:
                matched.add(verdict.key)
            elif not episode.outcome.graded:
                without_verdict.append((episode.episode_id, episode.source_file))
    return {**{kind: str(path) for kind, path in paths.items()}, "infrastructure": events,
            "verdicts_matched": sorted(matched), "without_verdict": without_verdict}


def batch_name(location: Location) -> str:
    """A batch file's name without its suffix, as infrastructure events name it."""
    return name_of(without_batch_suffix(location))


def infrastructure_attempts() -> tuple[int, float]:
    """How often a batch is tried when the infrastructure fails, and the first backoff (it doubles)."""
    return int(os.environ.get("TASKFORGE_INFRA_ATTEMPTS", "3")), float(os.environ.get("TASKFORGE_INFRA_BACKOFF_S", "2"))


class BatchInfrastructureFailure(InfrastructureError):
    """A batch whose infrastructure failed on every allowed attempt; carries each attempt's error."""

    def __init__(self, stage: str, batch: str, events: list[dict[str, Any]]):
        self.stage, self.batch, self.events = stage, batch, events
        super().__init__(f"{stage} of {batch}: infrastructure failed {len(events)} time(s), last: {events[-1]['error']}")

    def __reduce__(self):
        return (BatchInfrastructureFailure, (self.stage, self.batch, self.events))


DISK_ERRORS = {errno.ENOSPC, errno.EDQUOT, errno.EIO, errno.EROFS}


def infrastructure_error(exc: BaseException) -> InfrastructureError | None:
    """The exception as an infrastructure failure (ours, or a disk that is full, read-only or failing), or None."""
    if isinstance(exc, InfrastructureError):
        return exc
    if isinstance(exc, OSError) and exc.errno in DISK_ERRORS:
        return InfrastructureError(f"{exc.strerror or exc}: {Path(exc.filename).name if exc.filename else 'data dir'}")
    return None


def with_infrastructure_retries(stage: str, batch: str, work: Callable[[], Any]) -> tuple[Any, list[dict[str, Any]]]:
    """Run `work`, retrying it a bounded number of times when the infrastructure fails (an engine gone, an
    endpoint down, a full disk); returns its result and the failed attempts, which never count against a task."""
    attempts, backoff = infrastructure_attempts()
    events: list[dict[str, Any]] = []
    while True:
        try:
            return work(), events
        except (InfrastructureError, OSError) as exc:
            error = infrastructure_error(exc)
            if error is None:
                raise
            events.append({"stage": stage, "batch": batch, "attempt": len(events) + 1, "error": str(error)})
            if len(events) >= attempts:
                raise BatchInfrastructureFailure(stage, batch, events) from exc
            time.sleep(backoff * 2 ** (len(events) - 1))


@task(name="build-batch")
def build_batch(item: dict[str, Any], context: dict[str, Any], out_path: str, llm_dir: str) -> dict[str, Any]:
    """Build the candidates of one plan item (or one slice of it) into a batch file.

    Builders reach the LLM roles through `taskforge.agents.session.current_agents()`.
    Candidates the builder could not build, and a builder that fails outright,
    are written as quarantine records beside the batch; an infrastructure
    failure is retried a bounded number of times, then raised.
    """
    failed = beside(out_path, "quarantine")

    def build() -> None:
        plan_item = PlanItem.model_validate(item)
        built: list[Task] = []
        quarantined: list[Quarantined] = []
        with Agents.open(llm_dir, context["cycle_id"], "build") as agents, using(agents):
            try:
                for candidate in emitted(builder_for(plan_item.family).build(plan_item, BuildContext(**context))):
                    (quarantined if isinstance(candidate, Quarantined) else built).append(candidate)
            except Exception as exc:  # a builder failing on its resource must not stop the cycle
                if infrastructure_error(exc) is not None:
                    raise
                source = f"{plan_item.family}:{plan_item.capability}#{context.get('first_index', 0)}"
                quarantined.append(Quarantined.from_error(exc, "build", source))
            write_batch(calls_path(out_path), agents.take_calls(), LLMCall)
        write_batch(failed, quarantined, Quarantined)
        write_batch(out_path, built, Task, crash_at="build")

    events: list[dict[str, Any]] = []
    if not exists(out_path):
        _, events = with_infrastructure_retries("build", batch_name(out_path), build)
    return {"candidates": out_path, "quarantine": failed, "infrastructure": events}


@task(name="validate-batch")
def validate_batch(built: dict[str, Any], out_path: str, data_dir: str, llm_dir: str, cycle_id: str) -> dict[str, Any]:
    """Run every check (reading `data_dir`'s snapshots and evaluation sets, and the reviewer where
    configured) on a batch of candidates; write the decided tasks; return their counts, the quarantined
    candidates, the infrastructure failures survived, and the files of the LLM calls made building and
    deciding them. A candidate the solver gate finds too easy is handed back to its builder and the harder
    variant decided after it (`taskforge.flows.evolution`)."""
    candidates = built["candidates"]

    def decide() -> None:
        with Agents.open(llm_dir, cycle_id, "validate") as agents, using(agents):
            decided = list(validate_evolving(iter_batch(candidates, Task), default_checks(data_dir, agents),
                                             BuildContext(cycle_id=cycle_id, data_dir=data_dir)))
            write_batch(calls_path(out_path), agents.take_calls(), LLMCall)
        write_decided(out_path, decided, crash_at="validate")

    events: list[dict[str, Any]] = []
    if not exists(out_path):
        _, events = with_infrastructure_retries("validate", batch_name(out_path), decide)
    calls = [p for p in (calls_path(candidates), calls_path(out_path)) if exists(p)]
    return {"path": out_path, "counts": batch_counts(out_path), "quarantine": built["quarantine"], "llm_calls": calls,
            "infrastructure": built["infrastructure"] + events}


def write_decided(path: Location, tasks: Iterable[Task], crash_at: str | None = None) -> Location:
    """Write a decided batch file: the tasks, and the signature of each accepted one's asked text, made here in the
    worker so that the landing, which runs alone, need not make it (`taskforge.store.landing.SIGNATURE`)."""
    return write_batch(path, tasks, Task, crash_at, extra=[ExtraColumn(SIGNATURE, accepted_signatures)])


def batch_counts(path: Location) -> dict[str, dict[str, Any]]:
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
