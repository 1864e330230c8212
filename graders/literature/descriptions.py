"""A paper described without its name, and a number asked by its metric and setting: what builders and validators
of `described_finding` both derive from a collection snapshot.

A description is a list of constraints a paper meets: `cites` or `cited_by` a
collection paper (named in the prompt by its title), `mentions` a term as a
concept in its content (case, plurals and hyphens aside), `published_in` a
year, `venue` a venue. A number is stated for a metric and setting terms where
one sentence of the paper's content has the metric word (any case) and the
number as a level (not in brackets, not after ±, + or "by") in a part of it, up
to or after a comparison ("compared with", "than", "whereas" …), that names
every setting term outside brackets; a number is asked only where it is the one
level so stated.
"""

from __future__ import annotations

import re
from typing import Any

from taskforge.graders.literature.concepts import content_sections, content_text, mentions_concept
from taskforge.graders.literature.papers import Paper, PaperCollection, mentions, paragraphs

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")
DECIMAL = re.compile(r"(?<![\w.-])\d+\.\d+(?![\w-]|\.\d)")
"""A reported number with a decimal point (87.3), not part of a name or a longer number."""
_BRACKETS = re.compile(r"\([^()]*\)")
_CHANGE_BEFORE = re.compile(r"(?:±|\+|∆=?\s*\+?|\bby)\s*$")
"""A number after these is a spread or a change, not the level a setting reaches."""
_COMPARED = re.compile(r"\b(?:compared (?:with|to)|than|versus|vs\.|whereas|while)\s", re.IGNORECASE)
"""Where a sentence turns to what it compares with: the numbers after it are the other side's."""


def sentences(text: str) -> list[str]:
    """The sentences of a passage."""
    return [s.strip() for s in _SENTENCE_END.split(text) if s.strip()]


def meets(paper: Paper, constraint: dict[str, Any], collection: PaperCollection) -> bool:
    """Whether a paper meets one constraint of a description; ValueError for a type nothing derives."""
    kind = constraint.get("type")
    if kind == "cites":
        return constraint["paper_id"] in paper.references
    if kind == "cited_by":
        cited = collection.by_id.get(constraint["paper_id"])
        return cited is not None and paper.paper_id in cited.references
    if kind == "mentions":
        return mentions_concept(content_text(paper), [constraint["term"]])
    if kind == "published_in":
        return paper.year == constraint["year"]
    if kind == "venue":
        return paper.venue == constraint["venue"]
    raise ValueError(f"no derivation for the constraint type {kind!r}")


def described(collection: PaperCollection, constraints: list[dict[str, Any]]) -> list[Paper]:
    """The collection papers meeting every constraint."""
    return [p for p in collection.papers if all(meets(p, c, collection) for c in constraints)]


def _bracketed(sentence: str, at: int) -> bool:
    """Whether position `at` of the sentence is inside brackets."""
    return any(b.start() < at < b.end() for b in _BRACKETS.finditer(sentence))


def changes(sentence: str) -> set[str]:
    """The sentence's decimal numbers that are a spread or a change (after ±, + or "by")."""
    return {m[0] for m in DECIMAL.finditer(sentence) if _CHANGE_BEFORE.search(sentence[:m.start()])}


def _levels(sentence: str) -> list[re.Match[str]]:
    """The sentence's decimal numbers that are levels reported: not in brackets, not a spread or a change."""
    return [m for m in DECIMAL.finditer(sentence)
            if not _bracketed(sentence, m.start()) and not _CHANGE_BEFORE.search(sentence[:m.start()])]


def stated_values(paper: Paper, metric: str, setting: list[str]) -> set[str]:
    """The decimal numbers the paper's content states as levels in a sentence with the metric word, each in a part of
    it (up to or after a comparison) naming every setting term outside brackets: a careful reader takes any of them
    for the metric in that setting."""
    found = set()
    for body in content_sections(paper).values():
        for passage in paragraphs(body):
            for sentence in sentences(passage):
                if not mentions(sentence.casefold(), metric.casefold()):
                    continue
                for part in _COMPARED.split(sentence):
                    if all(mentions(_BRACKETS.sub(" ", part), t) for t in setting):
                        found.update(m[0] for m in _levels(part))
    return found
