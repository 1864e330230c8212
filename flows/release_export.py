"""Release export as a Prefect flow: the catalog's accepted tasks as a Hugging Face dataset folder."""

from __future__ import annotations

from typing import Any

from prefect import flow
from prefect.artifacts import create_markdown_artifact

from schemas.locations import join
from store.layout import DataDir
from store.release import export_release


@flow(name="release-export")
def release_export(version: str, out_dir: str | None = None, data_dir: str | None = None,
                   catalog_path: str | None = None) -> dict[str, Any]:
    """Export release `version` to `out_dir` (default: the data dir's `releases/<version>`); both may be
    local paths or fsspec URLs."""
    data = DataDir.at(data_dir, catalog_path)
    target = out_dir or join(data.releases, version)
    with data.open_catalog() as catalog:
        result = export_release(catalog, data.shards, version, target)
    rows = "\n".join(f"- {family}: {n} tasks" for family, n in result.rows.items())
    create_markdown_artifact(key="release-export", markdown=f"# release {version}\n\n{rows}\n")
    return {"kind": "release", "version": version, "rows": result.rows, "files": sorted(result.checksums),
            "checksums": result.checksums}
