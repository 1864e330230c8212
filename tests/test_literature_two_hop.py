"""find_papers_2hop on a generated collection: a built task (papers cited alongside an anchor, two citation hops
out) is accepted and its reference path reads every citing paper's references; a stored gold set missing a two-hop
paper, or listing a paper one hop away, is rejected by the re-derived answer."""

from __future__ import annotations

import pytest

from factories import literature_tasks, paper_collection
from taskforge.graders import scorer_for
from taskforge.graders.literature.citations import co_cited
from taskforge.graders.literature.concepts import content_text, mentions_concept
from taskforge.graders.literature.environment import environment_for
from taskforge.validators.literature.rederive import RederivedAnswer
from taskforge.validators.runner import default_checks, validate


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("two_hop")
    data_dir = root / "data"
    (task,) = literature_tasks(paper_collection(root / "papers.jsonl"), data_dir, ["find_papers_2hop"])
    collection = environment_for(task.environment, data_dir).collection
    anchor = next(c["paper_id"] for c in task.payload["constraints"] if c["type"] == "co_cited_with")
    return {"task": task, "data_dir": data_dir, "collection": collection, "anchor": anchor}


def _with_gold(task, gold: list[str]):
    answer = sorted(gold)
    return task.model_copy(update={"reference": {**task.reference, "answer": answer, "answer_text": ", ".join(answer),
                                                 "gold_ids": answer}})


def _rederived(built, task):
    return RederivedAnswer(built["data_dir"]).run(task)


def test_a_built_task_is_accepted_and_its_gold_is_two_hops_from_the_anchor(built):
    task, collection, anchor = built["task"], built["collection"], built["anchor"]
    decided = validate(task, default_checks(built["data_dir"]))
    assert decided.status == "accepted", decided.reasons
    citing = set(collection.cited_by[anchor]) - {anchor}
    gold = task.reference["answer"]
    assert 2 <= len(gold) <= 8 and not citing.intersection(gold) and anchor not in gold
    assert all(any(g in collection.by_id[c].references for c in citing) for g in gold)
    assert len(gold) <= 0.25 * len(co_cited(collection, anchor))
    reads = {s["arguments"]["paper_id"] for s in task.reference["tool_path"]
             if s["arguments"].get("section") == "references"}
    assert reads == citing
    assert collection.by_id[anchor].title in task.prompt[1].content
    scorer = scorer_for(task.grader)
    assert scorer.score(scorer.reference_submission(task.reference, task.grader), task.reference, task.grader) == 1.0


def test_a_gold_set_missing_a_two_hop_paper_is_rejected(built):
    task = built["task"]
    left_out, *rest = task.reference["answer"]
    result = _rederived(built, _with_gold(task, rest))
    assert not result.passed and f"leaves out {left_out}" in result.reason


def test_a_paper_one_hop_from_the_anchor_in_the_gold_set_is_rejected(built):
    task, collection, anchor = built["task"], built["collection"], built["anchor"]
    forms = next(c["forms"] for c in task.payload["constraints"] if c["type"] == "mentions")
    citing = sorted(set(collection.cited_by[anchor]) - {anchor})
    one_hop = next((c for c in citing if mentions_concept(content_text(collection.by_id[c]), forms)), citing[0])
    result = _rederived(built, _with_gold(task, [*task.reference["answer"], one_hop]))
    assert not result.passed and f"lists {one_hop}" in result.reason
