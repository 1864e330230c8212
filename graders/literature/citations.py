"""Papers two citation hops from an anchor: what the builder, the validators and the shortcuts of
`find_papers_2hop` all derive from a collection snapshot."""

from __future__ import annotations

from functools import lru_cache

from taskforge.graders.literature.papers import PaperCollection


@lru_cache(maxsize=256)
def co_cited(collection: PaperCollection, anchor_id: str) -> tuple[str, ...]:
    """The papers cited alongside the anchor (sorted ids): in the references of a collection paper citing it, and
    neither the anchor itself nor a paper citing it (those are one hop away)."""
    citing = set(collection.cited_by.get(anchor_id, ()))
    cited = {ref for paper_id in citing for ref in collection.by_id[paper_id].references if ref in collection.by_id}
    return tuple(sorted(cited - citing - {anchor_id}))
