"""Readers of real paper collections, each mapping its format onto the one record the collection loader reads.

JSON and JSON-lines records are recognised one by one by their keys: OpenAlex
works, unarXive full texts, Semantic Scholar (S2ORC, S2AG, Graph API) papers, arXiv snapshot records;
anything else is taken as a native record (`id`, `doi`, `title`, `abstract` …).
XML files are recognised by their root element: JATS/PMC `<article>`, GROBID
`<TEI>`, ACL Anthology `<collection>`, arXiv OAI-PMH. A record that cannot be
mapped is a ValueError for its line; an unreadable file is an InputError.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Iterator

from taskforge.builders.literature.readers import acl, arxiv, jats, openalex, semantic_scholar, tei, unarxive
from taskforge.builders.literature.readers.xmltree import local, parse
from taskforge.schemas import InputError

XML_SUFFIXES = (".xml", ".nxml")
JSON_FORMATS: list[tuple[Callable[[dict[str, Any]], bool], Callable[[dict[str, Any]], dict[str, Any]]]] = [
    (openalex.matches, openalex.to_record),
    (unarxive.matches, unarxive.to_record),
    (arxiv.matches, arxiv.from_json),
    (semantic_scholar.matches, semantic_scholar.to_record),
]


def json_record(record: Any) -> Any:
    """A JSON record in the native shape (records of a known foreign format are mapped; others pass through)."""
    if not isinstance(record, dict):
        return record
    for matches, convert in JSON_FORMATS:
        if matches(record):
            return convert(record)
    return record


def json_records(document: Any, name: str) -> list[Any]:
    """The records of a whole JSON file: a list, an API page `{"results": [...]}`, or one record."""
    if isinstance(document, list):
        return document
    if isinstance(document, dict):
        results = document.get("results")
        return results if isinstance(results, list) else [document]
    raise InputError(name, "a JSON collection must be a list of records, a page with results, or one record")


def xml_records(path: Path, name: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line, native record) for each paper of an XML file, by its root element; InputError for an unknown root."""
    tree = parse(path, name)
    root = local(tree.root.tag)
    if root in jats.ROOTS:
        yield from jats.records(tree, name)
    elif root in tei.ROOTS:
        yield from tei.records(tree, name)
    elif root in acl.ROOTS:
        yield from acl.records(tree)
    elif root in arxiv.ROOTS:
        yield from arxiv.records(tree)
    else:
        known = ", ".join(f"<{r}>" for r in (*jats.ROOTS, *tei.ROOTS, *acl.ROOTS, *arxiv.ROOTS))
        raise InputError(name, f"unknown XML paper format <{root}> (known: {known})")
