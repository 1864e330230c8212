"""Diagnosis on its own: read trace files, diagnose the failed episodes, aggregate gaps."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from prefect import flow

from diagnosis.readers import discover
from flows.stages import diagnose_stage, run_id_for
from schemas import to_row
from store.layout import DEFAULT_DATA_DIR, DataDir


@flow(name="diagnose")
def diagnose_traces(traces: list[str], data_dir: str | None = None) -> dict[str, Any]:
    """Diagnose every episode in the given files and folders; returns diagnoses, gaps and quarantine."""
    data = DataDir(Path(data_dir or DEFAULT_DATA_DIR))
    sources = discover(traces)
    run_id = run_id_for("diagnose", sources, {})
    with data.open_catalog() as catalog:
        catalog.start_cycle(run_id, "diagnose", {"files": len(sources)})
        outcome = diagnose_stage(sources, data, run_id, catalog)
        summary = {
            "kind": "diagnose", "cycle_id": run_id, "episodes": outcome.episodes, "failed_episodes": outcome.failed,
            "diagnoses": [to_row(d) for d in outcome.diagnoses],
            "gaps": [to_row(g) for g in outcome.gaps],
            "quarantine": [{"source": q.source, "reason": q.reason} for q in outcome.quarantined],
        }
        catalog.finish_cycle(run_id, "completed", {k: v for k, v in summary.items() if k != "diagnoses"})
    return summary
