"""The literature family's contract, one model per kind for payload, reference and grader: the question
over a collection snapshot (payload), the gold papers, key passages and reference tool path (reference),
and the kind's scorer (grader)."""

from __future__ import annotations

from typing import Any, Literal

from taskforge.schemas.base import Record
from taskforge.schemas.family import FamilyGrader, FamilyPayload, FamilyReference, TaskPart


class CollectionRef(Record):
    """The collection snapshot a task is asked over."""

    collection_id: str
    version: str


class LiteraturePayload(FamilyPayload):
    """What every literature kind's payload holds; `of` reads a task through its kind's model."""

    kind: str
    collection: CollectionRef
    question_writer: str
    difficulty: dict[str, int]

    @classmethod
    def model_for(cls, kind: str) -> type[TaskPart]:
        return _by_kind(PAYLOADS, cls, kind)


class FindPapersPayload(LiteraturePayload):
    """Papers defined by constraints over citations (one hop, or two for find_papers_2hop), metadata and content."""

    kind: Literal["find_papers", "find_papers_2hop"]
    question: str
    constraints: list[dict[str, Any]]


class FulltextQaPayload(LiteraturePayload):
    """A cloze question over a paper's full text, with lettered options (one says 'insufficient')."""

    kind: Literal["fulltext_qa"]
    question: str
    options: dict[str, str]
    insufficient_option: str


class DescribedFindingPayload(LiteraturePayload):
    """A number asked by its metric and setting, of the one paper meeting `constraints`; lettered options."""

    kind: Literal["described_finding"]
    question: str
    options: dict[str, str]
    insufficient_option: str
    constraints: list[dict[str, Any]]
    asked: dict[str, Any]


class Candidate(Record):
    """A paper offered to an evidence-selection task."""

    paper_id: str
    title: str
    year: int | None = None


class SelectEvidencePayload(LiteraturePayload):
    """A claim and candidate papers, some of which support it."""

    kind: Literal["select_evidence"]
    claim: str
    candidates: list[Candidate]


class TableSynthesisPayload(LiteraturePayload):
    """A table to fill: a row per paper, a column per property."""

    kind: Literal["table_synthesis"]
    question: str
    rows: list[str]
    columns: dict[str, str]


class KeyPassage(Record):
    """A passage the answer rests on, as the tools return it."""

    paper_id: str
    passage: str
    text: str


class PaperEntry(Record):
    """A paper the reference names, with its external ids and its role (gold, cited …)."""

    paper_id: str
    title: str
    doi: str | None = None
    arxiv_id: str | None = None
    role: str


class ToolStep(Record):
    """One call of the reference tool path."""

    tool: str
    arguments: dict[str, Any]


class LiteratureReference(FamilyReference):
    """What every literature kind's reference holds; `of` reads a task through its kind's model."""

    gold_ids: list[str]
    key_passages: list[KeyPassage]
    papers: list[PaperEntry]
    tool_path: list[ToolStep]

    @classmethod
    def model_for(cls, kind: str) -> type[TaskPart]:
        return _by_kind(REFERENCES, cls, kind)


class FindPapersReference(LiteratureReference):
    """The gold paper set."""

    answer: list[str]
    answer_text: str


class FulltextQaReference(LiteratureReference):
    """The right letter, its text, and the sentence that states it."""

    answer: str
    answer_text: str
    key_sentence: str


class DescribedFindingReference(FulltextQaReference):
    """The right letter, its text, and the sentence of the described paper that states it."""


class SelectedEvidence(Record):
    """The supporting papers and their passages."""

    papers: list[str]
    passages: list[dict[str, Any]]


class Support(Record):
    """What a passage must say to support the claim."""

    terms: list[str]
    value: str


class SelectEvidenceReference(LiteratureReference):
    """The supporting papers and passages, the distractors, and what support means."""

    answer: SelectedEvidence
    distractor_ids: list[str]
    support: Support


class TableSynthesisReference(LiteratureReference):
    """The filled table: row paper id → column → value."""

    answer: dict[str, dict[str, Any]]


class LiteratureGrader(FamilyGrader):
    """What every literature kind's grader holds; `of` reads a task through its kind's model."""

    scorer: str

    @classmethod
    def model_for(cls, kind: str) -> type[TaskPart]:
        return _by_kind(GRADERS, cls, kind)


class FindPapersGrader(LiteratureGrader):
    """F1 of the listed paper ids against the gold set."""

    scorer: Literal["literature.paper_set_f1"]


class FulltextQaGrader(LiteratureGrader):
    """The letter chosen among `options`; `insufficient` is the refusal option."""

    scorer: Literal["literature.multiple_choice"]
    options: list[str]
    insufficient: str


class DescribedFindingGrader(FulltextQaGrader):
    """The letter chosen among `options`, as for fulltext_qa."""


class SelectEvidenceGrader(LiteratureGrader):
    """The supporting papers and passages chosen."""

    scorer: Literal["literature.evidence_selection"]


class TableSynthesisGrader(LiteratureGrader):
    """The table's cells, for these rows and columns."""

    scorer: Literal["literature.table_cells"]
    rows: list[str]
    columns: list[str]


KINDS = ("find_papers", "fulltext_qa", "select_evidence", "table_synthesis", "described_finding", "find_papers_2hop")
PAYLOADS: dict[str, type[TaskPart]] = dict(zip(KINDS, (FindPapersPayload, FulltextQaPayload, SelectEvidencePayload,
                                                       TableSynthesisPayload, DescribedFindingPayload,
                                                       FindPapersPayload)))
REFERENCES: dict[str, type[TaskPart]] = dict(zip(KINDS, (FindPapersReference, FulltextQaReference,
                                                         SelectEvidenceReference, TableSynthesisReference,
                                                         DescribedFindingReference, FindPapersReference)))
GRADERS: dict[str, type[TaskPart]] = dict(zip(KINDS, (FindPapersGrader, FulltextQaGrader, SelectEvidenceGrader,
                                                      TableSynthesisGrader, DescribedFindingGrader, FindPapersGrader)))


def _by_kind(models: dict[str, type[TaskPart]], base: type[TaskPart], kind: str) -> type[TaskPart]:
    """The kind's model when `base` is the family's common model, else `base` itself."""
    if base not in (LiteraturePayload, LiteratureReference, LiteratureGrader):
        return base
    return models.get(kind, base)
