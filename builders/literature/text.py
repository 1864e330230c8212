"""What the generators read off paper text: sentences, named terms (datasets, methods) and reported numbers."""

from __future__ import annotations

import re

from taskforge.graders.literature.papers import Paper, mentions, passages

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")
ENTITY = re.compile(r"(?<![\w-])[A-Z][a-z]*[A-Z0-9][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*(?![\w-])")
"""A named term: a capitalised word with an inner capital or digit (LumenQA, GraphMixer, MIMIC-III, F1)."""
DECIMAL = re.compile(r"(?<![\w.-])\d+\.\d+(?![\w-]|\.\d)")
"""A reported number with a decimal point (87.3), not part of a name or a longer number."""


def sentences(text: str) -> list[str]:
    """The sentences of a passage."""
    return [s.strip() for s in _SENTENCE_END.split(text) if s.strip()]


def entity_terms(text: str) -> list[str]:
    """The named terms of a text, in order of first appearance."""
    return list(dict.fromkeys(ENTITY.findall(text)))


def decimals(text: str) -> list[str]:
    """The decimal numbers of a text, in order of first appearance."""
    return list(dict.fromkeys(DECIMAL.findall(text)))


def first_passage_mentioning(paper: Paper, term: str) -> tuple[str, str] | None:
    """(passage id, text) of the first passage that mentions `term`, or None."""
    return next(((pid, text) for pid, text in passages(paper).items() if mentions(text, term)), None)
