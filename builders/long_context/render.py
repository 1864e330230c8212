"""Rendering a world to varied prose: dates and numbers in several styles, event sentences, filler
paragraphs, and documents made of blocks whose fact sentences keep their character offsets."""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import dataclass, field
from string import Formatter
from typing import Any

from taskforge.builders.long_context.world import Event, World
from taskforge.graders.long_context.values import ORDINAL_WORDS

_DOC_KINDS = ("Quarterly report", "Meeting minutes", "Correspondence file", "Press digest", "Field notes",
              "Board memorandum", "Project log", "Audit summary")
_FILLER = (
    "Staff at {place} reviewed the maintenance schedule for shared equipment and agreed to keep the current rota.",
    "{person} circulated notes on procurement practice at {org}, recommending clearer labelling of spare parts.",
    "The working group on {project} discussed documentation standards and asked for shorter weekly summaries.",
    "Visitors to {place} remarked on the new signage, and the facilities team promised to repair the east gate.",
    "{org} reminded all teams that travel requests must be filed through the central office.",
    "A long discussion about data retention at {org} ended without a decision; the topic returns next session.",
    "{person} presented a short overview of safety training attendance, which remained steady.",
    "The library at {place} extended its opening hours, and {person} thanked the volunteers who made it possible.",
    "Members debated whether {project} should adopt a common template for its technical notes.",
    "{org} updated the internal phone directory and asked everyone to check their entries.",
    "Budget lines for consumables at {org} were left unchanged after a brief review by {person}.",
    "The canteen committee at {place} collected suggestions for a more varied menu.",
    "{person} noted that the shared drive used by {project} was nearly full and proposed an archive policy.",
    "An informal lunch talk at {org} covered the history of {place} and drew a good audience.",
    "{person} asked colleagues at {org} to send comments on the draft style guide before the next meeting.",
    "The steering group of {project} agreed that minutes should be circulated within a week.",
    "Heavy rain closed the access road to {place} for an afternoon, and several visits were rescheduled.",
    "{org} ran its annual fire drill, which went smoothly apart from a jammed door in the west wing.",
    "{person} gave a seminar at {place} on the difficulty of keeping field notebooks legible.",
    "A survey of staff at {org} found broad satisfaction with the new meeting rooms.",
    "The newsletter of {project} introduced two interns and listed upcoming talks.",
    "{person} and a colleague from {org} compared notes on how to archive old correspondence.",
    "Parking at {place} remained difficult, and the site office suggested car sharing.",
    "The reading group at {org} discussed a history of scientific instruments.",
    "{project} moved its weekly meeting from Monday to Tuesday to suit the visiting staff.",
    "The cleaning contract at {place} was renewed on the same terms as before.",
    "{person} reminded everyone at {org} to back up their laptops before the holidays.",
    "A photograph of the old laboratory at {place} was hung in the entrance hall.",
    "{org} published a short guide on writing clear meeting agendas.",
    "The members of {project} thanked {person} for organising the summer outing.",
)


def format_date(date: dt.date, style: int) -> str:
    """One of several renderings of a date, so that string matching alone cannot order events."""
    styles = (
        lambda d: f"on {d.day} {d:%B} {d.year}",
        lambda d: f"on {d:%B} {d.day}, {d.year}",
        lambda d: f"on {d.isoformat()}",
        lambda d: f"on the {ORDINAL_WORDS[d.day - 1]} of {d:%B} {d.year}",
        lambda d: f"in {d:%B} {d.year}, on the {d.day}{_suffix(d.day)}",
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


_FILLER_SLOTS = tuple((template, tuple(name for _, name, _, _ in Formatter().parse(template) if name))
                      for template in _FILLER)


def filler_sentences(world: World, rng: random.Random, count: int) -> list[str]:
    """Plausible, undated sentences about the world that state no fact."""
    pools = {"place": world.places, "person": world.people, "org": world.organisations, "project": world.projects}
    sentences = []
    for _ in range(count):
        template, names = rng.choice(_FILLER_SLOTS)
        sentences.append(template.format(**{name: rng.choice(pools[name]) for name in names}))
    return sentences


def filler_paragraph(world: World, rng: random.Random, sentences: int = 4) -> str:
    """A paragraph of filler sentences."""
    return " ".join(filler_sentences(world, rng, sentences))


_NUMBER_STYLES = (lambda n: f"{n:,}", lambda n: str(n))


def format_number(value: int, style: int) -> str:
    """A whole number with or without thousands separators (both read the same by the evidence check)."""
    return _NUMBER_STYLES[style % len(_NUMBER_STYLES)](value)


@dataclass
class Block:
    """A paragraph of a document. `anchors` locate the fact sentences it states (fact id, start, end
    within the block); a `removable` block is filler that length fitting may drop."""

    text: str
    anchors: tuple[tuple[str, int, int], ...] = ()
    removable: bool = False
    tokens: int = 0


def fact_block(fact_id: str, sentence: str, before: str = "", after: str = "") -> Block:
    """A paragraph stating one fact sentence, optionally between sentences of filler."""
    prefix = f"{before} " if before else ""
    text = f"{prefix}{sentence}{' ' + after if after else ''}"
    return Block(text=text, anchors=((fact_id, len(prefix), len(prefix) + len(sentence)),))


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
        rendered.append({"doc_id": doc.doc_id, "title": doc.title, "text": BLOCK_SEPARATOR.join(parts)})
    return rendered, located


def document_title(world: World, rng: random.Random) -> str:
    """A varied document title."""
    return f"{rng.choice(_DOC_KINDS)} — {rng.choice(world.organisations)}"
