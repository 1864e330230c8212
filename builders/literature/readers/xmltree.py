"""XML parsed with the line of every element, so a bad record is named by its file and line.

The standard library's parser (expat) resolves no external entities and refuses
entity expansion bombs; an unreadable file raises InputError naming the line.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path
from xml.parsers import expat

from taskforge.schemas import InputError

_SPACE = re.compile(r"\s+")


class LinedTree:
    """A parsed XML document and the line where each element starts."""

    def __init__(self, root: ET.Element, lines: dict[int, int]):
        self.root = root
        self._lines = lines

    def line(self, element: ET.Element) -> int:
        """The line where `element` starts (1-based)."""
        return self._lines.get(id(element), 0)


def parse(path: Path, name: str) -> LinedTree:
    """Parse an XML file; InputError names the file and the line of a syntax error."""
    builder = ET.TreeBuilder()
    parser = expat.ParserCreate(namespace_separator="}")
    lines: dict[int, int] = {}

    def start(tag: str, attrs: dict[str, str]) -> None:
        element = builder.start(_clark(tag), {_clark(k): v for k, v in attrs.items()})
        lines[id(element)] = parser.CurrentLineNumber

    parser.StartElementHandler = start
    parser.EndElementHandler = lambda tag: builder.end(_clark(tag))
    parser.CharacterDataHandler = builder.data
    try:
        with open(path, "rb") as handle:
            parser.ParseFile(handle)
    except expat.ExpatError as exc:
        raise InputError(f"{name}:{exc.lineno}", f"not well-formed XML ({expat.ErrorString(exc.code)})") from None
    return LinedTree(builder.close(), lines)


def _clark(name: str) -> str:
    """expat's `uri}local` as ElementTree's `{uri}local`."""
    return "{" + name if "}" in name else name


def local(tag: str) -> str:
    """A tag without its namespace."""
    return tag.rsplit("}", 1)[-1]


def children(element: ET.Element | None, name: str) -> list[ET.Element]:
    """Direct children with this local name."""
    return [] if element is None else [c for c in element if local(c.tag) == name]


def child(element: ET.Element | None, *path: str) -> ET.Element | None:
    """The first element down a path of local names, or None."""
    for name in path:
        if element is None:
            return None
        element = next((c for c in element if local(c.tag) == name), None)
    return element


def descendants(element: ET.Element | None, name: str) -> list[ET.Element]:
    """Every descendant with this local name, in document order."""
    return [] if element is None else [e for e in element.iter() if local(e.tag) == name and e is not element]


def text(element: ET.Element | None, skip: tuple[str, ...] = ()) -> str:
    """The element's text with inner markup flattened and white space collapsed; children named in `skip`
    (figures, formulas, footnote labels …) are left out."""
    if element is None:
        return ""
    parts: list[str] = []

    def walk(node: ET.Element) -> None:
        if node.text:
            parts.append(node.text)
        for sub in node:
            if local(sub.tag) not in skip:
                walk(sub)
            if sub.tail:
                parts.append(sub.tail)

    walk(element)
    return _SPACE.sub(" ", "".join(parts)).strip()
