"""Real documents as a source: a folder of text/Markdown files and the dated statements read from them.

Only facts the generator can verify are used: a sentence that states exactly
one full calendar date (day, month, year) is a dated statement, with its span
in its paragraph, its section heading and its position among the section's
dated sentences. Sections that write dates in forms the reader cannot verify
(`05/03/2021`, `Mar 5th`) are not used to refer to statements by position.
Every other full date the documents write (in headings, code, sentences with
two dates) is kept as a date mention, so that questions about which documents
give a date in a month count them all; months a numeric date could mean
(`05/03/2021`: March or May) are never asked about (`ambiguous_months`).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re
from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import Path

from taskforge.builders.long_context.render import Block
from taskforge.graders.long_context.values import date_mentions
from taskforge.schemas import InputError

SUFFIXES = (".md", ".markdown", ".txt")
_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n")
_SENTENCE_BREAK = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(])|\n(?=\s*(?:[-*+]|\d+\.)\s)")
_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.+?)\s*#*\s*$")
_NUMERIC_DATE = re.compile(r"\b(\d{1,2})[/.](\d{1,2})[/.](\d{4})\b")
_UNVERIFIABLE_DATE = re.compile(r"\b\d{1,2}/\d{1,2}/\d{2,4}\b"
                                r"|\b(?:Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)\.? \d{1,2}(?:st|nd|rd|th)?\b")
MIN_WORDS = 5


@dataclass(frozen=True)
class DatedStatement:
    """A sentence of a source document that states one full date."""

    fact_id: str
    doc_index: int
    block_index: int
    start: int
    end: int
    date: dt.date
    description: str
    snippet: str
    section: str
    ordinal: int
    section_usable: bool


@dataclass(frozen=True)
class DateMention:
    """A full date written outside a dated statement (a heading, code, a sentence with two dates)."""

    fact_id: str
    doc_index: int
    block_index: int
    start: int
    end: int
    date: dt.date


@dataclass
class SourceDoc:
    """One file of the folder: its name relative to the folder, title and paragraphs (blocks)."""

    name: str
    title: str
    blocks: list[Block] = field(default_factory=list)
    sections: list[str] = field(default_factory=list)
    block_sections: list[str] = field(default_factory=list)


@dataclass
class Corpus:
    """A folder of documents and its dated statements."""

    folder_name: str
    docs: list[SourceDoc]
    statements: list[DatedStatement]
    mentions: list[DateMention]
    ambiguous_months: frozenset[str]
    revision: str

    @property
    def resource_id(self) -> str:
        """The resource id tasks record in their lineage."""
        return f"documents-{self.folder_name}-{self.revision[:12]}"

    def source_info(self) -> dict:
        """What the payload records about the source (names relative to the folder, no host paths)."""
        return {"kind": "documents", "folder": self.folder_name, "revision": self.revision,
                "files": [doc.name for doc in self.docs]}


def _blocks(text: str) -> list[str]:
    """Paragraphs separated by blank lines; a fenced code block stays one paragraph."""
    blocks, pending, fenced = [], [], False
    for part in _PARAGRAPH_BREAK.split(text.strip()):
        pending.append(part)
        fenced ^= part.count("```") % 2 == 1
        if not fenced:
            blocks.append("\n\n".join(pending))
            pending = []
    if pending:
        blocks.append("\n\n".join(pending))
    return [b for b in blocks if b.strip()]


def _sentences(block: str) -> list[tuple[int, int]]:
    """Spans of the sentences (and list items) of a paragraph."""
    spans, start = [], 0
    for match in _SENTENCE_BREAK.finditer(block):
        spans.append((start, match.start()))
        start = match.end()
    spans.append((start, len(block)))
    return [(s, e) for s, e in spans if block[s:e].strip()]


def _describe(sentence: str, date_start: int, date_end: int) -> tuple[str, str]:
    """The sentence with its date replaced by an ellipsis (for questions), and a snippet of it that the
    evidence check can find verbatim."""
    before, after = sentence[:date_start], sentence[date_end:]
    description = " ".join(f"{before}…{after}".split()).lstrip("-*+ ").strip()
    longer = max(before, after, key=lambda part: len(part.strip())).strip(" ,;:-")
    return description, " ".join(longer.split()[:6])


def _read(path: Path, folder: Path) -> str:
    """A file's text, or an error naming the file."""
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise InputError(str(path.relative_to(folder)), "not UTF-8 text") from None


def _ambiguous_months(text: str) -> set[str]:
    """Both months a numeric date such as 05/03/2021 could mean."""
    months = set()
    for match in _NUMERIC_DATE.finditer(text):
        for month in (int(match[1]), int(match[2])):
            if 1 <= month <= 12:
                months.add(f"{match[3]}-{month:02d}")
    return months


def _read_doc(index: int, name: str, text: str, statements: list[DatedStatement],
              mentions: list[DateMention]) -> SourceDoc:
    """A document's blocks, sections, dated statements and other date mentions (appended to the lists).

    A section cannot be used to refer to statements by position when its heading
    repeats, its heading or a code block in it holds a date, or it writes dates
    in forms that are not verified."""
    doc = SourceDoc(name=name, title=Path(name).stem)
    section, dated_in_section, bad_sections, found = "", 0, set(), []
    for raw in _blocks(text):
        heading = _HEADING.match(raw) if "\n" not in raw.strip() else None
        if heading:
            if doc.title == Path(name).stem and len(heading[1]) == 1:
                doc.title = heading[2]
            section, dated_in_section = heading[2], 0
            if section in doc.sections or date_mentions(raw):
                bad_sections.add(section)
            doc.sections.append(section)
        if _UNVERIFIABLE_DATE.search(raw) or (raw.lstrip().startswith("```") and date_mentions(raw)):
            bad_sections.add(section)
        block_index, anchors = len(doc.blocks), []
        prose = not heading and not raw.lstrip().startswith("```")
        for start, end in _sentences(raw) if prose else [(0, len(raw))]:
            dates = date_mentions(raw[start:end])
            if not dates:
                continue
            dated_in_section += prose
            description, snippet = _describe(raw[start:end], dates[0][0], dates[0][1])
            if prose and len(dates) == 1 and len(description.split()) >= MIN_WORDS:
                fact_id = f"s{len(statements) + len(found) + 1}"
                found.append(DatedStatement(fact_id, index, block_index, start, end, dates[0][2], description,
                                            snippet, section, dated_in_section, True))
                anchors.append((fact_id, start, end))
                continue
            for date_start, date_end, date in dates:
                fact_id = f"m{len(mentions) + 1}"
                span = (start, end) if prose else (start + date_start, start + date_end)
                mentions.append(DateMention(fact_id, index, block_index, *span, date))
                anchors.append((fact_id, *span))
        doc.blocks.append(Block(text=raw, anchors=tuple(anchors)))
        doc.block_sections.append(section)
    statements += [replace(s, section_usable=s.section not in bad_sections) for s in found]
    return doc


@cache
def _load(folder_path: str, signature: tuple[tuple[str, int, int], ...]) -> Corpus:
    """The corpus of a folder (cached by the files' names, sizes and times)."""
    folder = Path(folder_path)
    files = sorted(p for p in folder.rglob("*") if p.is_file() and p.suffix.lower() in SUFFIXES)
    digest = hashlib.sha256()
    docs: list[SourceDoc] = []
    statements: list[DatedStatement] = []
    mentions: list[DateMention] = []
    ambiguous: set[str] = set()
    for path in files:
        text = _read(path, folder)
        name = path.relative_to(folder).as_posix()
        digest.update(name.encode() + b"\0" + text.encode() + b"\0")
        docs.append(_read_doc(len(docs), name, text, statements, mentions))
        ambiguous |= _ambiguous_months(text)
    return Corpus(folder.name, docs, statements, mentions, frozenset(ambiguous), digest.hexdigest())


def load_corpus(path: str) -> Corpus:
    """Read a folder of .md/.txt documents (cached while the files are unchanged)."""
    folder = Path(path)
    if not folder.is_dir():
        raise InputError(folder.name or str(path), "not a folder of documents")
    files = sorted(p for p in folder.rglob("*") if p.is_file() and p.suffix.lower() in SUFFIXES)
    if not files:
        raise InputError(folder.name, f"no {', '.join(SUFFIXES)} files")
    signature = tuple((p.as_posix(), p.stat().st_size, p.stat().st_mtime_ns) for p in files)
    return _load(str(folder.resolve()), signature)
