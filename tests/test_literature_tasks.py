"""Literature tasks on a generated collection of 300 papers: every kind accepted, scored 1 by its reference and
0 by no-op; planted defects rejected by the check that owns them."""

from __future__ import annotations

import json

import pytest

from taskforge.builders.literature.collection import load_collection
from taskforge.builders.literature.kinds import KINDS
from factories import literature_tasks, paper_collection
from taskforge.graders import scorer_for
from taskforge.graders.literature.concepts import content_text, mentions_concept
from taskforge.graders.literature.papers import PaperCollection, save_snapshot
from taskforge.schemas import Message
from taskforge.validators.questions import QUESTIONS, parts_of
from taskforge.validators.runner import default_checks, validate


EARLIER = ("find_papers", "select_evidence", "fulltext_qa", "table_synthesis")
"""The kinds built at the indices they had before described_finding joined the mix (their tasks stay the same)."""


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("literature")
    source = paper_collection(root / "papers.jsonl")
    data_dir = root / "data"
    tasks = literature_tasks(source, data_dir, list(EARLIER), per_kind=2) + literature_tasks(
        source, data_dir, [k for k in KINDS if k not in EARLIER], per_kind=2)
    return {"source": source, "data_dir": data_dir, "tasks": {t.kind: t for t in tasks[::2]},
            "all": tasks, "checks": default_checks(data_dir)}


def _decide(built, task):
    return validate(task, built["checks"])


def _failed(decided) -> dict[str, str]:
    """Reasons of the failed checks and of the failed parts of their strategies, by name."""
    failed = {}
    for result in decided.validation:
        if not result.passed:
            failed[result.check] = result.reason
            failed.update({name: part.reason for name, part in parts_of(result).items() if not part.passed})
    return failed


def _with_user(task, text: str):
    return task.model_copy(update={"prompt": [task.prompt[0], Message(role="user", content=text)]})


def _environment_on(built, task, collection: PaperCollection):
    """The task pointed at another snapshot of its collection (as if the index shipped with it were that one)."""
    save_snapshot(collection, built["data_dir"])
    environment = {**task.environment, "collection": {**task.environment["collection"], "version": collection.version}}
    return task.model_copy(update={"environment": environment})


@pytest.mark.parametrize("kind", KINDS)
def test_each_kind_is_accepted_with_reference_one_and_noop_zero(built, kind):
    task = built["tasks"][kind]
    decided = _decide(built, task)
    assert decided.status == "accepted", decided.reasons
    checks = [r.check for r in decided.validation]
    assert checks == list(QUESTIONS)
    assert "reachability" in next(r for r in decided.validation if r.check == "reference").detail["strategy"]
    scorer = scorer_for(task.grader)
    assert scorer.score(scorer.reference_submission(task.reference, task.grader), task.reference, task.grader) == 1.0
    assert all(scorer.score(s, task.reference, task.grader) == 0.0 for s in scorer.noop_submissions(task.grader))
    assert task.environment["collection"]["version"] == task.lineage.resource_revision
    assert task.payload["collection"]["version"] == task.lineage.resource_revision


def test_every_built_task_is_accepted_and_building_again_gives_the_same_ids(built):
    assert all(_decide(built, t).status == "accepted" for t in built["all"])
    again = literature_tasks(built["source"], built["data_dir"], list(EARLIER), per_kind=2) + literature_tasks(
        built["source"], built["data_dir"], [k for k in KINDS if k not in EARLIER], per_kind=2)
    assert [t.task_id for t in again] == [t.task_id for t in built["all"]]
    assert len({t.task_id for t in again}) == len(again)


def test_find_papers_gold_set_is_what_the_constraints_select(built):
    task = built["tasks"]["find_papers"]
    collection = load_collection(built["source"]).collection
    constraints = {c["type"]: c for c in task.payload["constraints"]}
    forms = constraints["mentions"]["forms"]
    assert all(f"“{form}”" in task.payload["question"] for form in forms)

    selected = sorted(p.paper_id for p in collection.papers
                      if constraints["cites"]["paper_id"] in p.references
                      and mentions_concept(content_text(p), forms)
                      and ("published_after" not in constraints or p.year > constraints["published_after"]["year"]))
    assert selected == task.reference["answer"] and len(selected) >= 2


def test_partial_answers_score_between_zero_and_one(built):
    find, select = built["tasks"]["find_papers"], built["tasks"]["select_evidence"]
    f1 = scorer_for(find.grader).score(f"Answer: {find.reference['answer'][0]}", find.reference, find.grader)
    assert 0 < f1 < 1
    answer = dict(select.reference["answer"])
    noisy = json.dumps({**answer, "papers": answer["papers"] + select.reference["distractor_ids"][:1]})
    assert 0 < scorer_for(select.grader).score(noisy, select.reference, select.grader) < 1
    table = built["tasks"]["table_synthesis"]
    cells = json.loads(json.dumps(table.reference["answer"]))
    first = table.grader["rows"][0]
    cells[first]["year"] = cells[first]["year"] + 1
    reply = f"Here is the table:\n```json\n{json.dumps(cells)}\n```"
    total = len(table.grader["rows"]) * len(table.grader["columns"])
    assert scorer_for(table.grader).score(reply, table.reference, table.grader) == round((total - 1) / total, 6)
    qa = built["tasks"]["fulltext_qa"]
    wrong = next(letter for letter in qa.grader["options"] if letter != qa.reference["answer"])
    assert scorer_for(qa.grader).score(f"Answer: {wrong}", qa.reference, qa.grader) == 0.0


def test_planted_question_naming_its_answer_is_rejected_by_leakage(built):
    task = built["tasks"]["find_papers"]
    gold = next(p for p in task.reference["papers"] if p["role"] == "gold")
    leaked = _with_user(task, task.prompt[1].content + f"\nFor instance “{gold['title']}” is one of them.")
    assert "by its title" in _failed(_decide(built, leaked))["leakage"]
    by_id = _with_user(task, task.prompt[1].content + f"\nStart from {gold['paper_id']}.")
    assert f"names answer paper {gold['paper_id']}" in _failed(_decide(built, by_id))["leakage"]


def test_planted_answers_in_other_kinds_prompts_are_rejected_by_leakage(built):
    qa = built["tasks"]["fulltext_qa"]
    hint = f"(Hint: {qa.reference['answer_text']}) Which number"
    hinted = _with_user(qa, qa.prompt[1].content.replace("Which number", hint))
    assert "outside the options" in _failed(_decide(built, hinted))["leakage"]
    select = built["tasks"]["select_evidence"]
    gold = select.reference["gold_ids"][0]
    singled = _with_user(select, select.prompt[1].content + f"\nStart with {gold}.")
    assert f"gold paper {gold} is singled out" in _failed(_decide(built, singled))["leakage"]
    table = built["tasks"]["table_synthesis"]
    row, cells = next(iter(table.reference["answer"].items()))
    shown = _with_user(table, table.prompt[1].content.replace(f"- {row}:", f"- {row} ({cells['venue']}):"))
    assert f"the venue of {row}" in _failed(_decide(built, shown))["leakage"]


def test_planted_gold_paper_missing_from_the_index_is_rejected_by_reachability(built):
    task = built["tasks"]["find_papers"]
    collection = load_collection(built["source"]).collection
    missing = task.reference["answer"][0]
    without = PaperCollection(collection.collection_id, [p for p in collection.papers if p.paper_id != missing])
    reason = _failed(_decide(built, _environment_on(built, task, without)))["reachability"]
    assert f"gold paper {missing} is not in the index" in reason


def test_planted_unfollowable_reference_path_is_rejected_by_reachability(built):
    task = built["tasks"]["fulltext_qa"]
    path = [dict(step) for step in task.reference["tool_path"]]
    path[0] = {"tool": "search", "arguments": {"query": "zebra crossing", "k": 5}}
    strayed = task.model_copy(update={"reference": {**task.reference, "tool_path": path}})
    reason = _failed(_decide(built, strayed))["reachability"]
    assert "words the prompt does not contain (crossing, zebra)" in reason
    assert "reads " in reason and "which neither the prompt nor an earlier result shows" in reason


def test_reachability_without_a_data_dir_fails_with_a_clear_reason(built):
    decided = validate(built["tasks"]["table_synthesis"], default_checks(None))
    assert "no data dir given" in _failed(decided)["reachability"]


def test_planted_distractor_identical_to_the_gold_is_rejected(built):
    qa = built["tasks"]["fulltext_qa"]
    options = dict(qa.payload["options"])
    wrong = next(x for x in options if x not in (qa.reference["answer"], qa.payload["insufficient_option"]))
    options[wrong] = qa.reference["answer_text"]
    twin = qa.model_copy(update={"payload": {**qa.payload, "options": options}})
    assert "are the same" in _failed(_decide(built, twin))["distractors"]

    select = built["tasks"]["select_evidence"]
    collection = load_collection(built["source"]).collection
    gold, distractor = select.reference["gold_ids"][0], select.reference["distractor_ids"][0]
    copied = [p.model_copy(update={"sections": collection.by_id[gold].sections}) if p.paper_id == distractor else p
              for p in collection.papers]
    reason = _failed(_decide(built, _environment_on(built, select, PaperCollection("papers", copied))))["distractors"]
    assert f"distractor {distractor} supports the claim as the gold does" in reason
