"""`taskforge sft`: demonstrations for supervised fine-tuning from traces (and builder runs), as a Prefect flow.

Every episode read is decided by the selection policy (`taskforge.validators.demonstrations`)
and recorded in the catalog's `sft_examples` under the run's id (derived from the
traces and options), selected or not, with the reason and any regrade; unreadable
inputs are quarantined under the same id. Selected episodes are written as
the SFT view (`taskforge.store.sft_view`) under `<out>/data/`.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any, Iterator

from prefect import flow

from taskforge.diagnosis.readers import discover, read_traces
from taskforge.flows.stages import run_id_for
from taskforge.schemas import Episode, Quarantined
from taskforge.store.layout import DataDir
from taskforge.store.sft_view import SOLUTION_PATHS, builder_demonstration, sft_rows, write_sft
from taskforge.store.shards import LandedTasks
from taskforge.validators.demonstrations import select


@flow(name="sft-export")
def sft_export(traces: list[str], out_dir: str, data_dir: str | None = None,
               builder_runs: bool = False, catalog_path: str | None = None) -> dict[str, Any]:
    """Select demonstrations from trace files (and, with `builder_runs`, the builders' solution paths of
    accepted tasks) and write them to `out_dir`."""
    data = DataDir.at(data_dir, catalog_path)
    sources = discover(traces) if traces else []
    run_id = run_id_for("sft", sources, {"builder_runs": builder_runs})
    examples: list[dict[str, Any]] = []
    quarantined: list[Quarantined] = []
    with data.open_catalog() as catalog:
        landed = LandedTasks(catalog, data.shards)

        def episodes() -> Iterator[tuple[Episode, str]]:
            """Episodes read from the traces (quarantining what cannot be read), then builder runs."""
            for item in read_traces(sources):
                if isinstance(item, Quarantined):
                    quarantined.append(item)
                else:
                    yield item, "trace"
            if builder_runs:
                for task in landed.with_environment(SOLUTION_PATHS):
                    demonstration = builder_demonstration(task, data.root)
                    if demonstration is not None:
                        yield demonstration, "builder"

        def rows() -> Iterator[dict[str, Any]]:
            """SFT rows of the selected episodes; every decision is kept for the catalog."""
            for episode, source in episodes():
                task = landed.get(episode.task_id)
                earlier = catalog.regrades([episode.episode_id]).get(episode.episode_id)
                chosen = select(episode, task, data.root, earlier)
                examples.append({"episode_id": episode.episode_id, "task_id": episode.task_id,
                                 "family": episode.family, "source": source,
                                 "source_file": Path(episode.source_file).name, "selected": chosen.selected,
                                 "reason": chosen.reason, "score": chosen.score,
                                 "regraded_score": chosen.regraded_score, "regrade": chosen.regrade,
                                 "segments": len(episode.segments)})
                if chosen.selected:
                    yield from sft_rows(episode, task, source, chosen.score,
                                        chosen.reason.startswith("success"), chosen.reason)

        files = write_sft(rows(), Path(out_dir))
        with catalog.transaction():
            catalog.record_sft(run_id, examples)
            catalog.record_quarantine(run_id, quarantined)
    return {
        "kind": "sft", "run_id": run_id, "episodes": len(examples), "selected": sum(e["selected"] for e in examples),
        "by_reason": dict(sorted(Counter(e["reason"].split(":")[0] for e in examples).items())),
        "regraded": sum(1 for e in examples if e["regrade"].startswith("regraded")),
        "not_regradable": sum(1 for e in examples if e["regrade"].startswith("not regradable")),
        "quarantined": len(quarantined), "files": [f.relative_to(Path(out_dir)).as_posix() for f in files],
    }
