"""Where a data dir keeps things: the catalog, the shards, each cycle's work files, the releases.

A data dir is a local path or an fsspec URL that every worker reaches (`s3://bucket/prefix`).
The DuckDB catalog is always a local file of the driver, its one writer:
`<data-dir>/catalog.duckdb` for a local data dir, and given explicitly
(`--catalog PATH`) for a remote one. What needs a local (or NFS) folder — the
LLM replay cache and its `flock` concurrency slots — lives in `local_root`: the
data dir itself when it is local, else the catalog's folder.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from taskforge.schemas import TaskforgeError, without_credentials
from taskforge.schemas.locations import Location, is_url, join, makedirs, normalize

if TYPE_CHECKING:
    from taskforge.store.catalog import Catalog

PROJECT_ROOT = Path(__file__).resolve().parents[1]
USER_DATA_DIR = "~/.local/share/taskforge"
"""The data dir of an installed package (and of the Prefect deployments): outside the code, per user."""


def default_data_dir(project_root: Path = PROJECT_ROOT) -> Path:
    """`data/out/` of a source checkout (git-ignored); an installed package, whose code sits in site-packages,
    writes to `USER_DATA_DIR` instead."""
    if (project_root / "pyproject.toml").is_file():
        return project_root / "data" / "out"
    return Path(os.path.expanduser(USER_DATA_DIR))


DEFAULT_DATA_DIR = default_data_dir()
SAMPLES_DIR = PROJECT_ROOT / "data" / "samples"
SNAPSHOT_FOLDER = "collections"
"""The data dir's folder of paper-collection snapshots, which literature tasks are rebuilt from."""


def display_source(source: str) -> str:
    """How a resource is named in the catalog: a URL without its credentials, a shipped sample relative to
    the project, any other local path by its last component (never a host path)."""
    if "://" in source:
        return without_credentials(source)
    path = Path(source)
    try:
        return path.resolve().relative_to(PROJECT_ROOT).as_posix()
    except ValueError:
        return path.name


def expanded(location: Location) -> Location:
    """A local path with `~` and `$VARIABLE`s expanded (a URL as given); an unset variable is an error."""
    if is_url(location):
        return location
    path = os.path.expanduser(os.path.expandvars(os.fspath(location)))
    if "$" in path:
        raise TaskforgeError(f"the data dir {location} names an environment variable that is not set")
    return path


@dataclass(frozen=True)
class DataDir:
    """The folders of one data dir (git-ignored by default: `data/out/`); `root` is a `Path` or a URL."""

    root: Path | str
    catalog_file: Path | None = None

    @classmethod
    def at(cls, location: Location | None = None, catalog: Location | None = None) -> "DataDir":
        """The data dir at a local path or an fsspec URL (default `data/out/`), with its local catalog file; `~`
        and `$VARIABLE` in a local path are those of the machine that runs (a deployment's worker)."""
        root = normalize(expanded(location) if location else DEFAULT_DATA_DIR)
        if catalog is not None and is_url(catalog):
            raise TaskforgeError(f"the catalog must be a local file (DuckDB has one local writer), not {catalog}")
        return cls(root, normalize(catalog) if catalog is not None else None)

    @property
    def remote(self) -> bool:
        """Whether the data dir is an fsspec URL rather than a local path."""
        return is_url(self.root)

    @property
    def catalog(self) -> Path:
        """The DuckDB catalog: a local file, `<root>/catalog.duckdb` unless given."""
        if self.catalog_file is not None:
            return Path(self.catalog_file)
        if self.remote:
            raise TaskforgeError(f"the data dir {self.root} is remote: give a local catalog file with --catalog PATH")
        return Path(self.root) / "catalog.duckdb"

    @property
    def local_root(self) -> Path:
        """The local folder for what must stay on a local or NFS path: the data dir, or the catalog's folder."""
        return self.catalog.parent if self.remote else Path(self.root)

    @property
    def shards(self) -> Path | str:
        return join(self.root, "shards")

    @property
    def releases(self) -> Path | str:
        return join(self.root, "releases")

    @property
    def llm(self) -> Path:
        """The LLM replay cache and the `flock` concurrency slots shared by every process on this machine
        (or on every machine that mounts `local_root` over NFS)."""
        return self.local_root / "llm"

    def open_catalog(self) -> "Catalog":
        """Open the catalog as the data dir's one writer, then clear temporaries a crashed writer left.

        DuckDB's file lock makes a second writer fail here, before it could
        sweep files that the running writer is still producing.
        """
        from taskforge.store.catalog import Catalog
        from taskforge.store.files import sweep_temporaries

        catalog = Catalog(self.catalog)
        for folder in (self.shards, join(self.root, "work"), join(self.root, SNAPSHOT_FOLDER)):
            sweep_temporaries(folder)
        return catalog

    def work(self, cycle_id: str, stage: str) -> Path | str:
        """The folder of one stage's intermediate batches in one cycle."""
        path = join(self.root, "work", cycle_id, stage)
        makedirs(path)
        return path
