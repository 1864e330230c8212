"""A manual run for one task family: build, validate and land `count` tasks without diagnosis."""

from __future__ import annotations

from typing import Any

from prefect import flow

from taskforge.agents.config import AgentsConfig
from taskforge.builders.registry import builder_for
from taskforge.flows.artifacts import publish, publish_charts
from taskforge.flows.runners import make_task_runner
from taskforge.flows.stages import (build_stage, family_counts, finish_run, land_stage, llm_section, plan_for_family,
                          timed_stage)
from taskforge.schemas import content_id
from taskforge.store.layout import DataDir, display_source


@flow(name="build-family")
def build_family(family: str, count: int = 4, capability: str = "general", data_dir: str | None = None,
                 seed: int = 0, options: dict[str, Any] | None = None, run_id: str | None = None,
                 task_runner: str = "thread", runner_address: str | None = None,
                 catalog_path: str | None = None) -> dict[str, Any]:
    """Build one family's tasks; `options` go to the builder (e.g. `target_tokens`, `source`).

    `data_dir` is a local path or an fsspec URL; `catalog_path` the local catalog (required for a URL)."""
    stages = run_build.with_options(task_runner=make_task_runner(task_runner, runner_address))
    return stages(family=family, count=count, capability=capability, data_dir=data_dir, seed=seed,
                  options=options or {}, run_id=run_id, catalog_path=catalog_path)


@flow(name="build-family-stages")
def run_build(family: str, count: int, capability: str, data_dir: str | None, seed: int,
              options: dict[str, Any], run_id: str | None, catalog_path: str | None = None) -> dict[str, Any]:
    """The build, validate and land stages for one family under the chosen task runner."""
    builder_for(family)
    data = DataDir.at(data_dir, catalog_path)
    llm_config = AgentsConfig.load()
    recorded = {**options, **({"source": display_source(options["source"])} if options.get("source") else {})}
    params = {"family": family, "count": count, "capability": capability, "seed": seed, "options": recorded,
              "llm": llm_config.fingerprint()}
    run_id = run_id or content_id(params, prefix=f"build-{family}-", length=12)
    with data.open_catalog() as catalog:
        catalog.start_cycle(run_id, "build_family", params)
        build_plan = plan_for_family(family, count, capability, run_id)
        catalog.record_plan(run_id, build_plan.items)
        with timed_stage(catalog, run_id, "build and validate"):
            decided = build_stage(build_plan, data, {"cycle_id": run_id, "seed": seed, "options": options},
                                  {family: options["source"]} if options.get("source") else None)
        with timed_stage(catalog, run_id, "land"):
            land_stage(decided, data, run_id, catalog)
        summary = {"kind": "build_family", "cycle_id": run_id, "families": family_counts(decided),
                   "quarantine": catalog.quarantine_of(run_id),
                   "shards": catalog.shard_paths(run_id), **llm_section(catalog, run_id, llm_config)}
        summary = finish_run(catalog, run_id, summary)
        publish_charts(catalog, run_id)
    publish(summary)
    return summary
