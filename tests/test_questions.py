"""One check per question, one strategy per family: the table is complete, a check never passes silently,
and the funnel tells judged results from not applicable and skipped ones."""

from __future__ import annotations

import pytest

from factories import long_context_tasks
from taskforge.schemas import FAMILIES, Task, TaskforgeError, ValidationResult
from taskforge.store.report import check_cell
from taskforge.validators import registry
from taskforge.validators.base import CheckContext
from taskforge.validators.questions import QUESTIONS, QuestionCheck, absent, answered_by, parts_of
from taskforge.validators.runner import DEFAULT_CHECKS, validate


class Part:
    """A strategy part that passes, fails, or crashes as told."""

    def __init__(self, name: str, outcome: str = "pass"):
        self.name, self.outcome = name, outcome

    def applies_to(self, task: Task) -> bool:
        return self.outcome != "skip"

    def run(self, task: Task) -> ValidationResult:
        if self.outcome == "crash":
            raise ValueError("planted crash")
        return ValidationResult(check=self.name, passed=self.outcome == "pass", score=1.0,
                                reason=None if self.outcome == "pass" else f"{self.name} found a defect")


@pytest.fixture(scope="module")
def task() -> Task:
    return long_context_tasks(1, target_tokens=2048)[0]


def test_every_family_answers_every_question_in_the_same_order(task):
    assert [check.name for check in DEFAULT_CHECKS] == list(QUESTIONS)
    tables = registry.strategy_tables(CheckContext())
    assert set(tables) == set(FAMILIES) and all(set(table) == set(QUESTIONS) for table in tables.values())
    assert [r.check for r in validate(task).validation] == list(QUESTIONS)


def test_a_table_that_leaves_a_question_unanswered_is_refused(monkeypatch):
    incomplete = dict(registry.FAMILY_STRATEGIES)
    incomplete["swe"] = lambda context: {"noop": absent("planted")}
    monkeypatch.setattr(registry, "FAMILY_STRATEGIES", incomplete)
    with pytest.raises(TaskforgeError, match="the swe strategy table misses"):
        registry.question_checks(CheckContext())


def test_a_family_without_a_strategy_says_so_and_is_counted_apart(task):
    check = QuestionCheck("shortcut", {task.family: absent("no cheap solver for this family yet")})
    result = check.run(task)
    assert result.passed and result.reason == "not applicable to long_context: no cheap solver for this family yet"
    nothing = QuestionCheck("shortcut", {task.family: answered_by(Part("p", "skip"), otherwise="nothing to solve")})
    assert nothing.run(task).detail == {"not_applicable": "not applicable to this long_context task: nothing to solve"}
    assert check_cell({"passed": 5, "failed": 1, "not_applicable": 2, "skipped": 0}) == "3/4 (+2 n/a)"
    assert check_cell({"passed": 3, "failed": 0, "not_applicable": 3, "skipped": 0}) == "n/a"
    assert check_cell({"passed": 3, "failed": 0, "not_applicable": 1, "skipped": 2}) == "1 n/a, 2 skipped"


def test_parts_combine_and_a_failing_or_crashing_part_is_named(task):
    check = QuestionCheck("reference", {task.family: answered_by(Part("first"), Part("second", "fail"),
                                                                 Part("third", "crash"))})
    result = check.run(task)
    assert not result.passed and result.detail["strategy"] == ["first", "second", "third"]
    assert result.reason == ("second: second found a defect; third: check failed to run: ValueError: planted crash")
    parts = parts_of(result)
    assert parts["first"].passed and not parts["second"].passed and not parts["third"].passed
    single = QuestionCheck("noop", {task.family: answered_by(Part("only", "fail"))}).run(task)
    assert (single.check, single.reason, single.detail["strategy"]) == ("noop", "only found a defect", ["only"])
    assert parts_of(single)["only"].reason == "only found a defect"


def test_the_reviewer_is_skipped_without_an_endpoint_and_for_a_rejected_task(task):
    review = validate(task).validation[-1]
    assert review.check == "review" and review.passed
    assert review.detail["skipped"] == "skipped: no LLM roles in this run (no reviewer endpoint)"
    wrong = task.model_copy(update={"reference": {**task.reference, "answer_text": "zz-not-the-answer"}})
    decided = validate(wrong)
    assert decided.status == "rejected"
    reviewer = parts_of(decided.validation[-1])["reviewer"]
    assert reviewer.detail["skipped"].startswith("skipped: not reviewed, already rejected by ")
