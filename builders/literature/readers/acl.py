"""ACL Anthology XML (`data/xml/<collection>.xml`): every `<paper>` of every volume, with the volume's venue and year.

A paper is named by its Anthology id (`2020.sdp-1.3`, or `P18-1001` for old
collections); the anthology records no references or full text.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Any, Iterator

from taskforge.builders.literature.readers.xmltree import LinedTree, child, children, text

ROOTS = ("collection",)


def _anthology_id(collection: str, volume: str, paper: ET.Element) -> str:
    url = text(child(paper, "url"))
    return url if url and "://" not in url else f"{collection}-{volume}.{paper.get('id')}"


def to_record(collection: str, volume: ET.Element, paper: ET.Element) -> dict[str, Any]:
    """One `<paper>` of a volume as a collection record."""
    meta = child(volume, "meta")
    authors = [" ".join(p for p in (text(child(a, "first")), text(child(a, "last"))) if p)
               for a in children(paper, "author")]
    return {
        "id": _anthology_id(collection, volume.get("id", ""), paper), "doi": text(child(paper, "doi")) or None,
        "title": text(child(paper, "title")), "abstract": text(child(paper, "abstract")),
        "authors": [a for a in authors if a], "year": text(child(paper, "year")) or text(child(meta, "year")) or None,
        "venue": text(child(meta, "booktitle")) or None, "references": [],
    }


def records(tree: LinedTree) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line, record) for each paper of the collection."""
    collection = tree.root.get("id", "")
    for volume in children(tree.root, "volume"):
        for paper in children(volume, "paper"):
            yield tree.line(paper), to_record(collection, volume, paper)
