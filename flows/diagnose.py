"""Diagnosis on its own: read trace files, diagnose the failed episodes, aggregate gaps."""

from __future__ import annotations

from typing import Any

from prefect import flow

from taskforge.agents.config import AgentsConfig
from taskforge.diagnosis.readers import discover
from taskforge.flows.stages import diagnose_stage, finish_run, llm_section, run_id_for, verdict_fingerprint
from taskforge.store.layout import DataDir


@flow(name="diagnose")
def diagnose_traces(traces: list[str], data_dir: str | None = None, catalog_path: str | None = None,
                    verdicts: list[str] | None = None) -> dict[str, Any]:
    """Diagnose every episode in the given files and folders, graded by the verdict files when given (e.g. a
    SWE-bench report); returns diagnoses, gaps, quarantine and how the verdicts matched."""
    data = DataDir.at(data_dir, catalog_path)
    sources = discover(traces)
    llm_config = AgentsConfig.load()
    params = {"llm": llm_config.fingerprint(), **({"verdicts": verdict_fingerprint(verdicts)} if verdicts else {})}
    run_id = run_id_for("diagnose", sources, params)
    with data.open_catalog() as catalog:
        catalog.start_cycle(run_id, "diagnose", {"files": len(sources), "verdict_files": len(verdicts or [])})
        outcome = diagnose_stage(sources, data, run_id, catalog, verdicts)
        summary = {
            "kind": "diagnose", "cycle_id": run_id, "episodes": outcome.episodes, "failed_episodes": outcome.failed,
            "ungraded_episodes": outcome.ungraded, "verdicts": outcome.verdicts,
            "diagnoses": [d.model_dump(mode="json") for d in outcome.diagnoses_in()],
            "gaps": [g.model_dump(mode="json") for g in outcome.gaps],
            "trends": outcome.trends,
            "quarantine": [{"stage": q["stage"], "source": q["source"], "reason": q["reason"]}
                           for q in catalog.quarantine_of(run_id)],
            **llm_section(catalog, run_id, llm_config),
        }
        recorded = finish_run(catalog, run_id, {k: v for k, v in summary.items() if k != "diagnoses"})
    return {**summary, "infrastructure_failures": recorded["infrastructure_failures"]}
