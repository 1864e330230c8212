"""Where a data dir keeps things: the catalog, the shards, each cycle's work files, the releases."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA_DIR = PROJECT_ROOT / "data" / "out"
SAMPLES_DIR = PROJECT_ROOT / "data" / "samples"


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

    def work(self, cycle_id: str, stage: str) -> Path:
        """The folder of one stage's intermediate batches in one cycle."""
        path = self.root / "work" / cycle_id / stage
        path.mkdir(parents=True, exist_ok=True)
        return path
