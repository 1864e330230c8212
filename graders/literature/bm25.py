"""A lexical BM25 index: an analyzer (casefolded Unicode words, English stopwords) and postings in numpy arrays.

Scoring is Okapi BM25 with Lucene's idf, `log(1 + (N - df + 0.5) / (df + 0.5))`,
and per-posting weights computed once at build time, so a query only adds up
the postings of its (deduplicated) terms. Ties are broken by document order,
so results are deterministic.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any, Iterable

import numpy as np

_WORD = re.compile(r"[^\W_]+")
STOPWORDS = frozenset("""
a about above after again against all also am an and any are as at be because been before being below between
both but by can could did do does doing down during each few for from further had has have having he her here
hers herself him himself his how i if in into is it its itself just me more most my myself no nor not now of off
on once only or other our ours ourselves out over own same she should so some such than that the their theirs
them themselves then there these they this those through to too under until up very was we were what when where
which while who whom why will with would you your yours yourself yourselves
""".split())


class Analyzer:
    """Turns text into index terms: casefold, split into Unicode words, drop English stopwords."""

    name = "casefold-words-stop-en"

    def terms(self, text: str) -> list[str]:
        return [w for w in _WORD.findall(text.casefold()) if w not in STOPWORDS]

    def spec(self) -> dict[str, Any]:
        """The analyzer's configuration, as recorded in a task's environment."""
        return {"name": self.name, "casefold": True, "token_pattern": _WORD.pattern,
                "stopwords": f"english ({len(STOPWORDS)} words)", "stemmer": None}


class BM25Index:
    """BM25 over a list of documents (by position); `search` returns (position, score) best first."""

    def __init__(self, texts: Iterable[str], k1: float = 1.2, b: float = 0.75, analyzer: Analyzer | None = None):
        self.k1, self.b = k1, b
        self.analyzer = analyzer or Analyzer()
        self.vocabulary: dict[str, int] = {}
        docs: list[int] = []
        terms: list[int] = []
        freqs: list[int] = []
        lengths: list[int] = []
        for position, text in enumerate(texts):
            tokens = self.analyzer.terms(text)
            lengths.append(len(tokens))
            for term, tf in Counter(tokens).items():
                terms.append(self.vocabulary.setdefault(term, len(self.vocabulary)))
                docs.append(position)
                freqs.append(tf)
        self.size = len(lengths)
        term_ids = np.asarray(terms, dtype=np.int64)
        order = np.argsort(term_ids, kind="stable")
        df = np.bincount(term_ids, minlength=len(self.vocabulary))
        self.offsets = np.concatenate(([0], np.cumsum(df)))
        self.docs = np.asarray(docs, dtype=np.int32)[order]
        tf = np.asarray(freqs, dtype=np.float64)[order]
        doc_lengths = np.asarray(lengths, dtype=np.float64)
        average = doc_lengths.mean() if self.size and doc_lengths.mean() > 0 else 1.0
        idf = np.log1p((self.size - df + 0.5) / (df + 0.5))
        norm = k1 * (1 - b + b * doc_lengths[self.docs] / average)
        self.weights = (np.repeat(idf, df) * tf * (k1 + 1) / (tf + norm)).astype(np.float32)

    def search(self, query: str, k: int) -> list[tuple[int, float]]:
        """The `k` best documents for `query` with their scores; documents sharing no term are never returned."""
        term_ids = sorted({self.vocabulary[t] for t in self.analyzer.terms(query) if t in self.vocabulary})
        if not term_ids or k <= 0:
            return []
        scores = np.zeros(self.size, dtype=np.float32)
        for term in term_ids:
            span = slice(self.offsets[term], self.offsets[term + 1])
            scores[self.docs[span]] += self.weights[span]
        matched = np.flatnonzero(scores)
        if len(matched) > k:
            threshold = np.partition(scores[matched], len(matched) - k)[len(matched) - k]
            matched = matched[scores[matched] >= threshold]
        best = matched[np.lexsort((matched, -scores[matched]))][:k]
        return [(int(position), float(scores[position])) for position in best]

    def spec(self) -> dict[str, Any]:
        """The index configuration, as recorded in a task's environment."""
        return {"type": "bm25", "k1": self.k1, "b": self.b, "idf": "log(1 + (N - df + 0.5) / (df + 0.5))",
                "query_terms": "analyzed, deduplicated", "ties": "document order (paper id)",
                "analyzer": self.analyzer.spec()}
