"""Release export as a Prefect flow: the catalog's accepted tasks, screened again, as a Hugging Face dataset
folder; the tasks the release left out are recorded in the catalog."""

from __future__ import annotations

from typing import Any

from prefect import flow
from prefect.artifacts import create_markdown_artifact

from taskforge.flows.screening import release_screen
from taskforge.schemas import canonical_json
from taskforge.schemas.locations import join
from taskforge.store.layout import DataDir
from taskforge.store.release import export_release
from taskforge.validators.swe.history import release_links


@flow(name="release-export")
def release_export(version: str, out_dir: str | None = None, data_dir: str | None = None,
                   catalog_path: str | None = None, test_fraction: float = 0.0) -> dict[str, Any]:
    """Export release `version` to `out_dir` (default: the data dir's `releases/<version>`); both may be
    local paths or fsspec URLs. About `test_fraction` of each family goes to a test split, whole source groups
    (joined by the SWE tasks whose workspaces show each other's fixes) at a time."""
    data = DataDir.at(data_dir, catalog_path)
    target = out_dir or join(data.releases, version)
    with data.open_catalog() as catalog:
        result = export_release(catalog, data, version, target, release_screen(catalog, data, version),
                                test_fraction=test_fraction, links=release_links)
        left_out = [{"task_id": r["task_id"], "family": r["family"], "check": r["check"], "reason": r["reason"],
                     "detail": canonical_json({"matches": r["matches"]})}
                    for r in result.removed if r["stage"] == "release"]
        with catalog.transaction():
            catalog.record_release(version, result.rows, left_out)
    rows = "\n".join(f"- {family}: {n} tasks" for family, n in result.rows.items())
    removed = "\n".join(f"- {r['family']} {r['task_id']}: {r['check']}: {r['reason']}" for r in left_out) or "- none"
    create_markdown_artifact(key="release-export",
                             markdown=f"# release {version}\n\n{rows}\n\n## left out by this release\n\n{removed}\n")
    return {"kind": "release", "version": version, "rows": result.rows, "splits": result.splits,
            "files": sorted(result.checksums),
            "checksums": result.checksums, "removed": {"landing": sum(r["stage"] == "landing" for r in result.removed),
                                                       "release": len(left_out)}}
