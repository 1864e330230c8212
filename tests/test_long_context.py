"""The long-context builder: ten categories, lengths 16K–128K, evolution, and real documents as a source.

Every category's task must score 1 with its reference and 0 with no-op answers,
pass every check, and be rejected when a defect is planted: the answer in the
question (leakage), a second solution (answerability), an evidence span that
does not state its fact (evidence).
"""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import replace
from pathlib import Path

import pytest

from taskforge.builders.base import BuildContext
from taskforge.builders.long_context import LongContextBuilder, state
from taskforge.builders.long_context.axes import root_axes, root_start
from taskforge.builders.long_context.categories import CATEGORIES, categories_for
from taskforge.builders.long_context.compose import assemble_world
from taskforge.builders.long_context.length import LengthNotMetError, LengthTarget
from conftest import SAMPLES
from taskforge.graders import scorer_for
from taskforge.graders.long_context.derive import DERIVATIONS, derive_rollup
from taskforge.graders.long_context.pieces import paragraphs_of, quantities_of
from taskforge.graders.long_context.solvers import (HARD_POOL_THRESHOLD, SHALLOW_SOLVERS, FirstMention, SentenceIndex,
                                                   anchors, content_words, estimate_success)
from taskforge.graders.long_context.values import (_LOWER_DATE_PATTERNS, _VERSION, _at_year_runs, _digit_runs,
                                                  _version_matches, date_mentions, dates_in, numbers_in,
                                                  quantities_each, quantities_in)
from taskforge.schemas import InputError, Message, PlanItem, Task
from taskforge.schemas.tokens import count_tokens
from taskforge.validators.runner import DEFAULT_CHECKS, validate

DOCUMENTS = SAMPLES / "documents"
ALL_BUT_SHORTCUT = tuple(c for c in DEFAULT_CHECKS if c.name != "shortcut")


def build(category: str, tokens: int = 3072, evolve: bool = False, quota: int = 1, **options) -> list[Task]:
    """Every candidate the builder emits for one category."""
    item = PlanItem(family="long_context", capability="finding_integration", quota=quota, gap_ids=["gap-t"],
                    priority=1.0)
    context = BuildContext(cycle_id="lc-test", options={"target_tokens": tokens, "categories": category,
                                                        "evolve": evolve, **options})
    return list(LongContextBuilder().build(item, context))


@pytest.fixture(scope="module")
def tasks() -> dict[str, Task]:
    """One root task per world-model category, at the shortest target it fits (3K at least)."""
    return {category: build(category, max(3072, getattr(CATEGORIES[category], "MIN_TOKENS", 0)))[0]
            for category in CATEGORIES}


def _failed(task: Task, checks=ALL_BUT_SHORTCUT) -> dict[str, str]:
    decided = validate(task, checks)
    return {r.check: r.reason for r in decided.validation if not r.passed}


def _with_question(task: Task, question: str) -> Task:
    user = task.prompt[1].content.replace(task.payload["question"], question)
    return task.model_copy(update={"payload": {**task.payload, "question": question},
                                   "prompt": [task.prompt[0], Message(role="user", content=user)]})


def _evidence_facts(task: Task) -> list[dict]:
    ids = {e["fact_id"] for e in task.payload["evidence"]}
    return [f for f in task.reference["facts"] if f["fact_id"] in ids]


def _conflicting_copy(task: Task) -> dict:
    """A second statement of an evidence fact that disagrees with it, so that a second answer is possible."""
    facts, category = _evidence_facts(task), task.payload["category"]
    fact = dict(facts[0], fact_id=facts[0]["fact_id"] + "-planted")
    if category == "timeline":
        fact["date"] = facts[1]["date"]
    elif category in ("cross_doc_integration",):
        fact["object"] = "Nowhere Else"
    elif category == "evidence_attribution":
        fact["doc_id"] = next(d["doc_id"] for d in task.payload["documents"] if d["doc_id"] != fact["doc_id"])
    elif category == "consistency":
        values = [f["value"] for f in facts]
        odd = next(f for f in facts if values.count(f["value"]) == 1)
        fact = dict(odd, fact_id=odd["fact_id"] + "-planted", doc_id="doc-planted")
    elif category == "rule_induction":
        fact["outcome"] = next(c for c in task.reference["query"]["classes"] if c != fact["outcome"])
    elif category == "state_tracking":
        fact = dict(next(f for f in facts if f["kind"] == "count"))
        fact.update(fact_id=fact["fact_id"] + "-planted", value=fact["value"] + 11)
    elif category == "version_impact":
        fact = dict(next(f for f in facts if f["kind"] == "uses"))
        fact.update(fact_id=fact["fact_id"] + "-planted", version="9.9.9")
    elif category == "set_aggregation":
        fact["funder"] = "Nobody Trust"
    elif category == "budget_rollup":
        fact = dict(next(f for f in facts if f["kind"] == "budget"))
        fact.update(fact_id=fact["fact_id"] + "-planted", amount=fact["amount"] + 250)
    elif category == "ledger_balance":
        fact = dict(next(f for f in facts if f["kind"] == "entry"))
        fact.update(fact_id=fact["fact_id"] + "-planted", amount=fact["amount"] + 250)
    return fact


@pytest.mark.parametrize("category", sorted(CATEGORIES))
def test_reference_scores_one_and_noop_zero(tasks, category):
    task = tasks[category]
    scorer = scorer_for(task.grader)
    assert scorer.score(scorer.reference_submission(task.reference, task.grader), task.reference, task.grader) == 1.0
    assert all(scorer.score(text, task.reference, task.grader) == 0.0 for text in ("", "insufficient information"))
    assert _failed(task) == {}, "a good task passes every check"


@pytest.mark.parametrize("category", sorted(CATEGORIES))
def test_answer_is_derived_from_the_world_model_and_recorded_with_all_axes(tasks, category):
    task = tasks[category]
    assert DERIVATIONS[category](task.reference["facts"], task.reference["query"]) == [task.reference["answer"]]
    assert set(task.payload["difficulty"]) == {
        "search_space", "answer_scope", "predicate_composition", "positional_nonlocality", "near_miss_strength",
        "distractor_dispersion", "lexical_gap", "state_transition_depth", "computational_depth", "derivation_depth"}
    assert len(task.payload["evidence"]) >= 2


@pytest.mark.parametrize("category", sorted(CATEGORIES))
def test_planted_answer_in_the_question_is_rejected(tasks, category):
    task = tasks[category]
    leaked = _with_question(task, task.payload["question"] + f"\n(It is {task.reference['answer_text']}.)")
    assert "leakage" in _failed(leaked)


@pytest.mark.parametrize("category", sorted(CATEGORIES))
def test_planted_second_solution_is_rejected(tasks, category):
    task = tasks[category]
    facts = task.reference["facts"] + [_conflicting_copy(task)]
    ambiguous = task.model_copy(update={"reference": {**task.reference, "facts": facts}})
    assert "admit" in _failed(ambiguous).get("reference", "")


@pytest.mark.parametrize("category", sorted(CATEGORIES))
def test_planted_evidence_span_that_does_not_state_its_fact_is_rejected(tasks, category):
    task = tasks[category]
    evidence = [dict(e) for e in task.payload["evidence"]]
    evidence[0].update(start=0, end=30)
    moved = task.model_copy(update={"payload": {**task.payload, "evidence": evidence}})
    assert "does not state" in _failed(moved).get("reference", "")


def test_same_seed_same_task_same_id():
    first, second = build("state_tracking")[0], build("state_tracking")[0]
    assert first.task_id == second.task_id and first.payload == second.payload


@pytest.mark.parametrize("tokens", [16384, 32768, 65536, 131072])
def test_measured_length_is_within_tolerance(tokens):
    (task,) = build("timeline", tokens=tokens)
    measured = count_tokens(task.prompt[0].content + task.prompt[1].content)
    assert measured == task.payload["context_tokens"]
    target = LengthTarget(tokens=tokens)
    assert target.accepts(measured), (measured, target.context_tokens)
    assert task.payload["target_tokens"] == tokens and task.payload["tolerance"] == 0.02


def test_core_content_longer_than_the_target_is_refused():
    with pytest.raises(LengthNotMetError, match="over the target"):
        build("rule_induction", tokens=1024, answer_reserve=600)


def test_roots_start_harder_than_the_easiest_levels():
    (root,) = build("cross_doc_integration")
    assert root.payload["difficulty"]["derivation_depth"] == 3 and root.payload["difficulty"]["near_miss_strength"] == 1
    (easy,) = build("cross_doc_integration", start="easiest")
    assert easy.payload["difficulty"]["derivation_depth"] == 2 and easy.payload["difficulty"]["near_miss_strength"] == 0


def test_evolution_makes_an_easy_task_harder_until_shortcuts_fail():
    emitted = build("timeline", tokens=4096, evolve=True, start="easiest")
    root, hard = emitted[0], emitted[-1]
    assert root.payload["evolution"]["pool"] == "seed" and root.lineage.parent_task_id is None
    assert hard.payload["evolution"]["pool"] == "hard"
    assert hard.payload["evolution"]["estimate"] <= HARD_POOL_THRESHOLD
    ids = {t.task_id: t for t in emitted}
    for child in emitted[1:]:
        parent = ids[child.lineage.parent_task_id]
        changed = [axis for axis in child.payload["evolution"]["changed_axes"]
                   if child.payload["difficulty"][axis] != parent.payload["difficulty"][axis]]
        assert len(changed) >= 2
        assert (child.kind, child.lineage.resource_id) == (parent.kind, parent.lineage.resource_id)
        assert parent.payload["evolution"]["estimate"] > HARD_POOL_THRESHOLD
    for task in emitted:
        assert "reference" not in _failed(task)
    assert validate(hard).status == "accepted"
    assert "too easy" in validate(root).reasons[-1]


def test_shortcut_solvers_expose_an_easy_task():
    (root,) = build("timeline", tokens=4096, start="easiest")
    scorer = scorer_for(root.grader)
    scores = {s.name: scorer.score(s.solve(root), root.reference, root.grader) for s in SHALLOW_SOLVERS}
    assert scores["keyword_lookup"] == 1.0, "quoted event wording plus one date each: keyword lookup solves it"


def test_capability_maps_to_categories():
    assert categories_for("history_tracking", (), documents=False) == ["state_tracking", "timeline", "budget_rollup",
                                                                       "ledger_balance"]
    assert categories_for("objective_tracking", (), documents=False) == ["version_impact", "set_aggregation"]
    assert categories_for("history_tracking", (), documents=True) == ["timeline"]
    assert categories_for("something_else", (), documents=False) == sorted(CATEGORIES)
    with pytest.raises(InputError, match="state_tracking"):
        categories_for("x", ("state_tracking",), documents=True)


@pytest.mark.parametrize("category", ["timeline", "cross_doc_integration", "evidence_attribution"])
def test_tasks_from_real_documents(category):
    (task,) = build(category, source=str(DOCUMENTS))
    assert _failed(task) == {}
    source = task.payload["source"]
    assert source["kind"] == "documents" and source["synthetic_filler_tokens"] > 0
    assert all(not Path(name).is_absolute() for name in source["files"]) and str(DOCUMENTS) not in str(source)
    originals = " ".join(" ".join(p.read_text().split()) for p in DOCUMENTS.iterdir())
    docs = {d["doc_id"]: d["text"] for d in task.payload["documents"]}
    for span in task.payload["evidence"]:
        assert " ".join(docs[span["doc_id"]][span["start"]:span["end"]].split()) in originals


def test_real_documents_fill_a_long_target_within_tolerance():
    (task,) = build("timeline", tokens=16384, source=str(DOCUMENTS))
    assert LengthTarget(tokens=16384).accepts(count_tokens(task.prompt[0].content + task.prompt[1].content))


def test_unusable_document_folders_are_named_in_the_error(tmp_path):
    with pytest.raises(InputError, match="no .md"):
        build("timeline", source=str(tmp_path))
    (tmp_path / "notes.md").write_bytes(b"caf\xe9 on 5 March 2021")
    with pytest.raises(InputError, match="notes.md: not UTF-8"):
        build("timeline", source=str(tmp_path))
    (tmp_path / "notes.md").write_text("Nothing here is dated at all.")
    with pytest.raises(InputError, match="usable dated statements"):
        build("timeline", source=str(tmp_path))


def test_positional_nonlocality_spreads_the_evidence():
    spreads = []
    for level in (0.2, 0.9):
        axes = replace(root_axes(state.KNOBS), positional_nonlocality=level, state_transition_depth=4)
        rng = random.Random(11)
        composition, world = state.compose(11, axes, rng)
        case = assemble_world(composition, world, LengthTarget(tokens=8192), rng, {"kind": "world_model"})
        spreads.append(case.payload["measures"]["evidence_spread"])
    assert spreads[0] < spreads[1]


class _SilentJudge:
    """Stands where a judge-model solver would: answers nothing."""

    name = "judge"

    def solve(self, task: Task) -> str:
        return ""


def test_extra_solvers_plug_into_the_estimate():
    item = PlanItem(family="long_context", capability="x", quota=1, gap_ids=[], priority=1.0)
    context = BuildContext(cycle_id="lc-judge", options={"target_tokens": 3072, "categories": "state_tracking"})
    (task,) = LongContextBuilder(solvers=(*SHALLOW_SOLVERS, _SilentJudge())).build(item, context)
    assert task.payload["evolution"]["solver_scores"]["judge"] == 0.0
    assert validate(task).status == "accepted", "scores of solvers the check does not re-run are taken as recorded"


def test_first_mention_answers_with_the_first_hit_of_a_text_search():
    index = SentenceIndex((("doc-1", "Rain fell. Kavel Institute employs Ana Tor. Ana Tor leads Project Ul."),
                           ("doc-2", "Kavel Institute employs Ben Sa.")))
    found = FirstMention().locate("the staff of Kavel Institute", index, lambda s: True)
    assert found.text == "Kavel Institute employs Ana Tor."
    assert "first_mention" in {solver.name for solver in SHALLOW_SOLVERS}


def test_a_probe_without_names_is_searched_for_its_longest_word_the_same_in_every_process():
    """Among content words of equal length the alphabetically first is searched for, never the first a set (in
    the hash seed's order) yields: a build from documents was not reproducible across processes."""
    assert anchors("when did the delta gamma alpha start") == ["alpha"]
    assert anchors("which grants went to Kavel Institute") == ["Kavel Institute"]


@pytest.mark.parametrize("category", sorted(CATEGORIES))
def test_a_whole_document_set_reads_the_quantities_its_sentences_read(tasks, category):
    """The most-frequent-answer solver reads every quantity from the whole text at once; it must be what the
    sentences read one by one, in order."""
    index = SentenceIndex(tuple((d["doc_id"], d["text"]) for d in tasks[category].payload["documents"]))
    assert quantities_in(index.text) == [q for sentence in index.sentences for q in sentence.quantities]


def test_texts_read_together_read_what_each_reads_alone():
    texts = ["On 3 May 2014,", "12", "-5", " 1,200.5", "v2.3.1", "May 3,", "2014 cost 7", "", "file 12/40", "1999",
             "12th", " on 2011-08-23.", "KA-4821", "3.", "5 items"]
    assert quantities_each(texts) == [quantities_in(text) for text in texts]


def _in_order(parts: list[str], text: str) -> bool:
    """Whether the parts occur in the text one after another (a written date that ended its sentence may have
    given its full stop to a clause put after it)."""
    at = 0
    for part in parts:
        part = part.removesuffix(".")
        at = text.find(part, at)
        if at < 0:
            return False
        at += len(part)
    return True


@pytest.mark.parametrize("setting", [("set_aggregation", 32768, True), ("version_impact", 32768, True),
                                     ("timeline", 131072, False), ("ledger_balance", 131072, False),
                                     ("budget_rollup", 32768, False)])
def test_a_document_written_from_values_reads_what_its_whole_text_reads(setting):
    """The most-frequent-answer solver joins the quantities of a document's remembered paragraphs (per filler
    sentence the values with digits it was given, each read once per process; fact sentences read whole): for
    every candidate of real builds they are the whole text's quantities in the same order, and the values and
    sentences remembered for a paragraph occur in it in that order."""
    category, tokens, evolve = setting
    item = PlanItem(family="long_context", capability="finding_integration", quota=1, gap_ids=["gap-t"],
                    priority=1.0)
    context = BuildContext(cycle_id="lc-pieces", options={"target_tokens": tokens, "categories": category,
                                                          "evolve": evolve})
    for task in LongContextBuilder().build(item, context):
        values = 0
        for doc in task.payload["documents"]:
            paragraphs = paragraphs_of(doc["text"])
            assert len(paragraphs) == len(doc["text"].split("\n\n"))
            for paragraph, written in zip(paragraphs, doc["text"].split("\n\n")):
                parts = [paragraph] if isinstance(paragraph, str) else [
                    part for sentence in paragraph for part in ([sentence] if isinstance(sentence, str) else sentence)]
                assert _in_order(parts, written)
                values += not isinstance(paragraph, str)
            assert quantities_of(doc["text"]) == quantities_in(doc["text"])
        assert values
        whole = "\n\n".join(doc["text"] for doc in task.payload["documents"])
        assert [q for doc in task.payload["documents"] for q in quantities_of(doc["text"])] == quantities_in(whole)


def test_dates_are_read_whatever_the_case_and_the_characters_around_them():
    """Dates are matched on the lower-cased text where that keeps every position and match (İ lower-cases to two
    characters; ı and ſ match i and s when case is ignored), and on the text itself elsewhere."""
    assert [(start, end) for start, end, _ in date_mentions("İ 3 MAY 2014, and on March 4, 2015.")] == [(2, 12),
                                                                                                       (21, 34)]
    assert dates_in("Sıgned 2014-05-03 and 3 may 2014") == {dt.date(2014, 5, 3)}
    assert dates_in("On the twenty-first of May 2014, and July 2015, on the 2nd; not the bathe of June 2016") == {
        dt.date(2014, 5, 21), dt.date(2015, 7, 2)}
    assert numbers_in("Paid 1,250 on 3 May 2014 (v2.1.0) to KA-12, and 7 more") == [1250.0, 7.0]
    assert dates_in("Paid on 1 Auguſt 2014, Auguſt 3, 2015 and the fifth of Auguſt 2016") == {
        dt.date(2014, 8, 1), dt.date(2015, 8, 3), dt.date(2016, 8, 5)}


def test_numeric_dates_and_versions_tried_at_runs_of_digits_are_what_a_scan_finds():
    """Numeric dates and versions are matched only at runs of digits (or the `v` before one): the same matches as
    a scan of the whole text, overlapping and back-to-back ones included."""
    texts = ["2014-05-03-2015-06-04 12014-05-03 2014-05-033 a2014-05-03 2014-5-03.", "v1.2.3v4.5 1.2.3.4 x1.2 "
             "V2.0.3-p1 .1.2 1.2. 3.4x 5.6.7-rc1 v9.8 -1.5 7.7.7.7 \u0663.\u0664.\u0665 0.0", "1.2.3 2014-05-03v1.2.3"]
    iso = _LOWER_DATE_PATTERNS[0][0]
    for text in texts:
        runs = _digit_runs(text)
        assert [m.span() for m in _version_matches(text, runs)] == [m.span() for m in _VERSION.finditer(text)]
        assert [m.span() for m in _at_year_runs(iso, text, runs)] == [m.span() for m in iso.finditer(text)]


def test_budget_rollup_cannot_be_finished_by_one_text_search(tasks):
    """The staff and their projects go unnamed, the projects' figures were revised (the first statement of a
    project is superseded), several projects are added up, and the question's words are not the evidence's: the
    grep-first-hit chase (organisation → first person → first project → first figure) and every other shortcut
    score 0."""
    task = tasks["budget_rollup"]
    facts, question = task.reference["facts"], task.payload["question"]
    evidence = {e["fact_id"] for e in task.payload["evidence"]}
    counted = {f["project"] for f in facts if f["fact_id"] in evidence and f["kind"] == "budget"}
    staff = {f["subject"] for f in facts if f["fact_id"] in evidence and f.get("relation") == "employed_by"}
    assert len(counted) >= 2 and not any(name in question for name in counted | staff)
    assert any(f["kind"] in ("budget", "proposal") and f["project"] in counted and f["fact_id"] not in evidence
               for f in facts)
    assert len({e["doc_id"] for e in task.payload["evidence"]}) >= 2
    documents = {d["doc_id"]: d["text"] for d in task.payload["documents"]}
    stated = " ".join(documents[e["doc_id"]][e["start"]:e["end"]] for e in task.payload["evidence"])
    assert not {"headed", "staff", "spend", "budget"} & content_words(question) & content_words(stated)
    scores = estimate_success(task)["solver_scores"]
    assert scores["first_mention"] == 0.0 and max(scores.values()) <= HARD_POOL_THRESHOLD


def test_rollup_replays_each_counted_project_from_its_last_figure_up_to_the_date():
    """Changes by an amount after the last figure count, later revisions and proposals do not; a person who left
    the organisation before the date does not count; a figure naming a ledger line counts only through the line's
    statement; two figures of one project on one day give two answers."""
    def budget(fact_id, kind, date, **value):
        return {"fact_id": fact_id, "kind": kind, "project": "Survey Ul", "line": "KA-1001", "date": date, **value}

    facts = [
        {"fact_id": "r1", "kind": "relation", "subject": "Survey Ul", "relation": "led_by", "object": "Ana Tor"},
        {"fact_id": "r2", "kind": "relation", "subject": "Ana Tor", "relation": "employed_by", "object": "Kavel Works"},
        {"fact_id": "r3", "kind": "negated", "subject": "Ben Sa", "relation": "employed_by", "object": "Kavel Works"},
        {"fact_id": "a1", "kind": "alias", "project": "Survey Ul", "line": "KA-1001"},
        budget("b1", "budget", "2015-01-01", amount=40000), budget("b2", "budget_change", "2015-01-20", delta=5000),
        budget("b3", "budget", "2015-02-01", amount=30000), budget("b4", "budget_change", "2015-03-01", delta=-2500),
        budget("b5", "proposal", "2015-03-15", amount=90000), budget("b6", "budget", "2015-09-01", amount=70000)]
    leaver = [{"fact_id": "r4", "kind": "relation", "subject": "Array Ve", "relation": "led_by", "object": "Cai Lo"},
              {"fact_id": "r5", "kind": "relation", "subject": "Cai Lo", "relation": "employed_by",
               "object": "Kavel Works"},
              {"fact_id": "m1", "kind": "move", "person": "Cai Lo", "to": "Ulsan Trust", "date": "2015-05-01"},
              {"fact_id": "b8", "kind": "budget", "project": "Array Ve", "line": None, "date": "2015-01-05",
               "amount": 10000},
              {"fact_id": "m2", "kind": "move", "person": "Ben Sa", "to": "Kavel Works", "date": "2015-08-01"}]
    facts += leaver
    query = {"organisation": "Kavel Works", "until": "2015-06-30"}
    assert derive_rollup(facts, query) == [27500]
    assert derive_rollup([f for f in facts if f["fact_id"] != "m1"], query) == [37500]
    assert derive_rollup([f for f in facts if f["fact_id"] != "a1"], query) == [None]
    assert derive_rollup(facts + [budget("b7", "budget", "2015-02-01", amount=31000)], query) == [27500, 28500]


def test_a_target_too_short_for_budget_rollup_builds_the_other_categories_in_turn():
    item = PlanItem(family="long_context", capability="general", quota=2, gap_ids=[], priority=1.0)
    context = BuildContext(cycle_id="lc-short", options={"target_tokens": 2048, "evolve": False})
    assert [t.kind for t in LongContextBuilder().build(item, context)] == sorted(CATEGORIES)[1:3]


STARTING_DEEP = ("budget_rollup", "ledger_balance")
"""Categories whose roots start at deep rungs at any length (the ledger deeper again from 64K)."""


@pytest.mark.parametrize("category", sorted(CATEGORIES))
def test_roots_start_no_easier_at_longer_targets_and_harder_from_16k(category):
    """A root at 16K, 32K and 128K is at least as hard on every knob as one at 3K (a longer context holds more to
    find, not only more filler); every category but those starting deep anyway starts a rung up on near misses
    and on what there is to find from 16K, and words its question apart from the evidence from 32K."""
    module = CATEGORIES[category]
    short = root_axes(module.KNOBS, root_start(module, 3072))
    longer = [root_axes(module.KNOBS, root_start(module, tokens)) for tokens in (16384, 32768, 131072)]
    for axes in longer:
        for axis, levels in module.KNOBS.items():
            assert levels.index(getattr(axes, axis)) >= levels.index(getattr(short, axis)), (axis, axes)
    if category not in STARTING_DEEP:
        assert longer[0].near_miss_strength > short.near_miss_strength
        assert longer[0].search_space > short.search_space
        assert longer[1].lexical_gap == 1 and short.lexical_gap == 0
