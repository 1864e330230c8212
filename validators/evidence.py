"""Evidence check: every recorded evidence span lies inside its document and supports the answer."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from schemas import Task, ValidationResult

_MONTHS = {m: i for i, m in enumerate(("january", "february", "march", "april", "may", "june", "july", "august",
                                        "september", "october", "november", "december"), start=1)}
_ORDINAL_WORDS = {w: i for i, w in enumerate((
    "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth", "eleventh",
    "twelfth", "thirteenth", "fourteenth", "fifteenth", "sixteenth", "seventeenth", "eighteenth", "nineteenth",
    "twentieth", "twenty-first", "twenty-second", "twenty-third", "twenty-fourth", "twenty-fifth", "twenty-sixth",
    "twenty-seventh", "twenty-eighth", "twenty-ninth", "thirtieth", "thirty-first"), start=1)}
_MONTH = r"(january|february|march|april|may|june|july|august|september|october|november|december)"
_DATE_PATTERNS = (
    (re.compile(r"(\d{4})-(\d{2})-(\d{2})"), lambda m: (int(m[1]), int(m[2]), int(m[3]))),
    (re.compile(rf"(\d{{1,2}}) {_MONTH} (\d{{4}})", re.I), lambda m: (int(m[3]), _MONTHS[m[2].lower()], int(m[1]))),
    (re.compile(rf"{_MONTH} (\d{{1,2}}), (\d{{4}})", re.I), lambda m: (int(m[3]), _MONTHS[m[1].lower()], int(m[2]))),
    (re.compile(rf"the ([a-z-]+) of {_MONTH} (\d{{4}})", re.I),
     lambda m: (int(m[3]), _MONTHS[m[2].lower()], _ORDINAL_WORDS.get(m[1].lower(), 0))),
    (re.compile(rf"{_MONTH} (\d{{4}}), on the (\d{{1,2}})(st|nd|rd|th)", re.I),
     lambda m: (int(m[2]), _MONTHS[m[1].lower()], int(m[3]))),
)


def dates_in(text: str) -> set[dt.date]:
    """Every calendar date written in `text` in one of the formats documents use."""
    found = set()
    for pattern, parts in _DATE_PATTERNS:
        for match in pattern.finditer(text):
            try:
                found.add(dt.date(*parts(match)))
            except ValueError:
                continue
    return found


def _span_problems(task: Task) -> list[str]:
    payload: dict[str, Any] = task.payload
    documents = {d["doc_id"]: d["text"] for d in payload.get("documents", [])}
    dates = task.reference.get("dates", {})
    problems = []
    for span in payload.get("evidence", []):
        text = documents.get(span["doc_id"])
        where = f"evidence for {span.get('label', '?')} in {span['doc_id']}"
        if text is None:
            problems.append(f"{where}: no such document")
            continue
        if not 0 <= span["start"] < span["end"] <= len(text):
            problems.append(f"{where}: offsets {span['start']}..{span['end']} outside the document")
            continue
        expected = dates.get(span.get("label"))
        if expected and dt.date.fromisoformat(expected) not in dates_in(text[span["start"]:span["end"]]):
            problems.append(f"{where}: the span does not state the date {expected}")
    labels = {span.get("label") for span in payload.get("evidence", [])}
    missing = sorted(set(dates) - labels)
    if missing:
        problems.append(f"no evidence recorded for {', '.join(missing)}")
    return problems


class EvidenceCheck:
    """Fails a task whose evidence spans are out of bounds, missing, or do not state what the answer needs."""

    name = "evidence"

    def applies_to(self, task: Task) -> bool:
        return "evidence" in task.payload

    def run(self, task: Task) -> ValidationResult:
        problems = _span_problems(task)
        return ValidationResult(check=self.name, passed=not problems, reason="; ".join(problems) or None,
                                detail={"problems": problems})
