"""Reading the quantities of a text the builder wrote: what a reading of the whole text finds, joined from what
it finds in each value the builder wrote with digits, each value read once per process.

Filler sentences are written from frames whose words carry no digit: their digits are all in the values they
are given (numbers, codes, versions, written dates), and each value stands between white space or punctuation
that joins it to nothing (a paragraph with a frame that glues a number to its neighbour, 'file {n}/{n2}', is
read whole). So a reading of dates and numbers finds in a paragraph of filler what it finds in its values one
by one, in order. The builder remembers each document's text as its paragraphs (`remember`): per sentence, the
values of a filler sentence (a tuple) or a sentence read whole (a fact); a paragraph read whole (a string)
where they are not known. `tests/test_long_context.py` checks the equality on real builds; a text not
remembered is read whole.
"""

from __future__ import annotations

from taskforge.graders.long_context.values import quantities_each, quantities_in

_TEXTS: dict[str, tuple] = {}
_TEXT_LIMIT = 64
"""How many texts are remembered, the latest (a candidate's documents are read right after they are written; a
text no longer remembered is read whole)."""
_QUANTITIES: dict[str, list[float]] = {}
_VALUE_LIMIT = 1 << 18


def remember(text: str, paragraphs: tuple) -> None:
    """Remember a text as its paragraphs: each a string read whole, or per sentence the values with digits of
    a filler sentence (a tuple) or a sentence read whole (a string)."""
    if len(_TEXTS) >= _TEXT_LIMIT:
        del _TEXTS[next(iter(_TEXTS))]
    _TEXTS[text] = paragraphs


def paragraphs_of(text: str) -> tuple:
    """The paragraphs remembered for a text, or the text as its one paragraph read whole."""
    return _TEXTS.get(text) or (text,)


def quantities_of(text: str) -> list[float]:
    """`quantities_in(text)`, joined from its paragraphs' sentences and values where the text was remembered
    (values not read before are read together, `quantities_each`)."""
    paragraphs, known = paragraphs_of(text), _QUANTITIES
    written = [sentence for paragraph in paragraphs if paragraph.__class__ is not str for sentence in paragraph
               if sentence.__class__ is not str]
    missing = list(set().union(*written).difference(known))
    if missing:
        if len(known) + len(missing) > _VALUE_LIMIT:
            known.clear()
            missing = list(set().union(*written))
        known.update(zip(missing, quantities_each(missing)))
    found: list[float] = []
    for paragraph in paragraphs:
        if paragraph.__class__ is str:
            found += quantities_in(paragraph)
            continue
        for sentence in paragraph:
            if sentence.__class__ is str:
                found += quantities_in(sentence)
                continue
            for value in sentence:
                found += known[value]
    return found
