"""arXiv metadata: the OAI snapshot's JSON lines (`authors_parsed`, `versions` …) and OAI-PMH XML responses in the
`arXiv` or `oai_dc` formats. arXiv metadata carries no references or full text.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from email.utils import parsedate_to_datetime
from typing import Any, Iterator

from taskforge.graders.paper_ids import normalise_arxiv
from taskforge.builders.literature.readers.xmltree import LinedTree, child, children, descendants, local, text

ROOTS = ("OAI-PMH",)
VENUE = "arXiv"
_SPACE = re.compile(r"\s+")
_ABS_URL = re.compile(r"arxiv\.org/abs/(\S+)$")


def collection_id(arxiv_id: str) -> str | None:
    """The collection id of an arXiv paper (`2212.11739` → `arxiv-2212-11739`): not an arXiv id itself, so a
    listing of candidate papers does not hand the solver their external ids."""
    return "arxiv-" + arxiv_id.strip().replace(".", "-").replace("/", "-") if arxiv_id and arxiv_id.strip() else None


def matches(record: dict[str, Any]) -> bool:
    """Whether a JSON record is an arXiv snapshot record."""
    return "authors_parsed" in record or ("submitter" in record and "categories" in record)


def _clean(value: Any) -> str | None:
    return _SPACE.sub(" ", value).strip() or None if isinstance(value, str) else None


def _first_year(versions: Any, fallback: Any) -> str | None:
    for version in versions or []:
        created = version.get("created") if isinstance(version, dict) else None
        if created:
            return str(parsedate_to_datetime(created).year)
    return str(fallback)[:4] if fallback else None


def from_json(record: dict[str, Any]) -> dict[str, Any]:
    """A snapshot record as a collection record."""
    parsed = record.get("authors_parsed")
    authors = ([" ".join(p for p in (a[1], a[0]) if p) for a in parsed if isinstance(a, list) and len(a) >= 2]
               if isinstance(parsed, list) else record.get("authors"))
    return {
        "id": collection_id(str(record.get("id") or "")), "arxiv_id": record.get("id"), "doi": _clean(record.get("doi")), "title": _clean(record.get("title")),
        "abstract": _clean(record.get("abstract")), "authors": authors,
        "year": _first_year(record.get("versions"), record.get("update_date")),
        "venue": _clean(record.get("journal-ref")) or VENUE, "references": [],
    }


def _from_arxiv_format(meta: ET.Element) -> dict[str, Any]:
    authors = [" ".join(p for p in (text(child(a, "forenames")), text(child(a, "keyname"))) if p)
               for a in descendants(child(meta, "authors"), "author")]
    return {
        "id": collection_id(text(child(meta, "id"))), "arxiv_id": text(child(meta, "id")),
        "doi": text(child(meta, "doi")) or None, "title": text(child(meta, "title")),
        "abstract": text(child(meta, "abstract")), "authors": authors,
        "year": text(child(meta, "created"))[:4] or None, "venue": text(child(meta, "journal-ref")) or VENUE,
        "references": [],
    }


def _from_dublin_core(meta: ET.Element) -> dict[str, Any]:
    identifiers = [text(e) for e in children(meta, "identifier")]
    arxiv = next((normalise_arxiv(m.group(1)) for i in identifiers if (m := _ABS_URL.search(i))), None)
    creators = [text(e) for e in children(meta, "creator")]
    authors = [" ".join(reversed([p.strip() for p in c.split(",", 1)])) for c in creators]
    dates = sorted(text(e) for e in children(meta, "date"))
    return {
        "id": collection_id(arxiv or ""), "arxiv_id": arxiv, "title": text(child(meta, "title")),
        "abstract": text(child(meta, "description")),
        "authors": authors, "year": dates[0][:4] if dates else None, "venue": VENUE, "references": [],
    }


def records(tree: LinedTree) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line, record) for each record of an OAI-PMH response (deleted records are skipped)."""
    for record in descendants(tree.root, "record"):
        header = child(record, "header")
        if header is not None and header.get("status") == "deleted":
            continue
        metadata = child(record, "metadata")
        inner = next(iter(metadata), None) if metadata is not None else None
        if inner is None:
            yield tree.line(record), {}
        elif local(inner.tag) == "dc":
            yield tree.line(record), _from_dublin_core(inner)
        else:
            yield tree.line(record), _from_arxiv_format(inner)
