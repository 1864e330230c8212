"""Load a paper collection from records (a file or a folder of them), normalising ids.

A native record has `id` (or `paper_id`), `doi`, `arxiv_id` (or `arxiv`), `title`,
`abstract`, `authors`, `year`, `venue`, `references` and, optionally, a full
text as `sections` (a list of `{name, text}` or a mapping) or `full_text`.
Files are JSONL, JSON or Parquet records (native, or OpenAlex works, Semantic
Scholar / S2ORC / S2AG papers, arXiv snapshot records, recognised per record) and
XML (JATS/PMC, GROBID TEI, ACL Anthology, arXiv OAI-PMH), mapped onto the native
record by `taskforge.builders.literature.readers`, so one folder may mix them.
Ids are normalised (see `taskforge.graders.paper_ids`; collection ids are casefolded),
references are resolved to collection papers by id, DOI or arXiv id. A bad
record is quarantined with its file and line, an unreadable file with its name,
and the rest loads.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterator

import pyarrow.parquet as pq

from taskforge.builders.literature.readers import XML_SUFFIXES, json_record, json_records, xml_records
from taskforge.graders.paper_ids import normalise_arxiv, normalise_doi
from taskforge.graders.literature.papers import ABSTRACT, Paper, PaperCollection, Section
from taskforge.graders.literature.environment import CITED_BY, METADATA, REFERENCES
from taskforge.schemas import InputError, Quarantined

SUFFIXES = (".jsonl", ".json", ".parquet", *XML_SUFFIXES)
RESERVED_SECTIONS = (ABSTRACT, METADATA, REFERENCES, CITED_BY)
_ID = re.compile(r"^[^\s,;]+$")


@dataclass
class LoadedCollection:
    """A collection and the records that could not be used."""

    collection: PaperCollection
    quarantined: list[Quarantined] = field(default_factory=list)


def _text(record: dict[str, Any], *keys: str) -> str | None:
    for key in keys:
        value = record.get(key)
        if value is not None:
            if not isinstance(value, str):
                raise ValueError(f"{key} must be a string, not {type(value).__name__}")
            return value.strip() or None
    return None


def _authors(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [a.strip() for a in re.split(r";| and ", value) if a.strip()]
    if isinstance(value, list):
        names = [a.get("name") if isinstance(a, dict) else a for a in value]
        if all(isinstance(n, str) for n in names):
            return [n.strip() for n in names if n.strip()]
    raise ValueError("authors must be a string or a list of names")


def _year(value: Any) -> int | None:
    if value is None or value == "":
        return None
    if isinstance(value, bool) or not (isinstance(value, int) or (isinstance(value, str) and value.strip().isdigit())):
        raise ValueError(f"year {value!r} is not a number")
    year = int(value)
    if not 1800 <= year <= 2100:
        raise ValueError(f"year {year} is out of range")
    return year


def _section_name(raw: str, taken: set[str]) -> str:
    name = re.sub(r"[^\w]+", "_", raw.strip().casefold()).strip("_") or "section"
    if name in RESERVED_SECTIONS:
        name = f"{name}_text"
    base, n = name, 2
    while name in taken:
        name, n = f"{base}_{n}", n + 1
    taken.add(name)
    return name


def _sections(record: dict[str, Any]) -> list[Section]:
    raw = record.get("sections")
    if raw is None:
        body = _text(record, "full_text")
        return [Section(name="body", text=body)] if body else []
    pairs = list(raw.items()) if isinstance(raw, dict) else [
        (s.get("name") or s.get("title") or s.get("heading") or "section", s.get("text")) if isinstance(s, dict)
        else (None, None) for s in raw] if isinstance(raw, list) else None
    if pairs is None or any(not isinstance(text, str) or not isinstance(name, str) for name, text in pairs):
        raise ValueError("sections must be a list of {name, text} objects or a mapping of name to text")
    taken: set[str] = set()
    return [Section(name=_section_name(name, taken), text=text.strip()) for name, text in pairs if text.strip()]


def reference_key(value: str) -> str:
    """A cited work's key: `doi:<doi>`, `arxiv:<id>`, or a collection id."""
    doi, arxiv = normalise_doi(value), normalise_arxiv(value)
    return f"doi:{doi}" if doi else f"arxiv:{arxiv}" if arxiv else value.strip().casefold()


def paper_from_record(record: Any) -> Paper:
    """One raw record as a normalised paper (references not yet resolved); ValueError says what is wrong."""
    if not isinstance(record, dict):
        raise ValueError(f"a record must be a JSON object, not {type(record).__name__}")
    title = _text(record, "title")
    if not title:
        raise ValueError("missing title")
    raw_doi, raw_arxiv = _text(record, "doi"), _text(record, "arxiv_id", "arxiv")
    doi = normalise_doi(raw_doi) if raw_doi else None
    arxiv = normalise_arxiv(raw_arxiv) if raw_arxiv else None
    if raw_doi and not doi:
        raise ValueError(f"doi {raw_doi!r} is not a DOI")
    if raw_arxiv and not arxiv:
        raise ValueError(f"arxiv id {raw_arxiv!r} is not an arXiv id")
    raw_id = _text(record, "id", "paper_id")
    paper_id = raw_id.casefold() if raw_id else doi or (f"arxiv:{arxiv}" if arxiv else None)
    if not paper_id:
        raise ValueError("no id, doi or arxiv id")
    if not _ID.match(paper_id):
        raise ValueError(f"id {raw_id!r} contains spaces, commas or semicolons")
    references = record.get("references") or []
    if not isinstance(references, list) or not all(isinstance(r, str) for r in references):
        raise ValueError("references must be a list of ids")
    sections = _sections(record)
    abstract = _text(record, "abstract") or ""
    if not abstract and not sections:
        raise ValueError("no abstract and no full text")
    return Paper(paper_id=paper_id, doi=doi, arxiv_id=arxiv, title=title, abstract=abstract,
                 authors=_authors(record.get("authors")), year=_year(record.get("year")),
                 venue=_text(record, "venue"), references=[reference_key(r) for r in references if r.strip()],
                 sections=sections)


def _records(path: Path, name: str) -> Iterator[tuple[str, Any]]:
    """(where, record) for each record of one file; `where` names the file and line (or row)."""
    if path.suffix in XML_SUFFIXES:
        for line, record in xml_records(path, name):
            yield f"{name}:{line}", record
    elif path.suffix == ".parquet":
        try:
            rows = pq.read_table(path).to_pylist()
        except Exception as exc:  # pyarrow raises several types for corrupt files
            raise InputError(name, f"unreadable Parquet file ({exc})") from exc
        for number, row in enumerate(rows, start=1):
            yield f"{name}: row {number}", row
    elif path.suffix == ".json":
        try:
            document = json.loads(path.read_text(encoding="utf-8"))
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise InputError(name, f"not valid JSON ({exc})") from exc
        for number, record in enumerate(json_records(document, name), start=1):
            yield f"{name}: record {number}", record
    else:
        with open(path, encoding="utf-8", errors="replace") as handle:
            for number, line in enumerate(handle, start=1):
                if not line.strip():
                    continue
                try:
                    yield f"{name}:{number}", json.loads(line)
                except json.JSONDecodeError as exc:
                    yield f"{name}:{number}", InputError(f"{name}:{number}", f"not valid JSON ({exc.msg})")


def _files(source: Path) -> list[tuple[Path, str]]:
    if source.is_dir():
        files = sorted(p for p in source.rglob("*") if p.suffix in SUFFIXES and not p.name.startswith("."))
        if not files:
            raise InputError(source.name, f"no {', '.join(SUFFIXES)} files in the folder")
        return [(p, f"{source.name}/{p.relative_to(source).as_posix()}") for p in files]
    if not source.exists():
        raise InputError(source.name, "no such file or folder")
    if source.suffix not in SUFFIXES:
        raise InputError(source.name, f"a paper collection must be {', '.join(SUFFIXES)} (or a folder of them)")
    return [(source, source.name)]


def _resolve(papers: list[Paper]) -> list[Paper]:
    """Point references at collection papers where the DOI, arXiv id or id matches; drop self-citations."""
    by_key = {p.paper_id: p.paper_id for p in papers}
    by_key.update((f"doi:{p.doi}", p.paper_id) for p in papers if p.doi)
    by_key.update((f"arxiv:{p.arxiv_id}", p.paper_id) for p in papers if p.arxiv_id)
    resolved = []
    for paper in papers:
        refs = [by_key.get(ref, ref) for ref in paper.references]
        resolved.append(paper.model_copy(update={
            "references": [r for r in dict.fromkeys(refs) if r != paper.paper_id]}))
    return resolved


def _problem(exc: Exception) -> str:
    """What is wrong with a record, in words (a missing field of a foreign format names the field)."""
    return f"missing field {exc}" if isinstance(exc, KeyError) else str(exc)


def _keys(paper: Paper) -> list[str]:
    """The keys by which other records may name this paper: its id, DOI and arXiv id."""
    return [k for k in (paper.paper_id, paper.doi and f"doi:{paper.doi}", paper.arxiv_id and f"arxiv:{paper.arxiv_id}")
            if k]


def load_collection(source: Path, collection_id: str | None = None) -> LoadedCollection:
    """Read every record of `source`; the collection is named by `collection_id` or the source's stem.

    Kept per process while the files are unchanged, since build batches load the same collection.
    """
    source = Path(source)
    stamp = tuple((str(p), name, p.stat().st_mtime_ns, p.stat().st_size) for p, name in _files(source))
    return _load(stamp, collection_id or source.stem)


@lru_cache(maxsize=2)
def _load(files: tuple[tuple[str, str, int, int], ...], collection_id: str) -> LoadedCollection:
    papers: list[Paper] = []
    quarantined: list[Quarantined] = []
    first_seen: dict[str, str] = {}
    for path, name, _, _ in files:
        try:
            for where, record in _records(Path(path), name):
                try:
                    if isinstance(record, InputError):
                        raise record
                    paper = paper_from_record(json_record(record))
                    seen = [f"{key} (first at {first_seen[key]})" for key in _keys(paper) if key in first_seen]
                    if seen:
                        raise ValueError(f"duplicate {', '.join(seen)}")
                except (ValueError, TypeError, KeyError, InputError) as exc:
                    error = exc if isinstance(exc, InputError) else InputError(where, _problem(exc))
                    quarantined.append(Quarantined.from_error(error, "load_papers", where))
                    continue
                first_seen.update(dict.fromkeys(_keys(paper), where))
                papers.append(paper)
        except InputError as exc:
            quarantined.append(Quarantined.from_error(exc, "load_papers", name))
    if not papers:
        raise InputError(collection_id, "no usable paper records")
    return LoadedCollection(PaperCollection(collection_id, _resolve(papers)), quarantined)
