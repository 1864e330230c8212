"""Shortcut solvers of literature tasks: cheap answers written in the kind's answer format, for the `shortcut` check
to score with the task's own scorer. None reads a passage the way the task asks.

- `cite_all` (cite everything): find_papers lists every paper citing the anchor
  (find_papers_2hop: every paper cited alongside it);
  select_evidence picks every candidate; table_synthesis answers "yes" to every
  yes/no column;
- `bm25_top_k`: the top `DEFAULT_K` search hits of the question (find_papers; the
  candidates among them for select_evidence; "yes" for rows among the hits of the
  term for table_synthesis); for fulltext_qa the one option the top hit's text
  mentions, if only one;
- `title_match`: the papers whose title names a keyword of the question (a word
  with a capital or a digit after its first letter, outside quoted titles); for
  table_synthesis "yes" where the title names the term; for fulltext_qa the one
  option the quoted paper's title or abstract mentions, if only one.
A fulltext_qa shortcut that finds no single option answers the refusal option; described_finding is answered as
fulltext_qa (its quoted titles are the papers the description names).
"""

from __future__ import annotations

import json
import re
from typing import Any, Callable

from taskforge.graders.literature.citations import co_cited
from taskforge.graders.literature.environment import DEFAULT_K, SearchEnvironment
from taskforge.graders.literature.papers import Paper, full_text, mentions

SHORTCUT_THRESHOLD = 0.4
"""The most a shortcut answer may score on a literature task (the `shortcut` check's threshold for the family)."""
_QUOTED = re.compile(r"“[^”]*”")
_WORD = re.compile(r"(?<![\w-])[A-Za-z][\w-]*(?![\w-])")
_TERM_COLUMN = re.compile(r"\bmention (.+?)(?: \(written as [^)]*\))? in its\b")


def column_term(description: str) -> str | None:
    """The term a table's mentions_term column asks about ("does it mention X in its title …"), if it names one."""
    found = _TERM_COLUMN.search(description)
    return found[1] if found else None


def keywords(question: str) -> list[str]:
    """Named words of a question outside its quoted titles: a capital or a digit after the first letter."""
    outside = _QUOTED.sub(" ", question)
    return list(dict.fromkeys(w for w in _WORD.findall(outside) if any(c.isupper() or c.isdigit() for c in w[1:])))


def titled(env: SearchEnvironment, words: list[str]) -> list[Paper]:
    """Papers whose title names any of the words."""
    return [p for p in env.collection.papers if any(mentions(p.title, w) for w in words)]


def top_hits(env: SearchEnvironment, query: str, k: int = DEFAULT_K) -> list[str]:
    """The ids of the top `k` search hits of a query."""
    return [hit["paper_id"] for hit in env.search(query, k)["results"]]


def _ids(ids: list[str]) -> str:
    return "Answer: " + ", ".join(ids)


def _find_papers(payload: dict[str, Any], env: SearchEnvironment) -> dict[str, str]:
    question = payload["question"]
    found = {"bm25_top_k": _ids(top_hits(env, question)),
             "title_match": _ids([p.paper_id for p in titled(env, keywords(question))])}
    for constraint in payload["constraints"]:
        if constraint.get("type") == "cites":
            found["cite_all"] = _ids(env.collection.cited_by.get(constraint["paper_id"], []))
        elif constraint.get("type") == "co_cited_with":
            found["cite_all"] = _ids(list(co_cited(env.collection, constraint["paper_id"])))
    return found


def _select_evidence(payload: dict[str, Any], env: SearchEnvironment) -> dict[str, str]:
    candidates = [c["paper_id"] for c in payload["candidates"]]
    claim = payload["claim"]
    named = {p.paper_id for p in titled(env, keywords(claim))}
    picks = {"cite_all": candidates, "bm25_top_k": [c for c in top_hits(env, claim) if c in candidates],
             "title_match": [c for c in candidates if c in named]}
    return {name: json.dumps({"papers": papers, "passages": []}) for name, papers in picks.items()}


def _single_option(text: str, options: dict[str, str], refusal: str) -> str:
    """The one option a text mentions, else the refusal option."""
    named = [letter for letter, value in options.items() if letter != refusal and mentions(text, value)]
    return f"Answer: {named[0] if len(named) == 1 else refusal}"


def _fulltext_qa(payload: dict[str, Any], env: SearchEnvironment) -> dict[str, str]:
    options, refusal, question = payload["options"], payload["insufficient_option"], payload["question"]
    hits = top_hits(env, question, 1)
    top = env.collection.by_id[hits[0]] if hits else None
    quoted = [p for p in env.collection.papers if p.title and p.title in question]
    front = "\n".join(f"{p.title}\n{p.abstract}" for p in quoted)
    return {"bm25_top_k": _single_option(full_text(top) if top else "", options, refusal),
            "title_match": _single_option(front, options, refusal)}


def _table_synthesis(payload: dict[str, Any], env: SearchEnvironment) -> dict[str, str]:
    rows, columns = payload["rows"], payload["columns"]
    term = column_term(columns.get("mentions_term", ""))
    hits = set(top_hits(env, term)) if term else set()
    yes_no = [c for c in ("cites_work", "mentions_term") if c in columns]

    def table(answer: Callable[[Paper, str], str]) -> str:
        return json.dumps({row: {c: answer(env.collection.by_id[row], c) for c in yes_no}
                           for row in rows if row in env.collection.by_id})

    return {"cite_all": table(lambda paper, column: "yes"),
            "bm25_top_k": table(lambda paper, column: "yes" if column == "mentions_term" and paper.paper_id in hits
                                else "no"),
            "title_match": table(lambda paper, column: "yes" if column == "mentions_term" and term
                                 and mentions(paper.title, term) else "no")}


SOLVERS: dict[str, Callable[[dict[str, Any], SearchEnvironment], dict[str, str]]] = {
    "find_papers": _find_papers, "select_evidence": _select_evidence, "fulltext_qa": _fulltext_qa,
    "table_synthesis": _table_synthesis, "described_finding": _fulltext_qa,
    "find_papers_2hop": _find_papers}


def shortcut_answers(kind: str, payload: dict[str, Any], env: SearchEnvironment) -> dict[str, str]:
    """Each shortcut's answer to a task of this kind (none for a kind without solvers)."""
    solver = SOLVERS.get(kind)
    return solver(payload, env) if solver else {}
