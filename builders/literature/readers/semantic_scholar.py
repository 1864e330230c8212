"""Semantic Scholar records: S2ORC (2020 metadata lines with `outbound_citations`; full-text JSON as doc2json
writes it, with `pdf_parse` / `body_text` and `bib_entries`), S2AG `papers` lines (`corpusid`, `externalids`)
and Graph API papers (`paperId`, `externalIds`, `references`).

Papers are named `s2:<id>` (the S2ORC paper id, the corpus id, or the Graph API
paper id); outbound citations and bibliography entries with a DOI, an arXiv id or
a linked S2 paper become references.
"""

from __future__ import annotations

from typing import Any

PREFIX = "s2:"


def matches(record: dict[str, Any]) -> bool:
    """Whether a JSON record is one of the Semantic Scholar shapes."""
    return any(key in record for key in ("corpusid", "paperId", "outbound_citations", "pdf_parse", "body_text",
                                         "externalids", "externalIds"))


def _name(author: Any) -> str:
    if isinstance(author, str):
        return author
    if not isinstance(author, dict):
        return ""
    if author.get("name"):
        return author["name"]
    return " ".join(p for p in (author.get("first"), *(author.get("middle") or []), author.get("last")) if p)


def _paragraph_text(value: Any) -> str:
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, list):
        return "\n\n".join(p.get("text", "").strip() for p in value if isinstance(p, dict) and p.get("text"))
    return ""


def _sections(body: Any) -> list[dict[str, str]]:
    """Consecutive paragraphs under the same heading, as one section each."""
    sections: list[dict[str, str]] = []
    for paragraph in body or []:
        if not isinstance(paragraph, dict) or not str(paragraph.get("text", "")).strip():
            continue
        name = str(paragraph.get("section") or "body").strip() or "body"
        if sections and sections[-1]["name"] == name:
            sections[-1]["text"] += "\n\n" + paragraph["text"].strip()
        else:
            sections.append({"name": name, "text": paragraph["text"].strip()})
    return sections


def _bib_references(entries: Any) -> list[str]:
    keys = []
    for entry in (entries or {}).values() if isinstance(entries, dict) else []:
        other = entry.get("other_ids") or {}
        if other.get("DOI"):
            keys.append(other["DOI"][0])
        elif other.get("arXiv"):
            keys.append(f"arxiv:{other['arXiv'][0]}")
        elif entry.get("link") or entry.get("links"):
            keys.append(f"{PREFIX}{entry.get('link') or entry.get('links')}")
    return keys


def to_record(record: dict[str, Any]) -> dict[str, Any]:
    """A Semantic Scholar record as a collection record."""
    external = record.get("externalids") or record.get("externalIds") or {}
    parse = record.get("pdf_parse") or record
    paper_id = record.get("paper_id") or record.get("corpusid") or record.get("paperId")
    outbound = [f"{PREFIX}{c}" for c in record.get("outbound_citations") or []]
    api_refs = [f"{PREFIX}{r['paperId']}" for r in record.get("references") or []
                if isinstance(r, dict) and r.get("paperId")]
    return {
        "id": f"{PREFIX}{paper_id}" if paper_id else None,
        "doi": record.get("doi") or external.get("DOI"), "arxiv_id": record.get("arxiv_id") or external.get("ArXiv"),
        "title": record.get("title"),
        "abstract": _paragraph_text(record.get("abstract")) or _paragraph_text(parse.get("abstract")),
        "authors": [_name(a) for a in record.get("authors") or []],
        "year": record.get("year") or None, "venue": record.get("venue") or record.get("journal") or None,
        "references": outbound + api_refs + _bib_references(parse.get("bib_entries")),
        "sections": _sections(parse.get("body_text")),
    }
