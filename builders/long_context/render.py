"""Rendering a world to varied prose: dates and numbers in several styles, event sentences, and documents
made of blocks whose fact sentences keep their character offsets (filler prose is `filler.py`)."""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import dataclass, field
from typing import Any

from taskforge.builders.long_context.world import Event, World
from taskforge.graders.long_context.pieces import remember
from taskforge.graders.long_context.values import MONTHS, ORDINAL_WORDS

_DOC_KINDS = ("Quarterly report", "Meeting minutes", "Correspondence file", "Press digest", "Field notes",
              "Board memorandum", "Project log", "Audit summary")


_MONTH_NAMES = tuple(month.capitalize() for month in MONTHS)


def format_date(date: dt.date, style: int) -> str:
    """One of several renderings of a date, so that string matching alone cannot order events."""
    month = _MONTH_NAMES[date.month - 1]
    styles = (
        lambda d: f"on {d.day} {month} {d.year}",
        lambda d: f"on {month} {d.day}, {d.year}",
        lambda d: f"on {d.isoformat()}",
        lambda d: f"on the {ORDINAL_WORDS[d.day - 1]} of {month} {d.year}",
        lambda d: f"in {month} {d.year}, on the {d.day}{_suffix(d.day)}",
    )
    return styles[style % len(styles)](date)


def _suffix(day: int) -> str:
    return "th" if 10 <= day % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(day % 10, "th")


def render_event(event: Event, rng: random.Random, template: str | None = None, date: dt.date | None = None) -> str:
    """One sentence stating the event and its date (or another date), in a given or random wording and a
    random date style."""
    template = template or rng.choice(event.renderings)
    date = format_date(date or event.date, rng.randrange(5))
    return template.format(date=date, date_cap=date[0].upper() + date[1:])


_NUMBER_STYLES = (lambda n: f"{n:,}", lambda n: str(n))


def format_number(value: int, style: int) -> str:
    """A whole number with or without thousands separators (both read the same by the evidence check)."""
    return _NUMBER_STYLES[style % len(_NUMBER_STYLES)](value)


_ONES = ("", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
         "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen")
_TENS = ("", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")


def in_words(n: int) -> str:
    """A whole number below a million in English words ('four thousand two hundred and fifty')."""
    def below_thousand(k: int) -> str:
        hundreds, rest = divmod(k, 100)
        tens = _ONES[rest] if rest < 20 else _TENS[rest // 10] + (f"-{_ONES[rest % 10]}" if rest % 10 else "")
        words = [f"{_ONES[hundreds]} hundred"] if hundreds else []
        return " and ".join(words + [tens] if tens else words)

    thousands, rest = divmod(n, 1000)
    parts = [f"{below_thousand(thousands)} thousand"] if thousands else []
    if rest:
        parts.append(("and " if thousands and rest < 100 else "") + below_thousand(rest))
    return " ".join(parts) or "zero"


@dataclass
class Block:
    """A paragraph of a document. `anchors` locate the fact sentences it states (fact id, start, end
    within the block); a `removable` block is filler that length fitting may drop; `breaks` are offsets
    between two of its sentences where another sentence may go; `digit_parts`, per sentence in order, what
    carries its digits: the values with digits a filler sentence was given (numbers, written dates), or a
    sentence put in whole (`taskforge.graders.long_context.pieces` reads them one by one; empty: not known)."""

    text: str
    anchors: tuple[tuple[str, int, int], ...] = ()
    removable: bool = False
    tokens: int = 0
    breaks: tuple[int, ...] = ()
    digit_parts: tuple[str | tuple[str, ...], ...] = ()


def with_sentences(block: Block, inserted: list[tuple[int, str, str, int]]) -> Block:
    """The block with sentences put in at its breaks: (break offset, fact id, sentence, tokens of the sentence
    with its leading space). It keeps no breaks and is no longer removable."""
    parts, anchors, position, shift = [], list(block.anchors), 0, 0
    for offset, fact_id, sentence, _ in sorted(inserted, key=lambda item: item[0]):
        parts.append(block.text[position:offset] + " ")
        start = offset + shift + 1
        anchors.append((fact_id, start, start + len(sentence)))
        parts.append(sentence)
        shift += len(sentence) + 1
        position = offset
    parts.append(block.text[position:])
    return Block(text="".join(parts), anchors=tuple(anchors), removable=False,
                 tokens=block.tokens + sum(tokens for *_, tokens in inserted),
                 digit_parts=_digit_parts_with(block, inserted))


def _digit_parts_with(block: Block, inserted: list[tuple[int, str, str, int]]) -> tuple[str | tuple[str, ...], ...]:
    """The digit parts of a block of filler with sentences put in at its breaks (none when they are not known,
    or the block already holds a sentence put in)."""
    parts = block.digit_parts
    if len(parts) != len(block.breaks) + 1:
        return ()
    at, parts = {offset: k + 1 for k, offset in enumerate(block.breaks)}, list(parts)
    for shift, (offset, _, sentence, _) in enumerate(sorted(inserted, key=lambda item: item[0])):
        parts.insert(at[offset] + shift, sentence)
    return tuple(parts)


@dataclass
class Doc:
    """A titled document under construction: an ordered list of blocks. A `synthetic` document holds only
    generated filler (added to a folder of real documents that is shorter than the target)."""

    doc_id: str
    title: str
    blocks: list[Block] = field(default_factory=list)
    synthetic: bool = False


BLOCK_SEPARATOR = "\n\n"


def render_docs(docs: list[Doc]) -> tuple[list[dict[str, Any]], dict[str, tuple[str, int, int]]]:
    """The documents as `{doc_id, title, text}` and where each fact sentence ended up (doc id, start, end)."""
    rendered, located = [], {}
    for doc in docs:
        offset, parts = 0, []
        for block in doc.blocks:
            for fact_id, start, end in block.anchors:
                located[fact_id] = (doc.doc_id, offset + start, offset + end)
            parts.append(block.text)
            offset += len(block.text) + len(BLOCK_SEPARATOR)
        text = BLOCK_SEPARATOR.join(parts)
        if any(block.digit_parts for block in doc.blocks):
            remember(text, tuple(block.digit_parts or block.text for block in doc.blocks))
        rendered.append({"doc_id": doc.doc_id, "title": doc.title, "text": text})
    return rendered, located


def document_title(world: World, rng: random.Random) -> str:
    """A varied document title."""
    return f"{rng.choice(_DOC_KINDS)} — {rng.choice(world.organisations)}"
