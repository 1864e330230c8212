"""The improvement cycle: diagnose → plan → build → validate → land → report, as one Prefect flow."""

from __future__ import annotations

from typing import Any

from prefect import flow

from taskforge.agents.config import AgentsConfig
from taskforge.builders.registry import available_families
from taskforge.diagnosis.readers import discover
from taskforge.flows.artifacts import publish, publish_charts
from taskforge.flows.runners import make_task_runner
from taskforge.flows.stages import (build_stage, diagnose_stage, family_counts, finish_run, land_stage, llm_section,
                          plan_stage, run_id_for, timed_stage, verdict_fingerprint)
from taskforge.schemas import TaskforgeError
from taskforge.store.layout import SAMPLES_DIR, DataDir, display_source


@flow(name="cycle")
def cycle(traces: list[str] | None = None, data_dir: str | None = None, budget: int = 12,
          families: list[str] | None = None, sources: dict[str, str] | None = None, seed: int = 0,
          target_tokens: int | None = None, cycle_id: str | None = None, task_runner: str = "thread",
          runner_address: str | None = None, catalog_path: str | None = None,
          verdicts: list[str] | None = None) -> dict[str, Any]:
    """Run one improvement cycle over trace files; `sources` maps a family to the resource it builds from;
    `verdicts` are files that grade runs whose traces carry no verdict (e.g. a SWE-bench report).

    `data_dir` is a local path or an fsspec URL every worker reaches; `catalog_path` is the local catalog
    file (default `<data_dir>/catalog.duckdb`; required when `data_dir` is a URL).
    """
    stages = run_cycle.with_options(task_runner=make_task_runner(task_runner, runner_address))
    return stages(traces=traces, data_dir=data_dir, budget=budget, families=families, sources=sources or {},
                  seed=seed, target_tokens=target_tokens, cycle_id=cycle_id, catalog_path=catalog_path,
                  verdicts=verdicts)


@flow(name="cycle-stages")
def run_cycle(traces: list[str] | None, data_dir: str | None, budget: int, families: list[str] | None,
              sources: dict[str, str], seed: int, target_tokens: int | None, cycle_id: str | None,
              catalog_path: str | None = None, verdicts: list[str] | None = None) -> dict[str, Any]:
    """The stages of a cycle under whichever task runner the caller chose."""
    data = DataDir.at(data_dir, catalog_path)
    trace_files = discover(traces or [SAMPLES_DIR / "traces"])
    chosen = sorted(families or available_families())
    unknown = sorted(set(chosen) - set(available_families()))
    if unknown:
        raise TaskforgeError(f"no builder for {', '.join(unknown)}; available: {', '.join(available_families())}")
    llm_config = AgentsConfig.load()
    params = {"budget": budget, "families": chosen, "seed": seed, "target_tokens": target_tokens,
              "sources": {family: display_source(source) for family, source in sorted(sources.items())},
              "llm": llm_config.fingerprint(), **({"verdicts": verdict_fingerprint(verdicts)} if verdicts else {})}
    cycle_id = cycle_id or run_id_for("cycle", trace_files, params)
    with data.open_catalog() as catalog:
        catalog.start_cycle(cycle_id, "cycle", params)
        with timed_stage(catalog, cycle_id, "diagnose"):
            diagnosed = diagnose_stage(trace_files, data, cycle_id, catalog, verdicts)
        with timed_stage(catalog, cycle_id, "plan"):
            build_plan = plan_stage(diagnosed.gaps, cycle_id, budget, chosen, catalog)
        context = {"cycle_id": cycle_id, "seed": seed, "options": {"target_tokens": target_tokens}}
        with timed_stage(catalog, cycle_id, "build and validate"):
            decided = build_stage(build_plan, data, context, sources)
        with timed_stage(catalog, cycle_id, "land"):
            landed = land_stage(decided, data, cycle_id, catalog)
        summary = {
            "kind": "cycle",
            "cycle_id": cycle_id,
            "episodes": diagnosed.episodes,
            "failed_episodes": diagnosed.failed,
            "ungraded_episodes": diagnosed.ungraded,
            "verdicts": diagnosed.verdicts,
            "diagnoses": diagnosed.diagnoses,
            "diagnoses_by_mode": dict(sorted(diagnosed.diagnoses_by_mode.items())),
            "quarantined": len(quarantine := catalog.quarantine_of(cycle_id)),
            "quarantine": quarantine,
            "gaps": [g.model_dump(include={"family", "capability", "failure_mode", "count", "share", "priority"})
                     for g in diagnosed.gaps],
            "trends": diagnosed.trends,
            "plan": [i.model_dump(include={"family", "capability", "quota"}) for i in build_plan.items],
            "families": family_counts(decided),
            "shards": catalog.shard_paths(cycle_id),
            **llm_section(catalog, cycle_id, llm_config),
        }
        summary = finish_run(catalog, cycle_id, summary)
        publish_charts(catalog, cycle_id)
    publish(summary)
    return {**summary, "newly_landed": {"accepted": landed.accepted, "rejected": landed.rejected}}

