"""GROBID TEI (the XML GROBID writes for a PDF): header metadata, abstract, body divisions, bibliography.

Each `<div>` of the body with a `<head>` is a section (GROBID writes them flat);
formulas, figures and tables are left out. A paper is named by its file
(`name.tei.xml` → `name`, `-2`, `-3` … for the further documents of a corpus).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Any, Iterator

from taskforge.builders.literature.readers.xmltree import LinedTree, child, children, descendants, text

ROOTS = ("TEI", "teiCorpus")
SKIP = ("formula", "figure", "table", "note", "label")


def _idnos(element: ET.Element | None) -> dict[str, str]:
    return {(e.get("type") or "").casefold(): text(e) for e in descendants(element, "idno")}


def _person(author: ET.Element) -> str:
    name = child(author, "persName")
    parts = [text(f) for f in children(name, "forename")] + [text(child(name, "surname"))]
    return " ".join(p for p in parts if p)


def _sections(body: ET.Element | None) -> list[dict[str, str]]:
    sections = []
    for div in children(body, "div"):
        paragraphs = [t for t in (text(p, SKIP) for p in children(div, "p")) if t]
        if paragraphs:
            sections.append({"name": text(child(div, "head")) or "body", "text": "\n\n".join(paragraphs)})
    return sections


def _references(back: ET.Element | None) -> list[str]:
    keys = []
    for bibl in descendants(back, "biblStruct"):
        ids = _idnos(bibl)
        if ids.get("doi"):
            keys.append(ids["doi"])
        elif ids.get("arxiv"):
            keys.append(f"arxiv:{ids['arxiv']}")
    return keys


def to_record(tei: ET.Element, stem: str) -> dict[str, Any]:
    """One TEI document as a collection record named `stem`."""
    header = child(tei, "teiHeader")
    source = child(header, "fileDesc", "sourceDesc", "biblStruct")
    ids = _idnos(source)
    title = child(header, "fileDesc", "titleStmt", "title")
    published = next((d.get("when") for d in descendants(child(source, "monogr"), "date") if d.get("when")), None)
    abstract = child(header, "profileDesc", "abstract")
    paragraphs = [t for t in (text(p, SKIP) for p in descendants(abstract, "p")) if t]
    return {
        "id": stem,
        "doi": ids.get("doi") or None, "arxiv_id": ids.get("arxiv") or None, "title": text(title),
        "abstract": "\n\n".join(paragraphs), "authors": [a for a in map(_person, descendants(child(source, "analytic"),
                                                                                          "author")) if a],
        "year": published[:4] if published else None,
        "venue": text(child(source, "monogr", "title")) or None,
        "references": _references(child(tei, "text", "back")), "sections": _sections(child(tei, "text", "body")),
    }


def records(tree: LinedTree, name: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line, record) for the document (or each TEI of a corpus)."""
    documents = children(tree.root, "TEI") or [tree.root]
    stem = name.rsplit("/", 1)[-1].removesuffix(".xml").removesuffix(".tei")
    for number, tei in enumerate(documents, start=1):
        yield tree.line(tei), to_record(tei, stem if number == 1 else f"{stem}-{number}")
