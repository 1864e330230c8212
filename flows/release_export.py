"""Release export as a Prefect flow: the catalog's accepted tasks as a Hugging Face dataset folder."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from prefect import flow
from prefect.artifacts import create_markdown_artifact

from store.layout import DEFAULT_DATA_DIR, DataDir
from store.release import export_release


@flow(name="release-export")
def release_export(version: str, out_dir: str | None = None, data_dir: str | None = None) -> dict[str, Any]:
    """Export release `version` to `out_dir` (default: the data dir's `releases/<version>`)."""
    data = DataDir(Path(data_dir or DEFAULT_DATA_DIR))
    target = Path(out_dir) if out_dir else data.releases / version
    with data.open_catalog() as catalog:
        result = export_release(catalog, data.shards, version, target)
    rows = "\n".join(f"- {family}: {n} tasks" for family, n in result.rows.items())
    create_markdown_artifact(key="release-export", markdown=f"# release {version}\n\n{rows}\n")
    return {"kind": "release", "version": version, "rows": result.rows, "files": sorted(result.checksums),
            "checksums": result.checksums}
