"""Scorers of literature answers: a set of paper ids (F1), an evidence selection (precision/recall of papers
and passages), a multiple-choice letter, and a comparison table (cell by cell).

Submission formats (each task's prompt states its own):
- find_papers: a final line `Answer: id1, id2, ...`;
- select_evidence: a JSON object `{"papers": [...], "passages": [{"paper_id": ..., "passage": "<section>:<n>"}]}`;
- fulltext_qa: a final line `Answer: X` with one option letter;
- table_synthesis: a JSON object `{"<paper_id>": {"<column>": value, ...}, ...}`.
JSON may be wrapped in prose or a code fence; the last JSON object in the reply counts.
"""

from __future__ import annotations

import json
import re
from typing import Any, Iterable

from taskforge.graders.base import NOOP_TEXTS
from taskforge.graders.long_context.values import final_answer

_ID_SEPARATORS = re.compile(r"[,;\s]+")
_LETTER = re.compile(r"\b([A-Z])\b")


def f1(predicted: Iterable[Any], gold: Iterable[Any]) -> float:
    """The F1 of a predicted set against a gold set (0 when either is empty)."""
    predicted, gold = set(predicted), set(gold)
    hits = len(predicted & gold)
    if not hits:
        return 0.0
    precision, recall = hits / len(predicted), hits / len(gold)
    return round(2 * precision * recall / (precision + recall), 6)


def last_json_object(submission: str) -> dict[str, Any] | None:
    """The last top-level JSON object written in a reply, or None."""
    decoder = json.JSONDecoder()
    found, position = None, submission.find("{")
    while position != -1:
        try:
            value, end = decoder.raw_decode(submission, position)
        except json.JSONDecodeError:
            position = submission.find("{", position + 1)
            continue
        if isinstance(value, dict):
            found = value
        position = submission.find("{", end)
    return found


def paper_ids(text: str) -> set[str]:
    """Paper ids listed in an answer line, normalised as the collection writes them."""
    return {token.strip("'\"`[]()<>.").casefold() for token in _ID_SEPARATORS.split(text)} - {""}


class PaperSetF1:
    """find_papers: the F1 of the listed paper ids against the gold set."""

    name = "literature.paper_set_f1"

    def score(self, submission: str, reference: dict[str, Any], grader: dict[str, Any]) -> float:
        return f1(paper_ids(final_answer(submission)), reference["answer"])

    def reference_submission(self, reference: dict[str, Any], grader: dict[str, Any]) -> str:
        return f"Answer: {', '.join(reference['answer'])}"

    def noop_submissions(self, grader: dict[str, Any]) -> list[str]:
        return [*NOOP_TEXTS, "Answer: none"]


class EvidenceSelection:
    """select_evidence: the mean of the F1 over selected papers and the F1 over selected passages."""

    name = "literature.evidence_selection"

    def score(self, submission: str, reference: dict[str, Any], grader: dict[str, Any]) -> float:
        chosen = last_json_object(submission) or {}
        papers = chosen.get("papers") if isinstance(chosen.get("papers"), list) else []
        passages = chosen.get("passages") if isinstance(chosen.get("passages"), list) else []
        picked_papers = {str(p).strip().casefold() for p in papers}
        picked_passages = {(str(p.get("paper_id", "")).strip().casefold(), str(p.get("passage", "")).strip().casefold())
                           for p in passages if isinstance(p, dict)}
        gold = reference["answer"]
        gold_passages = {(p["paper_id"], p["passage"]) for p in gold["passages"]}
        return round((f1(picked_papers, gold["papers"]) + f1(picked_passages, gold_passages)) / 2, 6)

    def reference_submission(self, reference: dict[str, Any], grader: dict[str, Any]) -> str:
        return json.dumps(reference["answer"])

    def noop_submissions(self, grader: dict[str, Any]) -> list[str]:
        return [*NOOP_TEXTS, "{}", json.dumps({"papers": [], "passages": []})]


class MultipleChoice:
    """fulltext_qa: 1 for the right option letter, 0 for anything else (including no letter or several)."""

    name = "literature.multiple_choice"

    def score(self, submission: str, reference: dict[str, Any], grader: dict[str, Any]) -> float:
        letters = {x for x in _LETTER.findall(final_answer(submission)) if x in grader["options"]}
        return 1.0 if letters == {reference["answer"]} else 0.0

    def reference_submission(self, reference: dict[str, Any], grader: dict[str, Any]) -> str:
        return f"Answer: {reference['answer']}"

    def noop_submissions(self, grader: dict[str, Any]) -> list[str]:
        return [*NOOP_TEXTS, f"Answer: {grader['insufficient']}"]


def cell_value(value: Any) -> str:
    """A table cell in comparable form: casefolded text, booleans as yes/no, whole numbers without '.0'."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    text = " ".join(str(value).split()).casefold().rstrip(".")
    return {"true": "yes", "false": "no"}.get(text, text)


class TableCells:
    """table_synthesis: the share of the table's cells filled with the right value."""

    name = "literature.table_cells"

    def score(self, submission: str, reference: dict[str, Any], grader: dict[str, Any]) -> float:
        table = last_json_object(submission) or {}
        rows = {str(k).strip().casefold(): v for k, v in table.items() if isinstance(v, dict)}
        gold = reference["answer"]
        cells = [(row, column) for row in grader["rows"] for column in grader["columns"]]
        right = sum(1 for row, column in cells
                    if column in rows.get(row, {}) and cell_value(rows[row][column]) == cell_value(gold[row][column]))
        return round(right / len(cells), 6) if cells else 0.0

    def reference_submission(self, reference: dict[str, Any], grader: dict[str, Any]) -> str:
        return json.dumps(reference["answer"])

    def noop_submissions(self, grader: dict[str, Any]) -> list[str]:
        return [*NOOP_TEXTS, "{}"]


SCORERS = (PaperSetF1(), EvidenceSelection(), MultipleChoice(), TableCells())
