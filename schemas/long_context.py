"""The long-context family's contract: documents, question, evidence spans and evolution (payload); the
answer and the world-model facts it follows from (reference); the scorer and its labels (grader)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import ConfigDict, Field

from taskforge.schemas.base import Record
from taskforge.schemas.family import FamilyGrader, FamilyPayload, FamilyReference


class Document(Record):
    """One document of the context, as the prompt shows it."""

    doc_id: str
    title: str
    text: str


class EvidenceSpan(Record):
    """Where a document states a fact the answer needs (character offsets into its text)."""

    fact_id: str
    doc_id: str
    start: int
    end: int


class Source(Record):
    """What the documents were made from: a seeded world model, or a folder of real documents."""

    kind: Literal["world_model", "documents"]
    world_seed: int | None = None
    folder: str | None = None
    files: list[str] = Field(default_factory=list)
    revision: str | None = None
    synthetic_filler_tokens: int | None = None


class EvolutionRecord(Record):
    """Where a candidate stands in evolution (empty while its estimate is being computed)."""

    generation: int = 0
    changed_axes: list[str] = Field(default_factory=list)
    threshold: float | None = None
    pool: Literal["hard", "seed"] | None = None
    estimate: float | None = None
    solver_scores: dict[str, float] = Field(default_factory=dict)


class LongContextPayload(FamilyPayload):
    """What defines a long-context task."""

    category: str
    source: Source
    documents: list[Document]
    question: str
    items: dict[str, str] = Field(default_factory=dict)
    probes: list[str] = Field(default_factory=list)
    answer_type: str
    evidence: list[EvidenceSpan]
    context_tokens: int
    target_tokens: int
    tolerance: float
    answer_reserve: int
    difficulty: dict[str, float]
    measures: dict[str, float]
    evolution: EvolutionRecord | None = None


class FactCheck(Record):
    """Something a fact's sentence must contain: a text verbatim, a date, a number or a version."""

    type: str
    value: Any


class Fact(Record):
    """A world-model fact located in a document; its category-specific attributes ride along."""

    model_config = ConfigDict(extra="allow")

    fact_id: str
    doc_id: str
    start: int
    end: int
    checks: list[FactCheck] = Field(default_factory=list)


class LongContextReference(FamilyReference):
    """The answer (a value, a list, or a label map), as the solver should write it, and — for tasks built
    from a world model — the facts and the query it is derived from."""

    answer: Any
    answer_text: str
    facts: list[Fact] | None = None
    query: dict[str, Any] | None = None


class LongContextGrader(FamilyGrader):
    """The scorer of the answer format, with the labels and values it accepts."""

    scorer: str
    labels: list[str] = Field(default_factory=list)
    values: list[str] = Field(default_factory=list)
