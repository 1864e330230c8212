"""Long-context scorers and checks: each accepts good tasks and rejects its planted defects."""

from __future__ import annotations

import random

import pytest

from taskforge.builders.base import BuildContext
from taskforge.builders.long_context import LongContextBuilder
from factories import long_context_tasks
from taskforge.graders import SCORERS
from taskforge.graders.base import NOOP_TEXTS
from taskforge.graders.long_context.answerability import answerability_problems
from taskforge.graders.long_context.scorers import DocumentSet, ExactValue, LabelMap, NameSet, OrderedLabels, Quantity
from taskforge.schemas import PlanItem, Task
from taskforge.validators.runner import DEFAULT_CHECKS, validate

CHECKS = {check.name: check for check in DEFAULT_CHECKS}


@pytest.fixture(scope="module")
def task() -> Task:
    return long_context_tasks(1, target_tokens=3072)[0]


def _rejected_by(task: Task, check) -> str:
    result = check.run(task)
    assert not result.passed
    return result.reason or ""


def test_a_hard_task_passes_every_check(task):
    decided = validate(task)
    assert decided.status == "accepted", decided.reasons
    assert [r.check for r in decided.validation] == [
        "noop", "reference", "leakage", "shortcut", "determinism", "decontamination", "difficulty",
        "review"]
    parts = {r.check: r.detail["strategy"] for r in decided.validation}
    assert parts["reference"] == ["scorer_reference", "rendered_prompt", "evidence", "answerability"]
    assert parts["shortcut"] == ["hardness"]
    assert decided.validation[-1].detail["skipped"] == "skipped: no LLM roles in this run (no reviewer endpoint)"


def test_scorers_give_partial_credit_but_nothing_for_doing_nothing():
    ordered = OrderedLabels()
    grader = {"labels": ["A", "B", "C", "D"]}
    reference = {"answer": ["B", "A", "D", "C"], "answer_text": "B, A, D, C"}
    assert ordered.score("Answer: B, A, D, C", reference, grader) == 1.0
    assert 0 < ordered.score("Answer: A, B, D, C", reference, grader) < 1
    assert ordered.score("Answer: B, A, D", reference, grader) == 0.0
    assert ExactValue().score("It ends there.\nAnswer: the Kavel  Harbour.", {"answer": "Kavel Harbour"}, {}) == 1
    assert ExactValue().score("Answer: 1,240", {"answer": 1240}, {}) == 1.0
    assert DocumentSet().score("Answer: doc-2, doc-5", {"answer": ["doc-2", "doc-5"]}, {}) == 1.0
    assert DocumentSet().score("Answer: doc-1, doc-2, doc-3, doc-4, doc-5, doc-6", {"answer": ["doc-2", "doc-5"]},
                               {}) == pytest.approx(1 / 3)
    assert NameSet("n").score("Answer: Miul and Ketor", {"answer": ["Ketor", "Miul"]}, {}) == 1.0
    assert Quantity("q").score("Answer: 57 crates", {"answer": 57}, {}) == 1.0
    label_map = LabelMap("m")
    grader = {"labels": ["A", "B", "C", "D"], "values": ["held", "cleared"]}
    reference = {"answer": {"A": "held", "B": "cleared", "C": "cleared", "D": "cleared"}}
    assert label_map.score("Answer: A: held; B: cleared; C: cleared; D: cleared", reference, grader) == 1.0
    assert label_map.score("Answer: A: cleared; B: cleared; C: cleared; D: cleared", reference, grader) == 0.0
    assert all(scorer.score(text, reference, grader) == 0.0 for scorer in (label_map,) for text in NOOP_TEXTS)


def test_noop_check_rejects_a_task_whose_empty_answer_scores(task):
    empty = task.model_copy(update={"reference": {**task.reference, "answer": [], "answer_text": ""},
                                    "grader": {**task.grader, "labels": []}})
    assert "no-op submission scores" in _rejected_by(empty, CHECKS["noop"])


def test_reference_check_rejects_a_wrong_reference(task):
    wrong = {**task.reference, "answer_text": ", ".join(reversed(task.reference["answer"]))}
    assert "not 1.0" in _rejected_by(task.model_copy(update={"reference": wrong}), CHECKS["reference"])


def test_leakage_check_rejects_items_listed_in_answer_order(task):
    items = {label: task.payload["items"][label] for label in task.reference["answer"]}
    listed = task.model_copy(update={"payload": {**task.payload, "items": items}})
    assert "answer's order" in _rejected_by(listed, CHECKS["leakage"])


def test_evidence_check_rejects_bad_offsets_and_unknown_facts(task):
    evidence = [dict(e) for e in task.payload["evidence"]]
    evidence[0]["end"] = 10 ** 9
    evidence[1]["fact_id"] = "nope"
    bad = task.model_copy(update={"payload": {**task.payload, "evidence": evidence}})
    reason = _rejected_by(bad, CHECKS["reference"])
    assert "outside the document" in reason and "names no fact" in reason


class _CoinScorer:
    name = "long_context.ordered_labels"

    def __init__(self):
        self.rng = random.Random(1)

    def score(self, submission, reference, grader):
        return self.rng.random()

    def reference_submission(self, reference, grader):
        return "Answer: x"

    def noop_submissions(self, grader):
        return [""]


class _MarkerSensitiveScorer(_CoinScorer):
    def score(self, submission, reference, grader):
        return 1.0 if submission.startswith("Answer: ") and reference["answer_text"] in submission else 0.0


def test_determinism_check_rejects_a_random_scorer_and_a_format_sensitive_one(task, monkeypatch):
    assert CHECKS["determinism"].run(task).passed
    monkeypatch.setitem(SCORERS, "long_context.ordered_labels", _CoinScorer())
    assert "scores [" in _rejected_by(task, CHECKS["determinism"])
    monkeypatch.setitem(SCORERS, "long_context.ordered_labels", _MarkerSensitiveScorer())
    assert "not 1.0" in _rejected_by(task, CHECKS["determinism"])


def test_answerability_check_rejects_evidence_that_is_not_needed(task):
    spare = next(f for f in task.reference["facts"]
                 if f["fact_id"] not in {e["fact_id"] for e in task.payload["evidence"]} and f["kind"] == "event")
    evidence = task.payload["evidence"] + [{k: spare[k] for k in ("fact_id", "doc_id", "start", "end")}]
    padded = task.model_copy(update={"payload": {**task.payload, "evidence": evidence}})
    assert f"evidence {spare['fact_id']} is not needed" in _rejected_by(padded, CHECKS["reference"])


def test_answerability_check_rejects_missing_evidence(task):
    thin = task.model_copy(update={"payload": {**task.payload, "evidence": task.payload["evidence"][1:]}})
    assert "alone do not determine" in _rejected_by(thin, CHECKS["reference"])


def test_answerability_rejects_an_answer_that_one_span_holds():
    facts = [{"fact_id": "f1", "kind": "relation", "subject": "P", "relation": "funded_by", "object": "O",
              "doc_id": "doc-1"},
             {"fact_id": "f2", "kind": "relation", "subject": "Q", "relation": "funded_by", "object": "R",
              "doc_id": "doc-2"}]
    query = {"form": "chain", "start": "P", "path": ["funded_by"]}
    alone = answerability_problems("cross_doc_integration", facts, ["f1"], query, "O")
    assert "a single evidence span holds the whole answer" in alone
    with_padding = answerability_problems("cross_doc_integration", facts, ["f1", "f2"], query, "O")
    assert "evidence f1 alone determines the answer" in with_padding
    assert "evidence f2 is not needed: the answer follows without it" in with_padding


def test_hardness_check_rejects_easy_tasks_and_tampered_estimates(task):
    assert CHECKS["shortcut"].run(task).passed
    item = PlanItem(family="long_context", capability="history_tracking", quota=1, gap_ids=[], priority=1.0)
    context = BuildContext(cycle_id="easy", options={"target_tokens": 3072, "categories": "timeline", "evolve": False,
                                                     "start": "easiest"})
    root = next(LongContextBuilder().build(item, context))
    assert "too easy: the keyword_lookup shortcut scores 1.0" in _rejected_by(root, CHECKS["shortcut"])
    evolution = {**task.payload["evolution"], "estimate": 0.123}
    tampered = task.model_copy(update={"payload": {**task.payload, "evolution": evolution}})
    assert "records an estimate of 0.123" in _rejected_by(tampered, CHECKS["shortcut"])
