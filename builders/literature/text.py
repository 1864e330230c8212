"""What the generators read off paper text: sentences, named terms (datasets, methods) and reported numbers."""

from __future__ import annotations

import re

from taskforge.builders.literature.debris import term_debris
from taskforge.graders.literature.concepts import content_sections, mentions_concept
from taskforge.graders.literature.descriptions import DECIMAL, sentences
from taskforge.graders.literature.papers import Paper, passages

ENTITY = re.compile(r"(?<![\w-])[A-Z][a-z]*[A-Z0-9][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*(?![\w-])")
"""A named term: a capitalised word with an inner capital or digit (LumenQA, GraphMixer, MIMIC-III, F1)."""


def entity_terms(text: str) -> list[str]:
    """The named terms of a text, in order of first appearance."""
    return list(dict.fromkeys(ENTITY.findall(text)))


def decimals(text: str) -> list[str]:
    """The decimal numbers of a text, in order of first appearance."""
    return list(dict.fromkeys(DECIMAL.findall(text)))


def matchable_terms(text: str) -> list[str]:
    """The named terms of a text a task may ask about: not funding bodies, generic words or math debris."""
    return [term for term in entity_terms(text) if term_debris(term) is None]


def first_passage_mentioning(paper: Paper, forms: list[str]) -> tuple[str, str] | None:
    """(passage id, text) of the first content passage (`concepts.py`) that mentions the concept, or None."""
    content = content_sections(paper)
    return next(((pid, text) for pid, text in passages(paper).items()
                 if pid.rsplit(":", 1)[0] in content and mentions_concept(text, forms)), None)
