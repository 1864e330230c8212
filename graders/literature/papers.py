"""Paper collections in normal form: records, passages, the citation graph, content versions and snapshots.

A collection is versioned by its content: the version is a hash of its papers
in id order, so the same papers give the same version whatever order they
were read in. Builders save a collection's snapshot under the data dir
(`collections/<version>.parquet`); the search environment of a task is
rebuilt from that snapshot by validators and by the trainer.
"""

from __future__ import annotations

import hashlib
import re
from collections import defaultdict
from functools import cached_property
from pathlib import Path

import pyarrow.parquet as pq
from pydantic import Field

from taskforge.schemas import InputError, Record, from_table, to_table
from taskforge.schemas.locations import Location, exists, join, makedirs, readable
from taskforge.store.files import atomic_open
from taskforge.store.layout import SNAPSHOT_FOLDER

ABSTRACT = "abstract"


class Section(Record):
    """One named part of a paper's full text (introduction, method, results …)."""

    name: str
    text: str


class Paper(Record):
    """One paper with normalised ids; `references` hold collection paper ids, or `doi:`/`arxiv:` keys
    for works outside the collection."""

    paper_id: str
    doi: str | None = None
    arxiv_id: str | None = None
    title: str
    abstract: str = ""
    authors: list[str] = Field(default_factory=list)
    year: int | None = None
    venue: str | None = None
    references: list[str] = Field(default_factory=list)
    sections: list[Section] = Field(default_factory=list)


def paragraphs(text: str) -> list[str]:
    """The paragraphs of a text (separated by blank lines), stripped, empty ones left out."""
    return [p.strip() for p in re.split(r"\n\s*\n", text) if p.strip()]


def section_texts(paper: Paper) -> dict[str, str]:
    """The readable text sections of a paper by name: the abstract first, then the full-text sections."""
    texts = {ABSTRACT: paper.abstract} if paper.abstract else {}
    texts.update((s.name, s.text) for s in paper.sections)
    return texts


def passages(paper: Paper) -> dict[str, str]:
    """Every passage of a paper by passage id (`<section>:<n>`, n from 1), in reading order."""
    return {f"{name}:{n}": text for name, body in section_texts(paper).items()
            for n, text in enumerate(paragraphs(body), start=1)}


def full_text(paper: Paper) -> str:
    """Title, abstract and full-text sections as one text."""
    return "\n\n".join([paper.title, *section_texts(paper).values()])


def _term_pattern(term: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w.-]){re.escape(term)}(?![\w-]|\.\w)")


def mentions(text: str, term: str) -> bool:
    """Whether `text` contains `term` as a whole word (case-sensitive; `87.3` does not match `187.3`)."""
    return bool(_term_pattern(term).search(text))


def supports(text: str, support: dict) -> bool:
    """Whether a passage states a claim's figure together with all its terms (`{"value", "terms"}`)."""
    return mentions(text, support["value"]) and all(mentions(text, term) for term in support["terms"])


class PaperCollection:
    """The papers of one collection, sorted by id, with lookups and the reverse citation graph."""

    def __init__(self, collection_id: str, papers: list[Paper]):
        self.collection_id = collection_id
        self.papers = sorted(papers, key=lambda p: p.paper_id)
        self.by_id = {p.paper_id: p for p in self.papers}

    def __len__(self) -> int:
        return len(self.papers)

    @cached_property
    def version(self) -> str:
        """The content version: a hash of every paper's JSON, in id order."""
        digest = hashlib.sha256()
        for paper in self.papers:
            digest.update(paper.model_dump_json().encode("utf-8") + b"\n")
        return f"v-{digest.hexdigest()[:16]}"

    @cached_property
    def cited_by(self) -> dict[str, list[str]]:
        """For each paper id, the ids of the collection papers that cite it (sorted)."""
        citing: dict[str, list[str]] = defaultdict(list)
        for paper in self.papers:
            for ref in dict.fromkeys(paper.references):
                if ref in self.by_id:
                    citing[ref].append(paper.paper_id)
        return dict(citing)


def snapshot_path(data_dir: Location, version: str) -> Path | str:
    """Where the snapshot of a collection version lives under a data dir (a local path or an fsspec URL)."""
    return join(data_dir, SNAPSHOT_FOLDER, f"{version}.parquet")


def save_snapshot(collection: PaperCollection, data_dir: Location) -> str:
    """Write the collection's snapshot once (through the one atomic writer: concurrent batches writing the same
    version each use a temporary name of their own); returns its path relative to the data dir."""
    final = snapshot_path(data_dir, collection.version)
    relative = f"{SNAPSHOT_FOLDER}/{collection.version}.parquet"
    if not exists(final):
        makedirs(join(data_dir, SNAPSHOT_FOLDER))
        with atomic_open(final) as handle:
            pq.write_table(to_table(collection.papers, Paper), handle, compression="zstd")
    return relative


def load_snapshot(data_dir: Location, collection_id: str, version: str) -> PaperCollection:
    """The collection saved under `version`, checked against its content; InputError when missing or altered."""
    path = snapshot_path(data_dir, version)
    name = f"{SNAPSHOT_FOLDER}/{version}.parquet"
    if not exists(path):
        raise InputError(name, f"no snapshot of collection {collection_id!r} version {version} in the data dir")
    with readable(path) as source:
        collection = PaperCollection(collection_id, from_table(pq.read_table(source), Paper))
    if collection.version != version:
        raise InputError(name, f"snapshot content has version {collection.version}, not {version}")
    return collection
