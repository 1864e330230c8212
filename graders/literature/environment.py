"""The search environment shipped with every literature task: a BM25 index over a paper collection and
two tools, `search` and `read`, whose results are the intermediate steps a solver revises.

Builders make it from a loaded collection; validators and the trainer rebuild
it from the task's `environment` (collection snapshot + index parameters), so
all of them see the same tools returning the same results. It lives in
`graders/` because both builders and validators use it and must not import
each other.
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

from taskforge.graders.literature.bm25 import Analyzer, BM25Index
from taskforge.graders.literature.papers import ABSTRACT, Paper, PaperCollection, load_snapshot, paragraphs, section_texts
from taskforge.schemas import TaskforgeError
from taskforge.schemas.locations import Location, normalize

ENVIRONMENT_KIND = "literature_search"
MAX_K = 50
DEFAULT_K = 10
TITLE_WEIGHT = 2
METADATA, REFERENCES, CITED_BY = "metadata", "references", "cited_by"

SEARCH_TOOL = {
    "type": "function",
    "function": {
        "name": "search",
        "description": ("Keyword (BM25) search over the paper collection. Returns the k best papers with "
                        "paper_id, title, year, venue and score. Revise the query and search again as needed."),
        "parameters": {
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "keywords to search titles, abstracts and full texts"},
                "k": {"type": "integer", "minimum": 1, "maximum": MAX_K, "default": DEFAULT_K,
                      "description": "how many results to return"},
            },
            "required": ["query"],
            "additionalProperties": False,
        },
    },
}
READ_TOOL = {
    "type": "function",
    "function": {
        "name": "read",
        "description": ("Read part of one paper. Sections: 'metadata' (title, authors, year, venue, ids, the "
                        "list of readable sections), 'abstract', 'references' (papers it cites), 'cited_by' "
                        "(collection papers citing it), or a full-text section named in the metadata. Text comes "
                        "as numbered passages with ids like 'results:2'."),
        "parameters": {
            "type": "object",
            "properties": {
                "paper_id": {"type": "string", "description": "a paper id as returned by search"},
                "section": {"type": "string", "description": "metadata, abstract, references, cited_by or a "
                                                             "full-text section name"},
            },
            "required": ["paper_id", "section"],
            "additionalProperties": False,
        },
    },
}
TOOLS = [SEARCH_TOOL, READ_TOOL]


def indexed_text(paper: Paper) -> str:
    """What the index sees of a paper: the title (weighted by repetition), the abstract and the full text."""
    return "\n".join([paper.title] * TITLE_WEIGHT + list(section_texts(paper).values()))


class SearchEnvironment:
    """The tools of a literature task over one collection."""

    def __init__(self, collection: PaperCollection, k1: float = 1.2, b: float = 0.75):
        self.collection = collection
        self.index = BM25Index((indexed_text(p) for p in collection.papers), k1=k1, b=b)

    def _brief(self, paper: Paper) -> dict[str, Any]:
        return {"paper_id": paper.paper_id, "title": paper.title, "year": paper.year, "venue": paper.venue}

    def search(self, query: str, k: int = DEFAULT_K) -> dict[str, Any]:
        """The `k` (at most MAX_K) best papers for a keyword query."""
        k = max(1, min(int(k), MAX_K))
        hits = self.index.search(query, k)
        return {"query": query, "k": k, "results": [
            {"rank": rank, **self._brief(self.collection.papers[position]), "score": round(score, 4)}
            for rank, (position, score) in enumerate(hits, start=1)]}

    def read(self, paper_id: str, section: str) -> dict[str, Any]:
        """One section of a paper: metadata, references, citing papers, or numbered text passages."""
        paper = self.collection.by_id.get(paper_id.strip().casefold())
        if paper is None:
            return {"error": f"no paper {paper_id!r} in the collection"}
        texts = section_texts(paper)
        name = section.strip().casefold()
        sections = [METADATA, *texts, REFERENCES, CITED_BY]
        out: dict[str, Any] = {"paper_id": paper.paper_id, "section": name}
        if name == METADATA:
            return {**out, "title": paper.title, "authors": paper.authors, "year": paper.year, "venue": paper.venue,
                    "doi": paper.doi, "arxiv_id": paper.arxiv_id, "sections": sections}
        if name == REFERENCES:
            return {**out, "references": [self._reference(ref) for ref in paper.references]}
        if name == CITED_BY:
            return {**out, "cited_by": [self._brief(self.collection.by_id[c])
                                        for c in self.collection.cited_by.get(paper.paper_id, [])]}
        if name not in texts:
            return {**out, "error": f"no section {section!r}; sections: {', '.join(sections)}"}
        return {**out, "passages": [{"passage": f"{name}:{n}", "text": text}
                                    for n, text in enumerate(paragraphs(texts[name]), start=1)]}

    def _reference(self, ref: str) -> dict[str, Any]:
        cited = self.collection.by_id.get(ref)
        return self._brief(cited) if cited else {"external": ref}

    def call(self, name: str, arguments: dict[str, Any] | str) -> str:
        """Run a tool call as an agent loop would (arguments as a dict or a JSON string); the result as JSON."""
        args = json.loads(arguments) if isinstance(arguments, str) else dict(arguments)
        if name == "search":
            result = self.search(str(args.get("query", "")), int(args.get("k", DEFAULT_K)))
        elif name == "read":
            result = self.read(str(args.get("paper_id", "")), str(args.get("section", ABSTRACT)))
        else:
            result = {"error": f"unknown tool {name!r}; tools: search, read"}
        return json.dumps(result, ensure_ascii=False)

    def spec(self, snapshot: str, time_budget_s: int = 900) -> dict[str, Any]:
        """The task `environment`: collection and content version, index parameters, tool schemas, limits."""
        return {
            "kind": ENVIRONMENT_KIND,
            "collection": {"collection_id": self.collection.collection_id, "version": self.collection.version,
                           "papers": len(self.collection), "snapshot": snapshot},
            "index": {**self.index.spec(), "document": f"title x{TITLE_WEIGHT} + abstract + full-text sections"},
            "tools": TOOLS,
            "limits": {"max_k": MAX_K},
            "time_budget_s": time_budget_s,
        }


def environment_files(spec: dict[str, Any]) -> list[str]:
    """The data-dir files a task's environment is rebuilt from (its collection snapshot), relative to the data
    dir: a release ships them so a trainer can rebuild the tools with the release folder as data dir."""
    return [spec["collection"]["snapshot"]]


@lru_cache(maxsize=4)
def open_environment(data_dir: str, collection_id: str, version: str, k1: float = 1.2,
                     b: float = 0.75) -> SearchEnvironment:
    """The environment over a saved collection snapshot; kept per process, since building an index costs."""
    return SearchEnvironment(load_snapshot(data_dir, collection_id, version), k1=k1, b=b)


def environment_for(spec: dict[str, Any], data_dir: Location | None) -> SearchEnvironment:
    """The environment a task's `environment` spec describes, rebuilt from its snapshot under `data_dir`."""
    if spec.get("kind") != ENVIRONMENT_KIND:
        raise TaskforgeError(f"not a literature search environment: kind {spec.get('kind')!r}")
    if data_dir is None:
        raise TaskforgeError("no data dir given: the collection snapshot of a literature task cannot be opened")
    index = spec["index"]
    if index["analyzer"]["name"] != Analyzer.name:
        raise TaskforgeError(f"the task's analyzer {index['analyzer']['name']!r} is not {Analyzer.name!r}")
    collection = spec["collection"]
    return open_environment(str(normalize(data_dir)), collection["collection_id"], collection["version"],
                               float(index["k1"]), float(index["b"]))
