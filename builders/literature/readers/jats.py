"""JATS / PMC XML (`<article>`, or a `<pmc-articleset>` of them): metadata, abstract, body sections, references.

A top-level `<sec>` is one section (its nested sections' paragraphs included);
figures, tables, formulas and labels are left out of the text. References keep
their DOI (or PMID) so they resolve to collection papers.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Any, Iterator

from taskforge.builders.literature.readers.xmltree import LinedTree, child, children, descendants, local, text

ROOTS = ("article", "pmc-articleset")
SKIP = ("fig", "table-wrap", "disp-formula", "tex-math", "alternatives", "supplementary-material", "label",
        "fn-group", "graphic", "media")


def _article_id(meta: ET.Element | None, kind: str) -> str | None:
    found = next((text(e) for e in children(meta, "article-id") if e.get("pub-id-type") == kind), None)
    return found or None


def _year(meta: ET.Element | None) -> str | None:
    dates = children(meta, "pub-date")
    preferred = sorted(dates, key=lambda d: (d.get("pub-type") or d.get("date-type") or "") not in ("epub", "pub"))
    return next((text(child(d, "year")) for d in preferred if text(child(d, "year"))), None)


def _authors(meta: ET.Element | None) -> list[str]:
    names = []
    for contrib in (c for group in children(meta, "contrib-group") for c in children(group, "contrib")):
        if contrib.get("contrib-type", "author") != "author":
            continue
        name = child(contrib, "name")
        if name is not None:
            names.append(" ".join(p for p in (text(child(name, "given-names")), text(child(name, "surname"))) if p))
        elif child(contrib, "collab") is not None:
            names.append(text(child(contrib, "collab")))
    return [n for n in names if n]


def _paragraphs(element: ET.Element) -> list[str]:
    """The texts of the paragraphs under `element`, not those of figures, tables or other skipped parts."""
    found: list[str] = []

    def walk(node: ET.Element) -> None:
        for sub in node:
            name = local(sub.tag)
            if name == "p":
                found.append(text(sub, SKIP))
            elif name not in SKIP:
                walk(sub)

    walk(element)
    return [t for t in found if t]


def _sections(body: ET.Element | None) -> list[dict[str, str]]:
    if body is None:
        return []
    sections = []
    loose = [t for t in (text(p, SKIP) for p in children(body, "p")) if t]
    if loose:
        sections.append({"name": "body", "text": "\n\n".join(loose)})
    for sec in children(body, "sec"):
        paragraphs = _paragraphs(sec)
        if paragraphs:
            sections.append({"name": text(child(sec, "title")) or "section", "text": "\n\n".join(paragraphs)})
    return sections


def _references(back: ET.Element | None) -> list[str]:
    keys = []
    for ref in descendants(back, "ref"):
        ids = {e.get("pub-id-type"): text(e) for e in descendants(ref, "pub-id")}
        if ids.get("doi"):
            keys.append(ids["doi"])
        elif ids.get("pmid"):
            keys.append(f"pmid:{ids['pmid']}")
    return keys


def _abstract(meta: ET.Element | None) -> str:
    abstracts = children(meta, "abstract")
    plain = [a for a in abstracts if not a.get("abstract-type")] or abstracts
    if not plain:
        return ""
    paragraphs = _paragraphs(plain[0])
    return "\n\n".join(paragraphs) if paragraphs else text(plain[0], SKIP)


def to_record(article: ET.Element, fallback_id: str) -> dict[str, Any]:
    """One `<article>` as a collection record, named by its PMC id, else its PMID, else `fallback_id` (never by
    its DOI: a listing of candidates must not hand the solver external ids)."""
    front = child(article, "front")
    meta = child(front, "article-meta")
    journal = child(front, "journal-meta")
    pmc = _article_id(meta, "pmc") or _article_id(meta, "pmcid")
    pmid = _article_id(meta, "pmid")
    return {
        "id": f"pmc-{pmc.removeprefix('PMC')}" if pmc else f"pmid-{pmid}" if pmid else fallback_id,
        "doi": _article_id(meta, "doi"), "title": text(child(meta, "title-group", "article-title"), SKIP),
        "abstract": _abstract(meta), "authors": _authors(meta), "year": _year(meta),
        "venue": text(child(journal, "journal-title-group", "journal-title")) or text(child(journal, "journal-title"))
        or None,
        "references": _references(child(article, "back")), "sections": _sections(child(article, "body")),
    }


def records(tree: LinedTree, name: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line, record) for each article of the document (`name`, the file's name, names articles without ids)."""
    articles = [tree.root] if local(tree.root.tag) == "article" else children(tree.root, "article")
    stem = name.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    for number, article in enumerate(articles, start=1):
        yield tree.line(article), to_record(article, stem if len(articles) == 1 else f"{stem}-{number}")
