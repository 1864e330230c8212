"""The timeline builder and its validators: good tasks accepted, planted defects rejected."""

from __future__ import annotations

import datetime as dt

import pytest

from builders.long_context import timeline
from builders.long_context.length import LengthTarget
from factories import long_context_tasks
from graders import scorer_for
from schemas import Message
from schemas.tokens import count_tokens
from validators.evidence import dates_in
from validators.runner import validate


@pytest.fixture(scope="module")
def task():
    return long_context_tasks(1, target_tokens=4096)[0]


def test_answer_is_the_chronological_order_of_the_world_dates(task):
    dates = task.reference["dates"]
    assert task.reference["answer"] == sorted(dates, key=lambda label: dt.date.fromisoformat(dates[label]))
    assert list(task.payload["items"]) != task.reference["answer"], "listing order must not give the answer away"


def test_evidence_spans_state_each_event_date(task):
    docs = {d["doc_id"]: d["text"] for d in task.payload["documents"]}
    for span in task.payload["evidence"]:
        text = docs[span["doc_id"]][span["start"]:span["end"]]
        assert dt.date.fromisoformat(task.reference["dates"][span["label"]]) in dates_in(text)


def test_length_is_measured_with_the_trainer_tokenizer_and_within_tolerance(task):
    measured = count_tokens(task.prompt[0].content + task.prompt[1].content)
    assert measured == task.payload["context_tokens"]
    assert LengthTarget(tokens=4096).accepts(measured)


def test_same_seed_same_task_same_id():
    first, second = long_context_tasks(1)[0], long_context_tasks(1)[0]
    assert first.task_id == second.task_id and first.payload == second.payload


def test_good_task_is_accepted(task):
    decided = validate(task)
    assert decided.status == "accepted", decided.reasons
    assert [r.check for r in decided.validation] == ["noop", "reference", "leakage", "evidence", "decontamination"]


def test_scorer_reference_one_noop_zero_partial_order_between(task):
    scorer = scorer_for(task.grader)
    answer = task.reference["answer"]
    assert scorer.score(f"Answer: {', '.join(answer)}", task.reference, task.grader) == 1.0
    assert scorer.score("", task.reference, task.grader) == 0.0
    assert scorer.score("insufficient information", task.reference, task.grader) == 0.0
    swapped = answer[:-2] + [answer[-1], answer[-2]]
    assert 0.0 < scorer.score("Answer: " + " ".join(swapped), task.reference, task.grader) < 1.0
    assert scorer.score("Answer: " + ", ".join(answer[:-1]), task.reference, task.grader) == 0.0


def _rejected_by(task, check):
    decided = validate(task)
    failed = {r.check for r in decided.validation if not r.passed}
    return decided.status == "rejected" and check in failed


def test_planted_answer_in_question_is_rejected_by_leakage(task):
    leaked = task.model_copy(update={"prompt": [task.prompt[0], Message(
        role="user", content=task.prompt[1].content + f"\nHint: the order is {task.reference['answer_text']}.")]})
    assert _rejected_by(leaked, "leakage")


def test_planted_listing_in_answer_order_is_rejected_by_leakage(task):
    items = {label: task.payload["items"][label] for label in task.reference["answer"]}
    assert _rejected_by(task.model_copy(update={"payload": {**task.payload, "items": items}}), "leakage")


def test_planted_wrong_reference_is_rejected_by_reference_check(task):
    answer = list(reversed(task.reference["answer"]))
    wrong = {**task.reference, "answer_text": ", ".join(answer)}
    assert _rejected_by(task.model_copy(update={"reference": wrong}), "reference")


def test_planted_empty_answer_that_scores_is_rejected_by_noop_check(task):
    empty = task.model_copy(update={"reference": {**task.reference, "answer": [], "answer_text": ""},
                                    "grader": {**task.grader, "labels": []}})
    assert _rejected_by(empty, "noop")


def test_planted_evidence_span_that_does_not_support_the_answer_is_rejected(task):
    evidence = [dict(span) for span in task.payload["evidence"]]
    evidence[0]["start"], evidence[0]["end"] = 0, 20
    assert _rejected_by(task.model_copy(update={"payload": {**task.payload, "evidence": evidence}}), "evidence")


def test_core_content_longer_than_target_is_refused():
    with pytest.raises(ValueError, match="over the target"):
        timeline.generate(3, timeline.TimelineParams(target=LengthTarget(tokens=600, answer_reserve=100)))
