"""Rendering a world to varied prose: dated event sentences, filler paragraphs, titled documents."""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import dataclass, field

from builders.long_context.world import Event, World

_ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth",
             "eleventh", "twelfth", "thirteenth", "fourteenth", "fifteenth", "sixteenth", "seventeenth",
             "eighteenth", "nineteenth", "twentieth", "twenty-first", "twenty-second", "twenty-third",
             "twenty-fourth", "twenty-fifth", "twenty-sixth", "twenty-seventh", "twenty-eighth",
             "twenty-ninth", "thirtieth", "thirty-first")
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
)


def format_date(date: dt.date, style: int) -> str:
    """One of several renderings of a date, so that string matching alone cannot order events."""
    styles = (
        lambda d: f"on {d.day} {d:%B} {d.year}",
        lambda d: f"on {d:%B} {d.day}, {d.year}",
        lambda d: f"on {d.isoformat()}",
        lambda d: f"on the {_ORDINALS[d.day - 1]} of {d:%B} {d.year}",
        lambda d: f"in {d:%B} {d.year}, on the {d.day}{_suffix(d.day)}",
    )
    return styles[style % len(styles)](date)


def _suffix(day: int) -> str:
    return "th" if 10 <= day % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(day % 10, "th")


def render_event(event: Event, rng: random.Random) -> str:
    """One sentence stating the event and its date, in a randomly chosen wording and date style."""
    template = rng.choice(event.renderings)
    date = format_date(event.date, rng.randrange(5))
    return template.format(date=date, date_cap=date[0].upper() + date[1:])


def filler_paragraph(world: World, rng: random.Random, sentences: int = 4) -> str:
    """Plausible, undated prose about the world that states no event."""
    slots = lambda: {"place": rng.choice(world.places), "person": rng.choice(world.people),  # noqa: E731
                     "org": rng.choice(world.organisations), "project": rng.choice(world.projects)}
    return " ".join(rng.choice(_FILLER).format(**slots()) for _ in range(sentences))


@dataclass
class Document:
    """A titled document under construction: paragraphs, and which paragraph states which event."""

    doc_id: str
    title: str
    paragraphs: list[str] = field(default_factory=list)
    event_sentences: dict[str, str] = field(default_factory=dict)

    @property
    def text(self) -> str:
        return "\n\n".join(self.paragraphs)


def new_documents(world: World, rng: random.Random, count: int) -> list[Document]:
    """Empty documents with varied titles."""
    return [
        Document(doc_id=f"doc-{i + 1}", title=f"{rng.choice(_DOC_KINDS)} — {rng.choice(world.organisations)}")
        for i in range(count)
    ]
