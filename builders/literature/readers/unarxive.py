"""unarXive records (JSON lines of arXiv full texts: `metadata` with the arXiv snapshot's fields, `body_text`
paragraphs with their section, `bib_entries`, `ref_entries`).

The body carries placeholders where the LaTeX source had math, citations and floats; each is rendered the way
the other readers' text reads: a citation as its bibliography number (`[12]`, in `bib_entries` order), a
formula whose LaTeX is a plain number or comparison as that text (`0.6\\%` → `0.6%`, `N=50`), any other
formula as inline LaTeX (`\\(x_1\\)`, which `debris.py` refuses as math), a figure or table (the float's
position) left out. unarXive writes an unresolved `\\ref` as `REF` ("Figure REF"); `debris.py` refuses it.
Consecutive paragraphs under one heading are one section; figure and table captions are left out (the
paper model has no tables). Papers are named as arXiv metadata names them (`arxiv-2212-11808`), references
are the bibliography's DOIs, arXiv ids or OpenAlex works.
"""

from __future__ import annotations

import re
from typing import Any

from taskforge.builders.literature.readers import arxiv
from taskforge.builders.literature.readers.openalex import PREFIX as OPENALEX, openalex_id

_PLACEHOLDER = re.compile(r"\{\{(formula|cite|figure|table):([^{}]*)\}\}")
_PLAIN_MATH = {r"\%": "%", r"\,": "", r"\;": " ", r"\ ": " ", "~": " ", r"\pm": "±", r"\times": "×",
               r"\approx": "≈", r"\sim": "~", r"\leq": "≤", r"\le": "≤", r"\geq": "≥", r"\ge": "≥"}
_PLAIN = re.compile(r"[A-Za-z0-9\s.,:=<>+\-−%()/±×≈~≤≥]*")
"""What a formula may consist of, once its spacing and symbols are written out, to be shown as plain text."""
_PLAIN_LETTERS = re.compile(r"[A-Za-z]{2,}")


def matches(record: dict[str, Any]) -> bool:
    """Whether a JSON record is a unarXive paper: a body of paragraphs with arXiv snapshot metadata."""
    metadata = record.get("metadata")
    return "body_text" in record and isinstance(metadata, dict) and arxiv.matches(metadata)


def _formula(latex: str) -> str:
    """A formula as text: plain when it is a number or a comparison of numbers and single letters, else
    inline LaTeX."""
    plain = latex.strip()
    for command, written in sorted(_PLAIN_MATH.items(), key=lambda item: -len(item[0])):
        plain = plain.replace(command, written)
    plain = re.sub(r"\s+", " ", plain).strip()
    if plain and _PLAIN.fullmatch(plain) and not _PLAIN_LETTERS.search(plain):
        return plain
    return rf"\({latex.strip()}\)"


def render(text: str, formulas: dict[str, str], citations: dict[str, int]) -> str:
    """A paragraph with its placeholders rendered (formulas, citations) or left out (figures, tables); ValueError
    for a formula placeholder without its LaTeX."""
    def placeholder(match: re.Match[str]) -> str:
        kind, key = match[1], match[2]
        if kind == "formula":
            if key not in formulas:
                raise ValueError(f"formula {key} is not among the record's ref_entries")
            return _formula(formulas[key])
        if kind == "cite":
            return f"[{citations[key]}]" if key in citations else ""
        return ""

    rendered = _PLACEHOLDER.sub(placeholder, text)
    rendered = re.sub(r"[ \t]+([.,;:)])", r"\1", rendered)
    rendered = re.sub(r"[,;]+(?=\.)|\(\s*\)", "", rendered)
    return re.sub(r"[ \t]{2,}", " ", rendered).strip()


def _sections(body: Any, formulas: dict[str, str], citations: dict[str, int]) -> list[dict[str, str]]:
    if not isinstance(body, list):
        raise ValueError("body_text must be a list of paragraphs")
    sections: list[dict[str, str]] = []
    for paragraph in body:
        if not isinstance(paragraph, dict) or not isinstance(paragraph.get("text"), str):
            raise ValueError("a body_text paragraph must be an object with a text")
        text = render(paragraph["text"], formulas, citations)
        if not text:
            continue
        name = render(str(paragraph.get("section") or ""), formulas, {}) or "body"
        if sections and sections[-1]["name"] == name:
            sections[-1]["text"] += "\n\n" + text
        else:
            sections.append({"name": name, "text": text})
    return sections


def _reference(entry: Any) -> str | None:
    ids = (entry.get("ids") or {}) if isinstance(entry, dict) else {}
    if ids.get("doi"):
        return ids["doi"]
    if ids.get("arxiv_id"):
        return f"arxiv:{ids['arxiv_id']}"
    work = ids.get("open_alex_id") or ""
    return openalex_id(work) if work.startswith(OPENALEX) else None


def to_record(record: dict[str, Any]) -> dict[str, Any]:
    """A unarXive paper as a collection record."""
    entries = record.get("ref_entries") or {}
    bib = record.get("bib_entries") or {}
    if not isinstance(entries, dict) or not isinstance(bib, dict):
        raise ValueError("ref_entries and bib_entries must be objects")
    formulas = {key: entry["latex"] for key, entry in entries.items()
                if isinstance(entry, dict) and entry.get("type") == "formula" and isinstance(entry.get("latex"), str)}
    citations = {key: number for number, key in enumerate(bib, start=1)}
    paper = arxiv.from_json(record["metadata"])
    return {**paper, "references": [r for r in map(_reference, bib.values()) if r],
            "sections": _sections(record["body_text"], formulas, citations)}
