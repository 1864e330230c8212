"""Typed family contracts: built tasks keep them, a broken part is named with its field, a builder's task
that breaks its contract is quarantined as it is emitted, and checks read tasks through the models."""

from __future__ import annotations

import pytest

from factories import literature_tasks, long_context_tasks, paper_collection
from taskforge.builders.base import emitted
from taskforge.builders.literature.kinds import KINDS
from taskforge.schemas import Quarantined
from taskforge.schemas.contracts import CONTRACTS, conforming, contract_problems
from taskforge.schemas.family import ContractError
from taskforge.schemas.literature import FulltextQaReference, LiteratureReference, TableSynthesisGrader
from taskforge.schemas.long_context import LongContextPayload
from taskforge.schemas.task import FAMILIES
from taskforge.validators.runner import validate


@pytest.fixture(scope="module")
def tasks(tmp_path_factory):
    root = tmp_path_factory.mktemp("contracts")
    literature = literature_tasks(paper_collection(root / "papers.jsonl"), root / "data", list(KINDS))
    return {"long_context": long_context_tasks(1, target_tokens=2048)[0], **{t.kind: t for t in literature}}


def test_every_family_has_a_contract_and_built_tasks_keep_theirs(tasks):
    assert set(CONTRACTS) == set(FAMILIES)
    assert set(tasks) == {"long_context", *KINDS}
    for task in tasks.values():
        assert contract_problems(task) == [] and conforming(task) is task
    qa = FulltextQaReference.of(tasks["fulltext_qa"])
    assert isinstance(LiteratureReference.of(tasks["fulltext_qa"]), FulltextQaReference) and qa.key_sentence
    assert TableSynthesisGrader.of(tasks["table_synthesis"]).rows == tasks["table_synthesis"].reference["gold_ids"]


def test_a_broken_part_is_named_with_its_field(tasks):
    task = tasks["long_context"]
    broken = task.model_copy(update={"payload": {**task.payload, "evidence": [{"doc_id": "doc-1"}]}})
    with pytest.raises(ContractError, match=r"payload of this long_context task \(timeline\) breaks its contract "
                                            r"\(LongContextPayload\): evidence\.0\.fact_id: Field required"):
        LongContextPayload.of(broken)
    extra = tasks["find_papers"].model_copy(update={"grader": {**tasks["find_papers"].grader, "weights": [1]}})
    (problem,) = contract_problems(extra)
    assert "grader" in problem and "weights: Extra inputs are not permitted" in problem


def test_a_task_breaking_its_contract_is_quarantined_as_it_is_emitted(tasks):
    good = tasks["select_evidence"]
    bad = good.model_copy(update={"reference": {k: v for k, v in good.reference.items() if k != "support"}})
    out = list(emitted([good, bad]))
    assert out[0] is good and isinstance(out[1], Quarantined) and out[1].stage == "build"
    assert out[1].source == f"literature:{bad.task_id}" and "support: Field required" in out[1].reason


def test_a_check_reading_a_broken_task_rejects_it_saying_why(tasks):
    task = tasks["long_context"]
    broken = task.model_copy(update={"reference": {**task.reference, "answer_text": 7}})
    decided = validate(broken)
    assert decided.status == "rejected"
    assert any("answer_text: Input should be a valid string" in reason for reason in decided.reasons)
