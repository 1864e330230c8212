"""Where a data dir keeps things: the catalog, the shards, each cycle's work files, the releases."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from store.catalog import Catalog

PROJECT_ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA_DIR = PROJECT_ROOT / "data" / "out"
SAMPLES_DIR = PROJECT_ROOT / "data" / "samples"


def display_source(source: str) -> str:
    """How a resource is named in the catalog: a URL as given, a shipped sample relative to the
    project, any other local path by its last component (never a host path)."""
    if "://" in source:
        return source
    path = Path(source)
    try:
        return path.resolve().relative_to(PROJECT_ROOT).as_posix()
    except ValueError:
        return path.name


@dataclass(frozen=True)
class DataDir:
    """The folders of one data dir (git-ignored by default: `data/out/`)."""

    root: Path

    @property
    def catalog(self) -> Path:
        return self.root / "catalog.duckdb"

    @property
    def shards(self) -> Path:
        return self.root / "shards"

    @property
    def releases(self) -> Path:
        return self.root / "releases"

    @property
    def llm(self) -> Path:
        """The LLM replay cache and the concurrency slots shared by every process using this data dir."""
        return self.root / "llm"

    def open_catalog(self) -> "Catalog":
        """Open the catalog as the data dir's one writer, then clear temporaries a crashed writer left.

        DuckDB's file lock makes a second writer fail here, before it could
        sweep files that the running writer is still producing.
        """
        from store.catalog import Catalog
        from store.files import sweep_temporaries

        catalog = Catalog(self.catalog)
        sweep_temporaries(self.shards)
        sweep_temporaries(self.root / "work")
        return catalog

    def work(self, cycle_id: str, stage: str) -> Path:
        """The folder of one stage's intermediate batches in one cycle."""
        path = self.root / "work" / cycle_id / stage
        path.mkdir(parents=True, exist_ok=True)
        return path
