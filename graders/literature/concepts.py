"""Matching a term as a concept, and the part of a paper where a mention counts.

A term such as "POS" is matched in every written form of its concept: case and
inflection aside ("Tree-banks" matches "treebank"), hyphens and spaces alike
("part-of-speech" matches "part of speech"), and its expansions ("POS" matches
"part of speech", "NER" matches "named entity recognition"). Expansions are read
off the collection itself, where a paper defines an abbreviation ("part of speech
(POS)" or "POS (part-of-speech)"), so the forms are fixed per task and written
into its prompt and constraint: builders and validators match the same forms.

Only a paper's content counts: title, abstract and body sections, never its
reference list, acknowledgments, funding, competing-interest statements or replies to reviewers (a
grant number does not make a paper "mention NSF").
"""

from __future__ import annotations

import re
from functools import lru_cache

from taskforge.graders.literature.papers import ABSTRACT, Paper, section_texts

NON_CONTENT_SECTION = re.compile(
    r"acknowledg|funding|financial|grant|reference|bibliograph|citation|competing|conflict|disclosure|declaration|"
    r"contribution|availability|ethic|consent|abbreviation|supplementa|author_information|about_the_author|"
    r"reviewer|rebuttal|response_to",
    re.IGNORECASE)
"""Section names whose text is not the paper's content (by the normalised section name)."""
_DEFINED = re.compile(r"((?:[A-Za-z][\w'-]*[ -]){1,10})\(\s*([A-Z][A-Za-z0-9-]{1,9})\s*\)")
_DEFINING = re.compile(r"\b([A-Z][A-Za-z0-9-]{1,9})\s*\(\s*((?:[A-Za-z][\w'-]*[ -]?){1,10})\)")
_WORD = re.compile(r"[A-Za-z0-9]+")
_HYPHENABLE = 6
"""Words this long or longer are matched with a hyphen anywhere inside them."""


def content_sections(paper: Paper) -> dict[str, str]:
    """The sections whose text is the paper's content: abstract and body, without reference lists,
    acknowledgments, funding and the like."""
    return {name: text for name, text in section_texts(paper).items()
            if name == ABSTRACT or not NON_CONTENT_SECTION.search(name)}


def content_text(paper: Paper) -> str:
    """Title and content sections as one text: where a mention counts."""
    return "\n\n".join([paper.title, *content_sections(paper).values()])


def _long_form(short: str, phrase: str) -> str | None:
    """The long form an abbreviation stands for at the end of `phrase` (Schwartz and Hearst 2003): each of its
    letters, right to left, found in the phrase, the first at the start of a word; the phrase is cut to at most
    min(n + 5, 2n) words for an abbreviation of n letters."""
    letters = [c.lower() for c in short if c.isalnum()]
    words = phrase.split()
    window = " ".join(words[-min(len(letters) + 5, 2 * len(letters)):])
    text, at = window.lower(), len(window) - 1
    for k in range(len(letters) - 1, -1, -1):
        while at >= 0 and (text[at] != letters[k] or (k == 0 and at > 0 and text[at - 1].isalnum())):
            at -= 1
        if at < 0:
            return None
        at -= 1
    found = window[at + 1:].strip(" -")
    return found.lower().replace("-", " ") if len(found.split()) >= 2 or "-" in window[at + 1:] else None


def expansions(abbreviation: str, texts: list[str]) -> list[str]:
    """The long forms the texts define for an abbreviation, e.g. 'part of speech' for 'POS'."""
    found: dict[str, None] = {}
    plural = abbreviation + "s"
    for text in texts:
        if abbreviation not in text:
            continue
        pairs = [*_DEFINED.findall(text), *((phrase, short) for short, phrase in _DEFINING.findall(text))]
        for phrase, short in pairs:
            if short in (abbreviation, plural) and (long := _long_form(abbreviation, phrase)):
                found.setdefault(long[:-1] if short == plural and long.endswith("s") else long, None)
    return list(found)


def is_abbreviation(term: str) -> bool:
    """Whether a term is written as an abbreviation (two or more capitals, at most a few other letters)."""
    capitals = sum(1 for c in term if c.isupper())
    return capitals >= 2 and capitals >= len(re.sub(r"[^A-Za-z]", "", term)) - 2


def concept_forms(term: str, texts: list[str]) -> list[str]:
    """The forms that count as a mention of `term`: the term itself and, for an abbreviation, the long forms
    the texts define for it."""
    return [term, *(expansions(term, texts) if is_abbreviation(term) else [])]


@lru_cache(maxsize=4096)
def _form_pattern(form: str) -> re.Pattern[str]:
    """A pattern for one form: its words in order, separated by spaces or hyphens (a long word may carry a hyphen
    anywhere: 'Tree-bank' is 'treebank'), the last one optionally inflected (s, es, 's), whole words only, any
    case."""
    body = r"[\s-]+".join(re.escape(w) if len(w) < _HYPHENABLE or is_abbreviation(w) else "-?".join(w)
                           for w in _WORD.findall(form))
    return re.compile(rf"(?<![\w-]){body}(?:s|es|'s)?(?![\w])", re.IGNORECASE)


def mentions_concept(text: str, forms: list[str]) -> bool:
    """Whether `text` mentions any of the forms: case aside (an abbreviation keeps two capitals or more, so
    'PoS' is 'POS' but 'pos' is not), hyphens and spaces alike, a plural or possessive allowed."""
    for form in forms:
        if not _WORD.search(form):
            continue
        for match in _form_pattern(form).finditer(text):
            if not is_abbreviation(form) or sum(1 for c in match[0] if c.isupper()) >= 2:
                return True
    return False


def describe_forms(forms: list[str]) -> str:
    """The forms as the prompt states them."""
    return ", ".join(f"“{form}”" for form in forms)
