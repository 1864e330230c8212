"""Shallow deterministic solvers that expose shortcuts, and the success estimate built from them.

Each solver reads only what the solver model would see — the documents and
the question (and the question's probe phrases, the parts a reader looks up)
— and answers in the category's format by one cheap strategy:

- keyword lookup: the sentence sharing most words with the probe;
- nearest mention: the sentence closest to the first mention of the probe's names;
- first mention: the first sentence mentioning the probe's names (the first hit of a text search);
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
from bisect import bisect_right
from collections import Counter
from functools import lru_cache
from typing import Callable, Protocol

from taskforge.graders import scorer_for
from taskforge.graders.long_context.pieces import quantities_of
from taskforge.graders.long_context.values import date_mentions, quantities_in
from taskforge.schemas import Task
from taskforge.schemas.long_context import LongContextGrader, LongContextPayload

_WORD = re.compile(r"[a-z0-9][a-z0-9\-]+")
_WORD_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789-")
_STOPWORDS = frozenset(
    "the and for with that this from was were are has have had its their his her which who whom what when where "
    "into onto over under about after before then than but not all any each every other same such only also "
    "been being these those there here they them she him our your you one two both more most many much some "
    "name names document documents following below above answer reply line form final order".split())
_SENTENCE_END = re.compile(r"[.!?]\s+(?=[A-Z0-9\"'(])")
"""White space after a full stop, question or exclamation mark, before a capital, a digit, a quote or a bracket
(whole: a run of white space before anything else is no sentence end, nor any shorter part of it)."""
_BLANK_LINE = re.compile(r"\n\s*\n")
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
    """What a reader would search the documents for: names, codes, library names and years of a probe; failing
    those, its longest content word (the first in alphabetical order among equals, whatever the hash seed)."""
    found = [" ".join(w for w in m.split() if w not in _LEADING) or m for m in _ANCHOR.findall(probe)]
    found = [a for a in found if a]
    if not found:
        words = sorted(content_words(probe), key=lambda word: (-len(word), word))
        found = words[:1]
    return found


class Sentence:
    """A sentence of the documents: where it is, and (worked out when first asked) the dates and quantities it
    states, its content words and the names it holds."""

    __slots__ = ("doc_id", "position", "text", "_dates", "_quantities", "_words", "_names")

    def __init__(self, doc_id: str, position: int, text: str):
        self.doc_id, self.position, self.text = doc_id, position, text
        self._dates = self._quantities = self._words = self._names = None

    @property
    def dates(self) -> tuple[dt.date, ...]:
        if self._dates is None:
            self._dates = tuple(d for _, _, d in date_mentions(self.text))
        return self._dates

    @property
    def quantities(self) -> tuple[float, ...]:
        if self._quantities is None:
            self._quantities = tuple(quantities_in(self.text))
        return self._quantities

    @property
    def words(self) -> frozenset[str]:
        if self._words is None:
            self._words = content_words(self.text)
        return self._words

    @property
    def names(self) -> list[str]:
        """The capitalised multi-word names it holds (`names_in`)."""
        if self._names is None:
            self._names = names_in(self.text)
        return self._names


def _gaps(text: str) -> list[tuple[int, int]]:
    """The spans between sentences: the white space after a full stop, question or exclamation mark that comes
    before a capital, a digit, a quote or a bracket, and blank lines; in order, none inside another."""
    ends = [(m.start() + 1, m.end()) for m in _SENTENCE_END.finditer(text)]
    blanks = [m.span() for m in _BLANK_LINE.finditer(text)]
    if not blanks:
        return ends
    gaps = []
    for gap in sorted(ends + blanks):
        if gaps and gap[0] < gaps[-1][1]:
            continue
        gaps.append(gap)
    return gaps


class SentenceIndex:
    """The sentences of a document set in reading order, and where names and content words occur in them.
    A lookup scans the whole text once per name or word (and remembers the answer), so a strategy reads only
    the sentences it considers."""

    def __init__(self, documents: tuple[tuple[str, str], ...]):
        self.texts: list[str] = []
        self.starts: list[int] = []
        self.doc_ids: list[tuple[int, str]] = []
        offset = 0
        for doc_id, text in documents:
            self.doc_ids.append((len(self.texts), doc_id))
            start = 0
            for gap_start, gap_end in [*_gaps(text), (len(text), len(text))]:
                piece = text[start:gap_start]
                if piece and not piece.isspace():
                    self.starts.append(offset + start)
                    self.texts.append(piece)
                start = gap_end
            offset += len(text) + 2
        self.text = "\n\n".join(text for _, text in documents)
        self._made: dict[int, Sentence] = {}
        self._lowered: str | None = None
        self._names: dict[str, list[int]] = {}
        self._words: dict[str, frozenset[int]] = {}
        self._services: list[str] | None = None

    def __len__(self) -> int:
        return len(self.texts)

    @property
    def services(self) -> list[str]:
        """The names before ' service' in the text ('Kavel' of 'the Kavel service'), in order (found once)."""
        if self._services is None:
            self._services = _SERVICE.findall(self.text)
        return self._services

    def sentence(self, i: int) -> Sentence:
        """The i-th sentence (made when first asked for)."""
        made = self._made.get(i)
        if made is None:
            doc_id = self.doc_ids[bisect_right(self.doc_ids, (i, "\uffff")) - 1][1]
            made = self._made[i] = Sentence(doc_id, self.starts[i], self.texts[i])
        return made

    @property
    def sentences(self) -> list[Sentence]:
        """Every sentence in reading order."""
        return [self.sentence(i) for i in range(len(self.texts))]

    def _sentence_at(self, position: int) -> int:
        return bisect_right(self.starts, position) - 1

    def naming(self, name: str) -> list[int]:
        """Indices of the sentences that contain `name` verbatim, in order."""
        found = self._names.get(name)
        if found is None:
            found, at = [], self.text.find(name)
            while at >= 0:
                index = self._sentence_at(at)
                if at + len(name) <= self.starts[index] + len(self.texts[index]) and (not found or found[-1] != index):
                    found.append(index)
                at = self.text.find(name, at + 1)
            self._names[name] = found
        return found

    def naming_all(self, names: list[str]) -> list[int]:
        """Indices of the sentences that contain every one of the names, in order."""
        if not names:
            return list(range(len(self.texts)))
        return sorted(set(self.naming(names[0])).intersection(*(self.naming(n) for n in names[1:])))

    def naming_any(self, names: list[str]) -> list[int]:
        """Indices of the sentences that contain at least one of the names, in order."""
        return sorted(set().union(*(self.naming(n) for n in names)))

    def with_word(self, word: str) -> frozenset[int]:
        """Indices of the sentences among whose content words `word` is (found as a whole word, not inside a
        longer or hyphenated one)."""
        found = self._words.get(word)
        if found is None:
            if self._lowered is None:
                self._lowered = self.text.lower()
            text, hits, at = self._lowered, set(), self._lowered.find(word)
            starts, size, last = self.starts, len(word), len(text)
            while at >= 0:
                end = at + size
                if (at == 0 or text[at - 1] not in _WORD_CHARS) and (end == last or text[end] not in _WORD_CHARS):
                    hits.add(bisect_right(starts, at) - 1)
                at = text.find(word, end)
            found = self._words[word] = frozenset(hits)
        return found


def sentences_of(documents: list[dict]) -> list[Sentence]:
    """Every sentence of the documents in reading order."""
    return SentenceIndex(tuple((doc["doc_id"], doc["text"]) for doc in documents)).sentences


@lru_cache(maxsize=4)
def _indexed(documents: tuple[tuple[str, str], ...]) -> SentenceIndex:
    """The sentence index of a document set, shared by the solvers that look at the same task."""
    return SentenceIndex(documents)


Want = Callable[[Sentence], bool]


class Strategy(Protocol):
    """How a shallow solver finds the sentence (or sentences) that answer one probe."""

    name: str

    """The sentence this strategy picks for a probe."""
    def locate(self, probe: str, index: SentenceIndex, want: Want) -> Sentence | None: ...

    """The sentences this strategy picks for a probe that asks for several."""
    def gather(self, probe: str, index: SentenceIndex, want: Want) -> list[Sentence]: ...


class KeywordLookup:
    """The sentence sharing most content words with the probe; all sentences naming every anchor."""

    name = "keyword_lookup"

    def locate(self, probe: str, index: SentenceIndex, want: Want) -> Sentence | None:
        """The wanted sentence sharing most content words with the probe (the first of equals)."""
        shared: Counter[int] = Counter()
        for word in content_words(probe):
            shared.update(index.with_word(word))
        for i in sorted(sorted(shared), key=shared.__getitem__, reverse=True):
            if want(index.sentence(i)):
                return index.sentence(i)
        return next((s for i in range(len(index)) if i not in shared and want(s := index.sentence(i))), None)

    def gather(self, probe: str, index: SentenceIndex, want: Want) -> list[Sentence]:
        """The wanted sentences naming every anchor of the probe."""
        return [s for i in index.naming_all(anchors(probe)) if want(s := index.sentence(i))]


class NearestMention:
    """The wanted sentence closest to the first mention of the probe's anchors."""

    name = "nearest_mention"

    def locate(self, probe: str, index: SentenceIndex, want: Want) -> Sentence | None:
        """The wanted sentence nearest the first mention of all anchors (or, failing that, of any)."""
        names = anchors(probe)
        mentioned = index.naming_all(names) or index.naming_any(names)
        if not mentioned:
            return None
        starts, first = index.starts, mentioned[0]
        origin, left, right = starts[first], first, first + 1
        while left >= 0 or right < len(starts):
            before = origin - starts[left] if left >= 0 else None
            after = starts[right] - origin if right < len(starts) else None
            if after is None or (before is not None and before <= after):
                if want(found := index.sentence(left)):
                    return found
                left -= 1
            else:
                if want(found := index.sentence(right)):
                    return found
                right += 1
        return None

    def gather(self, probe: str, index: SentenceIndex, want: Want) -> list[Sentence]:
        """The one sentence `locate` picks."""
        found = self.locate(probe, index, want)
        return [found] if found else []


class FirstMention:
    """The first wanted sentence naming all of the probe's anchors (or, failing that, any of them): what a reader
    with a shell gets from the first hit of one text search (`grep -m1`)."""

    name = "first_mention"

    def locate(self, probe: str, index: SentenceIndex, want: Want) -> Sentence | None:
        """The first wanted sentence naming all anchors (or, failing that, any)."""
        names = anchors(probe)
        for mentioned in (index.naming_all(names), index.naming_any(names)):
            found = next((s for i in mentioned if want(s := index.sentence(i))), None)
            if found is not None:
                return found
        return None

    def gather(self, probe: str, index: SentenceIndex, want: Want) -> list[Sentence]:
        """The one sentence `locate` picks."""
        found = self.locate(probe, index, want)
        return [found] if found else []


class LastMention:
    """The last wanted sentence naming all of the probe's anchors (or, failing that, any of them)."""

    name = "last_mention"

    def locate(self, probe: str, index: SentenceIndex, want: Want) -> Sentence | None:
        """The last wanted sentence naming all anchors (or, failing that, any)."""
        names = anchors(probe)
        for mentioned in (index.naming_all(names), index.naming_any(names)):
            found = next((s for i in reversed(mentioned) if want(s := index.sentence(i))), None)
            if found is not None:
                return found
        return None

    def gather(self, probe: str, index: SentenceIndex, want: Want) -> list[Sentence]:
        """The one sentence `locate` picks."""
        found = self.locate(probe, index, want)
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
              index: SentenceIndex) -> str:
    """Date each item by its located sentence and order by those dates."""
    labels, probes = grader.labels, payload.probes
    dates = {label: _first_date(how.locate(probe, index, _has_date)) for label, probe in zip(labels, probes)}
    return "Answer: " + ", ".join(sorted(labels, key=lambda label: dates[label]))


def _integration(payload: LongContextPayload, grader: LongContextGrader, how: Strategy,
                 index: SentenceIndex) -> str:
    """Read a new name off the sentence located for the question (or compute days between two located dates)."""
    probes = payload.probes
    if payload.answer_type == "days":
        first, second = (_first_date(how.locate(p, index, _has_date)) for p in probes[:2])
        return f"Answer: {abs((second - first).days) if dt.date.max not in (first, second) else 0}"
    asked = set(names_in(payload.question))
    fresh = lambda s: any(n not in asked for n in s.names)  # noqa: E731
    found = how.locate(probes[0], index, fresh)
    names = [n for n in found.names if n not in asked] if found else []
    return f"Answer: {names[0] if names else 'unknown'}"


def _attribution(payload: LongContextPayload, grader: LongContextGrader, how: Strategy,
                 index: SentenceIndex) -> str:
    """The documents of the sentences located for the claim's parts."""
    docs = {found.doc_id for probe in payload.probes if (found := how.locate(probe, index, _any))}
    return "Answer: " + ", ".join(sorted(docs))


def _consistency(payload: LongContextPayload, grader: LongContextGrader, how: Strategy,
                 index: SentenceIndex) -> str:
    """Per item, the odd one out among the figures gathered for it, if any."""
    verdicts = []
    for label, probe in zip(grader.labels, payload.probes):
        reports = [(s.doc_id, s.quantities[0]) for s in how.gather(probe, index, _has_quantity)]
        values = [v for _, v in reports]
        odd = [doc for doc, v in reports if values.count(v) == 1]
        verdicts.append(f"{label}: {odd[0] if len(reports) >= 3 and len(odd) == 1 else 'none'}")
    return "Answer: " + "; ".join(verdicts)


def _rules(payload: LongContextPayload, grader: LongContextGrader, how: Strategy,
           index: SentenceIndex) -> str:
    """Per new record, the decision in the located (most similar) example."""
    classes = grader.values
    has_class = lambda s: any(c in s.text for c in classes)  # noqa: E731
    verdicts = []
    for label, probe in zip(grader.labels, payload.probes):
        found = how.locate(probe, index, has_class)
        present = [c for c in classes if found and c in found.text]
        chosen = min(present, key=found.text.index) if present else classes[-1]
        verdicts.append(f"{label}: {chosen}")
    return "Answer: " + "; ".join(verdicts)


def _state(payload: LongContextPayload, grader: LongContextGrader, how: Strategy,
           index: SentenceIndex) -> str:
    """The quantity in the located sentence."""
    found = how.locate(payload.probes[0], index, _has_quantity)
    return f"Answer: {int(found.quantities[0]) if found else 0}"


def _versions(payload: LongContextPayload, grader: LongContextGrader, how: Strategy,
              index: SentenceIndex) -> str:
    """Services whose located sentence names the defective library."""
    library = payload.probes[0]
    services = sorted(set(index.services))
    affected = []
    for service in services:
        found = how.locate(f"{service} {library}", index, lambda s, name=service: name in s.text)
        if found and library in found.text:
            affected.append(service)
    return "Answer: " + (", ".join(affected) or "none")


def _aggregation(payload: LongContextPayload, grader: LongContextGrader, how: Strategy,
                 index: SentenceIndex) -> str:
    """Count or add up the amounts of the sentences gathered for each condition."""
    question = payload.question
    counting = question.startswith("How many")
    totals = []
    for probe in payload.probes:
        found = how.gather(probe, index, _has_quantity)
        totals.append(len(found) if counting else sum(s.quantities[0] for s in found))
    value = totals[0] - totals[1] if len(totals) > 1 else totals[0]
    return f"Answer: {int(value)}"


def _rollup(payload: LongContextPayload, grader: LongContextGrader, how: Strategy,
            index: SentenceIndex) -> str:
    """Follow the question's organisation by text search: the new names of the sentences gathered for it (its
    staff), the new names of theirs (their projects), and the figure of the sentence located for each project;
    the total of those figures."""
    seen = set(names_in(payload.question))

    def reached(names: list[str]) -> list[str]:
        found = []
        for name in names:
            fresh = lambda s: any(n not in seen for n in s.names)  # noqa: E731
            for sentence in how.gather(name, index, fresh):
                found += [n for n in sentence.names if n not in seen and n not in found]
        seen.update(found)
        return found

    projects = reached(reached(payload.probes[:1]))
    figures = [found.quantities[0] for project in projects if (found := how.locate(project, index, _has_quantity))]
    return f"Answer: {int(sum(figures))}"


COMPOSERS: dict[str, Callable[[LongContextPayload, LongContextGrader, Strategy, SentenceIndex], str]] = {
    "timeline": _timeline, "cross_doc_integration": _integration, "evidence_attribution": _attribution,
    "consistency": _consistency, "rule_induction": _rules, "state_tracking": _state,
    "version_impact": _versions, "set_aggregation": _aggregation, "budget_rollup": _rollup,
    "ledger_balance": _state,
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
        index = _indexed(tuple((d.doc_id, d.text) for d in payload.documents))
        return COMPOSERS[payload.category](payload, LongContextGrader.of(task), self.strategy, index)


def _most_common(values: list, fallback):
    """The value occurring most often (the first seen among equals: a Counter keeps the order values were first
    seen in, and `max` keeps the first of equals), or the fallback when there is none."""
    counts = Counter(values)
    return max(counts, key=counts.__getitem__) if counts else fallback


class MostFrequentAnswer:
    """Answers with the value of the answer's type that occurs most often in the documents: the most frequent
    quantity, name or service, the class (or document) named most often for every item, the document naming
    the probes most often, items ordered by how often their probe's anchors occur."""

    name = "most_frequent_answer"

    def solve(self, task: Task) -> str:
        """The solver's submission for a task."""
        payload, grader = LongContextPayload.of(task), LongContextGrader.of(task)
        index = _indexed(tuple((d.doc_id, d.text) for d in payload.documents))
        text = index.text
        kind, labels = payload.answer_type, grader.labels
        if kind in ("quantity", "days"):
            quantities = [q for doc in payload.documents for q in quantities_of(doc.text)]
            return f"Answer: {int(_most_common(quantities, 0))}"
        if kind == "entity":
            asked = set(names_in(payload.question))
            return f"Answer: {_most_common([n for n in names_in(text) if n not in asked], 'unknown')}"
        if kind == "name_set":
            return f"Answer: {_most_common(index.services, 'none')}"
        if kind in ("class_per_item", "document_per_item"):
            value = max(grader.values, key=lambda v: (text.count(v), -grader.values.index(v)), default="none")
            return "Answer: " + "; ".join(f"{label}: {value}" for label in labels)
        anchors_of = [anchors(probe) for probe in payload.probes]
        if kind == "ordered_labels":
            counts = {label: sum(text.count(a) for a in names) for label, names in zip(labels, anchors_of)}
            return "Answer: " + ", ".join(sorted(labels, key=lambda label: -counts[label]))
        hits = sorted(i for names in anchors_of for i in index.naming_any(names))
        by_doc = Counter(index.sentence(i).doc_id for i in hits)
        return f"Answer: {by_doc.most_common(1)[0][0] if by_doc else payload.documents[0].doc_id}"


HARD_POOL_THRESHOLD = 0.5
"""A task enters the hard pool when its estimated success rate is at most this; the `shortcut` check rejects a
long-context task any shortcut solver scores above it (validators/README.md says why it is where it is)."""

SHALLOW_SOLVERS: tuple[Solver, ...] = (ShallowSolver(KeywordLookup()), ShallowSolver(NearestMention()),
                                       ShallowSolver(FirstMention()), ShallowSolver(LastMention()),
                                       MostFrequentAnswer())


def estimate_success(task: Task, solvers: tuple[Solver, ...] = SHALLOW_SOLVERS) -> dict:
    """Each answering solver's score on the task (with the task's scorer) and the estimate: the best of them.
    Solvers that cannot answer are left out (the shallow ones always answer)."""
    scorer = scorer_for(task.grader)
    submissions = {solver.name: solver.solve(task) for solver in solvers}
    scores = {name: scorer.score(submission, task.reference, task.grader)
              for name, submission in submissions.items() if submission is not None}
    return {"estimate": max(scores.values()), "solver_scores": scores}
