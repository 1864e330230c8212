"""described_finding on a generated collection: a built task is accepted (reference 1, no-op 0); a description two
papers meet, an ambiguous finding, a distractor the paper states and a named gold paper are rejected."""

from __future__ import annotations

import pytest

from factories import literature_tasks, paper_collection
from taskforge.graders import scorer_for
from taskforge.graders.literature.environment import environment_for
from taskforge.graders.literature.papers import PaperCollection, Section, save_snapshot
from taskforge.schemas import Message
from taskforge.validators.questions import parts_of
from taskforge.validators.runner import default_checks, validate


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("described")
    data_dir = root / "data"
    (task,) = literature_tasks(paper_collection(root / "papers.jsonl"), data_dir, ["described_finding"])
    return {"task": task, "data_dir": data_dir, "checks": default_checks(data_dir)}


def _failed(built, task) -> dict[str, str]:
    """Reasons of the failed checks and of the failed parts of their strategies, by name."""
    failed = {}
    for result in validate(task, built["checks"]).validation:
        if not result.passed:
            failed[result.check] = result.reason
            failed.update({name: part.reason for name, part in parts_of(result).items() if not part.passed})
    return failed


def _on_snapshot(built, change) -> object:
    """The task pointed at its collection with `change(papers, gold)` applied (as if the index were that one)."""
    task = built["task"]
    collection = environment_for(task.environment, built["data_dir"]).collection
    papers = [p.model_copy(deep=True) for p in collection.papers]
    gold = next(p for p in papers if p.paper_id == task.reference["gold_ids"][0])
    changed = PaperCollection(collection.collection_id, change(papers, gold))
    save_snapshot(changed, built["data_dir"])
    spec = {**task.environment, "collection": {**task.environment["collection"], "version": changed.version}}
    return task.model_copy(update={"environment": spec})


def _stating(gold, value: str, task) -> None:
    """The gold paper with one more sentence stating `value` for the metric and setting asked."""
    asked = task.payload["asked"]
    gold.sections.append(Section(name="Addendum", text=f"{asked['setting'][0]} reaches {value} {asked['metric']} "
                                                         f"here with {' and '.join(asked['setting'])}."))


def test_a_built_task_describes_its_paper_without_naming_it_and_is_accepted(built):
    task = built["task"]
    decided = validate(task, built["checks"])
    assert decided.status == "accepted", decided.reasons
    scorer = scorer_for(task.grader)
    assert scorer.score(f"Answer: {task.reference['answer']}", task.reference, task.grader) == 1.0
    assert scorer.score("", task.reference, task.grader) == 0.0
    assert task.reference["papers"][-1]["title"] not in task.prompt[1].content
    assert [s["tool"] for s in task.reference["tool_path"]][0] == "search"


def test_a_description_two_papers_meet_is_rejected(built):
    def twin(papers, gold):
        return papers + [gold.model_copy(update={"paper_id": gold.paper_id + "-twin"})]
    failed = _failed(built, _on_snapshot(built, twin))
    assert "2 papers of the snapshot meet the description" in failed["rederived_answer"]


def test_an_ambiguous_finding_is_rejected(built):
    value = built["task"].reference["answer_text"]
    other = f"{float(value) + 11.1:.1f}"
    task = _on_snapshot(built, lambda papers, gold: _stating(gold, other, built["task"]) or papers)
    assert "states 2 numbers" in _failed(built, task)["rederived_answer"]


def test_a_distractor_the_paper_states_is_rejected(built):
    task = built["task"]
    wrong = next(v for k, v in task.payload["options"].items()
                 if k not in (task.reference["answer"], task.payload["insufficient_option"]))
    planted = _on_snapshot(built, lambda papers, gold: _stating(gold, wrong, task) or papers)
    assert "is stated by" in _failed(built, planted)["distractors"]


def test_a_prompt_naming_the_gold_paper_is_rejected_by_leakage(built):
    task = built["task"]
    title = task.reference["papers"][-1]["title"]
    named = task.model_copy(update={"prompt": [task.prompt[0], Message(role="user", content=f"In “{title}”: "
                                                                       + task.prompt[1].content)]})
    assert "by its title" in _failed(built, named)["literature_leaks"]
