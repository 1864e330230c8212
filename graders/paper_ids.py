"""Scholarly identifiers in one normal form: DOIs and arXiv ids, read from records and found in free text.

A DOI is kept lowercased without its resolver prefix (`https://doi.org/`,
`doi:`); an arXiv id without its prefix (`arXiv:`, `arxiv.org/abs/`) and
without its version (`v2`).
"""

from __future__ import annotations

import re

_DOI_PREFIX = re.compile(r"^(?:https?://(?:dx\.)?doi\.org/|doi:\s*)", re.IGNORECASE)
_DOI = re.compile(r"^10\.\d{4,9}/\S+$")
_DOI_IN_TEXT = re.compile(r"10\.\d{4,9}/[^\s\"'<>,;]+")
_TRAILING = ".,;:)]}"

_ARXIV_PREFIX = re.compile(r"^(?:arxiv:\s*|https?://(?:www\.)?arxiv\.org/(?:abs|pdf)/)", re.IGNORECASE)
_ARXIV_NEW = r"\d{2}(?:0[1-9]|1[0-2])\.\d{4,5}"
_ARXIV_OLD = r"[a-z-]+(?:\.[a-z]{2})?/\d{7}"
_ARXIV = re.compile(rf"^(?:{_ARXIV_NEW}|{_ARXIV_OLD})$")
_ARXIV_IN_TEXT = re.compile(
    rf"(?:arxiv:\s*|arxiv\.org/(?:abs|pdf)/)({_ARXIV_NEW}|{_ARXIV_OLD})(?:v\d+)?"
    rf"|(?<![\w./-])({_ARXIV_NEW})(?:v\d+)?(?![\w]|\.\d)", re.IGNORECASE)


def normalise_doi(value: str) -> str | None:
    """The DOI in normal form, or None when `value` is not a DOI."""
    doi = _DOI_PREFIX.sub("", value.strip()).rstrip(_TRAILING).casefold()
    return doi if _DOI.match(doi) else None


def normalise_arxiv(value: str) -> str | None:
    """The arXiv id in normal form (no prefix, no version), or None when `value` is not one."""
    arxiv = _ARXIV_PREFIX.sub("", value.strip()).casefold()
    arxiv = re.sub(r"(?:\.pdf)?$", "", arxiv)
    arxiv = re.sub(r"v\d+$", "", arxiv)
    return arxiv if _ARXIV.match(arxiv) else None


def dois_in(text: str) -> set[str]:
    """Every DOI written anywhere in `text`, normalised."""
    return {doi for doi in (normalise_doi(m.group(0)) for m in _DOI_IN_TEXT.finditer(text)) if doi}


def arxiv_ids_in(text: str) -> set[str]:
    """Every arXiv id written in `text` (prefixed or URL ids of both styles, bare new-style ids), normalised."""
    return {(m.group(1) or m.group(2)).casefold() for m in _ARXIV_IN_TEXT.finditer(text)}
