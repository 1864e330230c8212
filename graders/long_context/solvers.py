"""Shallow deterministic solvers that expose shortcuts, and the success estimate built from them.

Each solver reads only what the solver model would see — the documents and
the question (and the question's probe phrases, the parts a reader looks up)
— and answers in the category's format by one cheap strategy:

- keyword lookup: the sentence sharing most words with the probe;
- nearest mention: the sentence closest to the first mention of the probe's names;
- last mention: the last sentence mentioning the probe's names;
- most frequent answer: the value of the answer's type that occurs most often
  in the documents (number, name, class, document), whatever the question asks.

A task that one of them solves has a shortcut. `estimate_success` scores each
solver with the task's scorer and takes the best score. Any object with a
`name` and `solve(task) -> str | None` is a `Solver`: the long-context
builder adds the judge model this way (`taskforge.builders.long_context.judging`).
"""

from __future__ import annotations

import datetime as dt
import re
from collections import Counter
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import Callable, Protocol

from taskforge.graders import scorer_for
from taskforge.graders.long_context.values import date_mentions, number_mentions
from taskforge.schemas import Task
from taskforge.schemas.long_context import LongContextGrader, LongContextPayload

_WORD = re.compile(r"[a-z0-9][a-z0-9\-]+")
_STOPWORDS = frozenset(
    "the and for with that this from was were are has have had its their his her which who whom what when where "
    "into onto over under about after before then than but not all any each every other same such only also "
    "been being these those there here they them she him our your you one two both more most many much some "
    "name names document documents following below above answer reply line form final order".split())
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(])|\n\s*\n")
_ANCHOR = re.compile(r"\b[A-Z][\w-]*(?:\s+[A-Z][\w-]*)+|\b[A-Z]+-\d+\b|\blib[a-z]+\b|\b(?:19|20)\d{2}\b")
_SERVICE = re.compile(r"\b([A-Z][a-z]+) service\b")
_LEADING = frozenset("The A An In On At By Under During Since From After Before Of For And".split())


def content_words(text: str) -> frozenset[str]:
    """The lower-cased words of `text` that carry content (three letters or more, no stop words)."""
    return frozenset(w for w in _WORD.findall(text.lower()) if len(w) > 2 and w not in _STOPWORDS)


def names_in(text: str) -> list[str]:
    """Capitalised multi-word names ('Kavel Institute', 'Project Tordre'), without a leading article."""
    names = []
    for match in re.finditer(r"\b[A-Z][\w-]*(?:\s+[A-Z][\w-]*)+", text):
        words = match[0].split()
        while words and words[0] in _LEADING:
            words = words[1:]
        if len(words) >= 2:
            names.append(" ".join(words))
    return names


def anchors(probe: str) -> list[str]:
    """What a reader would search the documents for: names, codes, library names and years of a probe."""
    found = [" ".join(w for w in m.split() if w not in _LEADING) or m for m in _ANCHOR.findall(probe)]
    found = [a for a in found if a]
    if not found:
        words = sorted(content_words(probe), key=len, reverse=True)
        found = words[:1]
    return found


@dataclass
class Sentence:
    """A sentence of the documents with where it is and the dates and quantities it states (its content
    words are worked out only when a strategy compares them)."""

    doc_id: str
    position: int
    text: str
    dates: tuple[dt.date, ...]
    quantities: tuple[float, ...]

    @cached_property
    def words(self) -> frozenset[str]:
        return content_words(self.text)


def _quantities(text: str) -> list[float]:
    """Numbers that are not years."""
    return [v for start, end, v in number_mentions(text) if not (1900 <= v <= 2100 and "," not in text[start:end])]


def sentences_of(documents: list[dict]) -> list[Sentence]:
    """Every sentence of the documents in reading order."""
    found, offset = [], 0
    for doc in documents:
        start = 0
        for piece in _SENTENCE_END.split(doc["text"]):
            start = doc["text"].find(piece, start)
            if piece.strip():
                found.append(Sentence(doc["doc_id"], offset + start, piece,
                                      tuple(d for _, _, d in date_mentions(piece)), tuple(_quantities(piece))))
            start += len(piece)
        offset += len(doc["text"]) + 2
    return found


@lru_cache(maxsize=4)
def _indexed(documents: tuple[tuple[str, str], ...]) -> list[Sentence]:
    """The sentence index of a document set, shared by the solvers that look at the same task."""
    return sentences_of([{"doc_id": doc_id, "text": text} for doc_id, text in documents])


Want = Callable[[Sentence], bool]


def _mentions(sentence: Sentence, names: list[str]) -> bool:
    """Whether a sentence names every one of the names."""
    return all(name in sentence.text for name in names)


class Strategy(Protocol):
    """How a shallow solver finds the sentence (or sentences) that answer one probe."""

    name: str

    """The sentence this strategy picks for a probe."""
    def locate(self, probe: str, sentences: list[Sentence], want: Want) -> Sentence | None: ...

    """The sentences this strategy picks for a probe that asks for several."""
    def gather(self, probe: str, sentences: list[Sentence], want: Want) -> list[Sentence]: ...


class KeywordLookup:
    """The sentence sharing most content words with the probe; all sentences naming every anchor."""

    name = "keyword_lookup"

    def locate(self, probe: str, sentences: list[Sentence], want: Want) -> Sentence | None:
        """The sentence this strategy picks for a probe."""
        words = content_words(probe)
        best = max((s for s in sentences if want(s)), key=lambda s: len(words & s.words), default=None)
        return best

    def gather(self, probe: str, sentences: list[Sentence], want: Want) -> list[Sentence]:
        """The sentences this strategy picks for a probe that asks for several."""
        names = anchors(probe)
        return [s for s in sentences if want(s) and _mentions(s, names)]


class NearestMention:
    """The wanted sentence closest to the first mention of the probe's anchors."""

    name = "nearest_mention"

    def locate(self, probe: str, sentences: list[Sentence], want: Want) -> Sentence | None:
        """The sentence this strategy picks for a probe."""
        names = anchors(probe)
        first = next((s for s in sentences if _mentions(s, names)), None) or next(
            (s for s in sentences if any(n in s.text for n in names)), None)
        if first is None:
            return None
        return min((s for s in sentences if want(s)), key=lambda s: abs(s.position - first.position), default=None)

    def gather(self, probe: str, sentences: list[Sentence], want: Want) -> list[Sentence]:
        """The sentences this strategy picks for a probe that asks for several."""
        found = self.locate(probe, sentences, want)
        return [found] if found else []


class LastMention:
    """The last wanted sentence naming all of the probe's anchors (or, failing that, any of them)."""

    name = "last_mention"

    def locate(self, probe: str, sentences: list[Sentence], want: Want) -> Sentence | None:
        """The sentence this strategy picks for a probe."""
        names = anchors(probe)
        wanted = [s for s in sentences if want(s)]
        found = [s for s in wanted if _mentions(s, names)] or [s for s in wanted if any(n in s.text for n in names)]
        return found[-1] if found else None

    def gather(self, probe: str, sentences: list[Sentence], want: Want) -> list[Sentence]:
        """The sentences this strategy picks for a probe that asks for several."""
        found = self.locate(probe, sentences, want)
        return [found] if found else []


def _has_date(s: Sentence) -> bool:
    """Wants a sentence that states a date."""
    return bool(s.dates)


def _has_quantity(s: Sentence) -> bool:
    """Wants a sentence that states a quantity."""
    return bool(s.quantities)


def _any(_: Sentence) -> bool:
    """Wants any sentence."""
    return True


def _first_date(found: Sentence | None) -> dt.date:
    """The first date of a located sentence (the latest possible date when none was found)."""
    return found.dates[0] if found else dt.date.max


def _timeline(payload: LongContextPayload, grader: LongContextGrader, how: Strategy,
              sentences: list[Sentence]) -> str:
    """Date each item by its located sentence and order by those dates."""
    labels, probes = grader.labels, payload.probes
    dates = {label: _first_date(how.locate(probe, sentences, _has_date)) for label, probe in zip(labels, probes)}
    return "Answer: " + ", ".join(sorted(labels, key=lambda label: dates[label]))


def _integration(payload: LongContextPayload, grader: LongContextGrader, how: Strategy,
                 sentences: list[Sentence]) -> str:
    """Read a new name off the sentence located for the question (or compute days between two located dates)."""
    probes = payload.probes
    if payload.answer_type == "days":
        first, second = (_first_date(how.locate(p, sentences, _has_date)) for p in probes[:2])
        return f"Answer: {abs((second - first).days) if dt.date.max not in (first, second) else 0}"
    asked = set(names_in(payload.question))
    fresh = lambda s: any(n not in asked for n in names_in(s.text))  # noqa: E731
    found = how.locate(probes[0], sentences, fresh)
    names = [n for n in names_in(found.text) if n not in asked] if found else []
    return f"Answer: {names[0] if names else 'unknown'}"


def _attribution(payload: LongContextPayload, grader: LongContextGrader, how: Strategy,
                 sentences: list[Sentence]) -> str:
    """The documents of the sentences located for the claim's parts."""
    docs = {found.doc_id for probe in payload.probes if (found := how.locate(probe, sentences, _any))}
    return "Answer: " + ", ".join(sorted(docs))


def _consistency(payload: LongContextPayload, grader: LongContextGrader, how: Strategy,
                 sentences: list[Sentence]) -> str:
    """Per item, the odd one out among the figures gathered for it, if any."""
    verdicts = []
    for label, probe in zip(grader.labels, payload.probes):
        reports = [(s.doc_id, s.quantities[0]) for s in how.gather(probe, sentences, _has_quantity)]
        values = [v for _, v in reports]
        odd = [doc for doc, v in reports if values.count(v) == 1]
        verdicts.append(f"{label}: {odd[0] if len(reports) >= 3 and len(odd) == 1 else 'none'}")
    return "Answer: " + "; ".join(verdicts)


def _rules(payload: LongContextPayload, grader: LongContextGrader, how: Strategy,
           sentences: list[Sentence]) -> str:
    """Per new record, the decision in the located (most similar) example."""
    classes = grader.values
    has_class = lambda s: any(c in s.text for c in classes)  # noqa: E731
    verdicts = []
    for label, probe in zip(grader.labels, payload.probes):
        found = how.locate(probe, sentences, has_class)
        present = [c for c in classes if found and c in found.text]
        chosen = min(present, key=found.text.index) if present else classes[-1]
        verdicts.append(f"{label}: {chosen}")
    return "Answer: " + "; ".join(verdicts)


def _state(payload: LongContextPayload, grader: LongContextGrader, how: Strategy,
           sentences: list[Sentence]) -> str:
    """The quantity in the located sentence."""
    found = how.locate(payload.probes[0], sentences, _has_quantity)
    return f"Answer: {int(found.quantities[0]) if found else 0}"


def _versions(payload: LongContextPayload, grader: LongContextGrader, how: Strategy,
              sentences: list[Sentence]) -> str:
    """Services whose located sentence names the defective library."""
    library = payload.probes[0]
    services = sorted({m for s in sentences for m in _SERVICE.findall(s.text)})
    affected = []
    for service in services:
        found = how.locate(f"{service} {library}", sentences, lambda s, name=service: name in s.text)
        if found and library in found.text:
            affected.append(service)
    return "Answer: " + (", ".join(affected) or "none")


def _aggregation(payload: LongContextPayload, grader: LongContextGrader, how: Strategy,
                 sentences: list[Sentence]) -> str:
    """Count or add up the amounts of the sentences gathered for each condition."""
    question = payload.question
    counting = question.startswith("How many")
    totals = []
    for probe in payload.probes:
        found = how.gather(probe, sentences, _has_quantity)
        totals.append(len(found) if counting else sum(s.quantities[0] for s in found))
    value = totals[0] - totals[1] if len(totals) > 1 else totals[0]
    return f"Answer: {int(value)}"


COMPOSERS: dict[str, Callable[[LongContextPayload, LongContextGrader, Strategy, list[Sentence]], str]] = {
    "timeline": _timeline, "cross_doc_integration": _integration, "evidence_attribution": _attribution,
    "consistency": _consistency, "rule_induction": _rules, "state_tracking": _state,
    "version_impact": _versions, "set_aggregation": _aggregation,
}
"""How a shallow solver turns located sentences into an answer, per category."""


class Solver(Protocol):
    """Anything that answers a task from what the solver model sees; `solve` returns None when the solver
    cannot answer at all (a judge model without an endpoint, or whose call failed), and is then left out."""

    name: str

    """The solver's submission for a task, or None when it cannot answer."""
    def solve(self, task: Task) -> str | None: ...


class ShallowSolver:
    """A solver that applies one shortcut strategy to every probe of a task."""

    def __init__(self, strategy: Strategy):
        self.strategy = strategy
        self.name = strategy.name

    def solve(self, task: Task) -> str:
        """The solver's submission for a task."""
        payload = LongContextPayload.of(task)
        sentences = _indexed(tuple((d.doc_id, d.text) for d in payload.documents))
        return COMPOSERS[payload.category](payload, LongContextGrader.of(task), self.strategy, sentences)


def _most_common(values: list, fallback):
    """The value occurring most often (the first seen among equals), or the fallback when there is none."""
    counts = Counter(values)
    return max(counts, key=lambda v: (counts[v], -values.index(v))) if counts else fallback


class MostFrequentAnswer:
    """Answers with the value of the answer's type that occurs most often in the documents: the most frequent
    quantity, name or service, the class (or document) named most often for every item, the document naming
    the probes most often, items ordered by how often their probe's anchors occur."""

    name = "most_frequent_answer"

    def solve(self, task: Task) -> str:
        """The solver's submission for a task."""
        payload, grader = LongContextPayload.of(task), LongContextGrader.of(task)
        text = "\n\n".join(d.text for d in payload.documents)
        sentences = _indexed(tuple((d.doc_id, d.text) for d in payload.documents))
        kind, labels = payload.answer_type, grader.labels
        if kind in ("quantity", "days"):
            return f"Answer: {int(_most_common([q for s in sentences for q in s.quantities], 0))}"
        if kind == "entity":
            asked = set(names_in(payload.question))
            return f"Answer: {_most_common([n for n in names_in(text) if n not in asked], 'unknown')}"
        if kind == "name_set":
            return f"Answer: {_most_common(_SERVICE.findall(text), 'none')}"
        if kind in ("class_per_item", "document_per_item"):
            value = max(grader.values, key=lambda v: (text.count(v), -grader.values.index(v)), default="none")
            return "Answer: " + "; ".join(f"{label}: {value}" for label in labels)
        anchors_of = [anchors(probe) for probe in payload.probes]
        if kind == "ordered_labels":
            counts = {label: sum(text.count(a) for a in names) for label, names in zip(labels, anchors_of)}
            return "Answer: " + ", ".join(sorted(labels, key=lambda label: -counts[label]))
        by_doc = Counter(s.doc_id for s in sentences for names in anchors_of if any(a in s.text for a in names))
        return f"Answer: {by_doc.most_common(1)[0][0] if by_doc else payload.documents[0].doc_id}"


HARD_POOL_THRESHOLD = 0.5
"""A task enters the hard pool when its estimated success rate is at most this; the `shortcut` check rejects a
long-context task any shortcut solver scores above it (validators/README.md says why it is where it is)."""

SHALLOW_SOLVERS: tuple[Solver, ...] = (ShallowSolver(KeywordLookup()), ShallowSolver(NearestMention()),
                                       ShallowSolver(LastMention()), MostFrequentAnswer())


def estimate_success(task: Task, solvers: tuple[Solver, ...] = SHALLOW_SOLVERS) -> dict:
    """Each answering solver's score on the task (with the task's scorer) and the estimate: the best of them.
    Solvers that cannot answer are left out (the shallow ones always answer)."""
    scorer = scorer_for(task.grader)
    submissions = {solver.name: solver.solve(task) for solver in solvers}
    scores = {name: scorer.score(submission, task.reference, task.grader)
              for name, submission in submissions.items() if submission is not None}
    return {"estimate": max(scores.values()), "solver_scores": scores}
