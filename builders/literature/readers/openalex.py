"""OpenAlex works (snapshot JSON lines, or API pages `{"results": [...]}`): the abstract is rebuilt from its
inverted index; `referenced_works` become references to `openalex:W…` ids.
"""

from __future__ import annotations

from typing import Any

PREFIX = "https://openalex.org/"


def matches(record: dict[str, Any]) -> bool:
    """Whether a JSON record is an OpenAlex work."""
    return str(record.get("id", "")).startswith(f"{PREFIX}W") or "abstract_inverted_index" in record


def openalex_id(url: str) -> str:
    """`https://openalex.org/W123` → `openalex:W123`."""
    return f"openalex:{url.removeprefix(PREFIX)}"


def abstract_from_index(index: Any) -> str:
    """The abstract an inverted index (`{word: [positions]}`) encodes; ValueError when it is not one."""
    if not index:
        return ""
    if not isinstance(index, dict):
        raise ValueError("abstract_inverted_index must be an object of word → positions")
    placed: dict[int, str] = {}
    for word, positions in index.items():
        if not isinstance(positions, list) or not all(isinstance(p, int) and p >= 0 for p in positions):
            raise ValueError(f"abstract_inverted_index: positions of {word!r} are not a list of positions")
        placed.update((p, word) for p in positions)
    return " ".join(placed[p] for p in sorted(placed))


def _venue(work: dict[str, Any]) -> str | None:
    location = work.get("primary_location") or {}
    source = location.get("source") if isinstance(location, dict) else None
    venue = (source or {}).get("display_name") or (work.get("host_venue") or {}).get("display_name")
    return venue or None


def to_record(work: dict[str, Any]) -> dict[str, Any]:
    """An OpenAlex work as a collection record."""
    ids = work.get("ids") or {}
    arxiv = next((u.rsplit("/", 1)[-1] for u in (ids.values() if isinstance(ids, dict) else [])
                  if isinstance(u, str) and "arxiv.org/abs/" in u), None)
    return {
        "id": openalex_id(work["id"]), "doi": work.get("doi"), "arxiv_id": arxiv,
        "title": work.get("title") or work.get("display_name"),
        "abstract": abstract_from_index(work.get("abstract_inverted_index")),
        "authors": [((a.get("author") or {}).get("display_name") or "") for a in work.get("authorships") or []],
        "year": work.get("publication_year"), "venue": _venue(work),
        "references": [openalex_id(r) for r in work.get("referenced_works") or [] if isinstance(r, str)],
    }
