"""Distractor check: the wrong choices of a literature task must be wrong, and distinct from the right one.

- fulltext_qa: options are distinct; no distractor equals the answer or
  appears in the key sentence (which would make the blank ambiguous).
- described_finding: options are distinct; no distractor is a number the
  described paper (derived again from the description) states for the metric
  and setting asked.
- select_evidence: candidates are distinct; no distractor paper has a passage
  that supports the claim (read through the task's environment).
"""

from __future__ import annotations

from pathlib import Path

from taskforge.graders.literature.scorers import cell_value
from taskforge.validators.literature.rederive import described_paper
from taskforge.graders.literature.environment import environment_for
from taskforge.graders.literature.descriptions import stated_values
from taskforge.graders.literature.papers import mentions, passages, supports
from taskforge.schemas import Task, ValidationResult
from taskforge.schemas.literature import (DescribedFindingPayload, DescribedFindingReference, FulltextQaPayload,
                                          FulltextQaReference, SelectEvidencePayload, SelectEvidenceReference)



def _same_options(options: dict[str, str]) -> list[str]:
    """Options that read the same."""
    problems = []
    seen: dict[str, str] = {}
    for letter, text in options.items():
        key = cell_value(text)
        if key in seen:
            problems.append(f"options {seen[key]} and {letter} are the same ({text!r})")
        seen.setdefault(key, letter)
    return problems


def _fulltext_qa_problems(task: Task) -> list[str]:
    payload, reference = FulltextQaPayload.of(task), FulltextQaReference.of(task)
    problems = _same_options(payload.options)
    for letter, text in payload.options.items():
        if letter != reference.answer and letter != payload.insufficient_option and mentions(
                reference.key_sentence, text):
            problems.append(f"distractor {letter} ({text!r}) is stated in the key sentence")
    return problems


def _described_finding_problems(task: Task, data_dir: Path | None) -> list[str]:
    payload, reference = DescribedFindingPayload.of(task), DescribedFindingReference.of(task)
    problems = _same_options(payload.options)
    paper, why = described_paper(payload, environment_for(task.environment, data_dir).collection)
    if paper is None:
        return problems + [why]
    stated = {cell_value(v) for v in stated_values(paper, payload.asked["metric"], payload.asked["setting"])}
    return problems + [f"distractor {letter} ({text!r}) is stated by {paper.paper_id} for the metric and setting asked"
                       for letter, text in payload.options.items()
                       if letter not in (reference.answer, payload.insufficient_option) and cell_value(text) in stated]


def _select_evidence_problems(task: Task, data_dir: Path | None) -> list[str]:
    reference = SelectEvidenceReference.of(task)
    candidates = [c.paper_id for c in SelectEvidencePayload.of(task).candidates]
    twice = sorted({c for c in candidates if candidates.count(c) > 1})
    problems = [f"candidate {pid} is listed twice" for pid in twice]
    env = environment_for(task.environment, data_dir)
    support = reference.support.model_dump()
    for pid in reference.distractor_ids:
        paper = env.collection.by_id.get(pid)
        backing = [p for p, text in passages(paper).items() if supports(text, support)] if paper else []
        if backing:
            problems.append(f"distractor {pid} supports the claim as the gold does ({', '.join(backing)})")
    if not reference.distractor_ids:
        problems.append("no distractors among the candidates")
    return problems


class DistractorCheck:
    """Fails a multiple-choice or evidence-selection task whose distractors are right, duplicated, or absent."""

    name = "distractors"

    def __init__(self, data_dir: Path | None = None):
        self.data_dir = data_dir

    def applies_to(self, task: Task) -> bool:
        return task.family == "literature" and task.kind in ("fulltext_qa", "select_evidence", "described_finding")

    def run(self, task: Task) -> ValidationResult:
        problems = (_fulltext_qa_problems(task) if task.kind == "fulltext_qa"
                    else _described_finding_problems(task, self.data_dir) if task.kind == "described_finding"
                    else _select_evidence_problems(task, self.data_dir))
        return ValidationResult(check=self.name, passed=not problems, reason="; ".join(problems) or None,
                                detail={"problems": problems})
