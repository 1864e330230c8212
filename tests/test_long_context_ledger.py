"""The ledger_balance category: the balance of one account replayed from many scattered bookings.

The answer is re-derived from the statements' facts (aliases, handovers, landmark days, amendments); a good
task passes every check and needs many facts; its filler speaks the ledger's language many times more often
than the facts do, yet never names what the derivation resolves; planted defects are rejected: a wrong
reference answer, a reference that counts a decoy (a transfer that was never made), and an answer a first
text search finds.
"""

from __future__ import annotations

import datetime as dt
import re

import pytest

from taskforge.builders.base import BuildContext
from taskforge.builders.long_context import LongContextBuilder
from taskforge.builders.long_context import ledger
from taskforge.builders.long_context.axes import root_start
from taskforge.builders.long_context.ledger import MIN_TOKENS
from taskforge.builders.long_context.render import in_words
from taskforge.graders.long_context.derive import AMENDMENTS, day_of, derive_ledger
from taskforge.graders.long_context.prompting import rendered_messages
from taskforge.builders.long_context.filler import has_ledger_words
from taskforge.graders.long_context.solvers import estimate_success, sentences_of
from taskforge.graders.long_context.values import dates_in
from taskforge.schemas import Message, PlanItem, Task
from taskforge.validators.runner import DEFAULT_CHECKS, validate


def _build(capability: str = "history_tracking", quota: int = 1, **options) -> list[Task]:
    item = PlanItem(family="long_context", capability=capability, quota=quota, gap_ids=["gap-l"], priority=1.0)
    context = BuildContext(cycle_id="ledger-test", options={"target_tokens": MIN_TOKENS, "evolve": False, **options})
    return list(LongContextBuilder().build(item, context))


@pytest.fixture(scope="module")
def task() -> Task:
    """One root ledger_balance task."""
    return _build(categories="ledger_balance")[0]


def _failed(task: Task) -> dict[str, str]:
    return {r.check: r.reason for r in validate(task, DEFAULT_CHECKS).validation if not r.passed}


def _with_answer(task: Task, answer: int) -> Task:
    return task.model_copy(update={"reference": {**task.reference, "answer": answer, "answer_text": str(answer)}})


def test_ledger_replays_bookings_through_aliases_handovers_landmarks_and_amendments():
    """Opening 10000; +1000 named by code, -300 named by the administrator of that day, +400 dated from a
    landmark and corrected to 450, +2000 voided, +700 reversed after the date (still counts), +900 reversed before
    it, +600 paid into another account and rebooked onto this one, +5000 after the date, and a plan that is never
    read: 10000 + 1000 - 300 + 450 + 700 + 600 = 12450."""
    def entry(entry_id, amount, when, source=None, sink=None):
        return {"fact_id": entry_id, "kind": "entry", "entry": entry_id, "amount": amount, "when": when,
                "source": source, "sink": sink}

    code, other = {"code": "KA-1001"}, {"code": "TE-2002"}
    facts = [
        {"fact_id": "a1", "kind": "alias", "name": "the Kavel reserve", "ref": {"name": "the Ul fund"}},
        {"fact_id": "a2", "kind": "alias", "name": "the Ul fund", "ref": code},
        {"fact_id": "o1", "kind": "opening", "account": {"name": "the Ul fund"}, "amount": 10000, "date": "2015-01-01"},
        {"fact_id": "s1", "kind": "steward", "person": "Ana Tor", "account": other, "date": "2015-01-01"},
        {"fact_id": "s2", "kind": "steward", "person": "Ana Tor", "account": code, "date": "2015-03-01"},
        {"fact_id": "s3", "kind": "steward", "person": "Ben Sa", "account": other, "date": "2015-03-01"},
        {"fact_id": "l1", "kind": "landmark", "event": "the Tarn shipment", "date": "2015-04-10"},
        entry("e1", 1000, {"date": "2015-02-01"}, sink=code),
        entry("e2", 300, {"date": "2015-03-05"}, source={"steward": "Ana Tor"}, sink=other),
        entry("e3", 400, {"landmark": "the Tarn shipment", "offset": -1}, sink={"name": "the Kavel reserve"}),
        entry("e4", 2000, {"date": "2015-05-01"}, sink=code),
        entry("e5", 700, {"date": "2015-05-02"}, source=other, sink=code),
        entry("e6", 900, {"date": "2015-05-03"}, sink=code),
        entry("e7", 5000, {"date": "2015-07-01"}, sink=code),
        entry("e8", 800, {"date": "2015-02-02"}, source={"steward": "Ana Tor"}),
        entry("e9", 600, {"date": "2015-05-10"}, sink=other),
        {"fact_id": "c1", "kind": "correction", "target": {"date": "2015-04-09"}, "amount": 450},
        {"fact_id": "v1", "kind": "void", "target": {"landmark": "the Tarn shipment", "offset": 21}},
        {"fact_id": "r1", "kind": "reversal", "target": {"date": "2015-05-02"}, "date": "2015-06-15"},
        {"fact_id": "r2", "kind": "reversal", "target": {"date": "2015-05-03"}, "date": "2015-05-20"},
        {"fact_id": "b1", "kind": "rebooking", "target": {"date": "2015-05-10"}, "side": "sink",
         "account": {"name": "the Ul fund"}},
        {"fact_id": "p1", "kind": "plan", "source": other, "sink": code, "amount": 3000, "date": "2015-04-01"},
    ]
    query = {"account": {"name": "the Kavel reserve"}, "until": "2015-06-01"}
    assert derive_ledger(facts, query) == [12450], "e8 leaves the account Ana Tor ran then (TE-2002), not this one"
    without = lambda fact_id: [f for f in facts if f["fact_id"] != fact_id]  # noqa: E731
    assert derive_ledger(without("s3"), query) == [None], "without Ben Sa's handover Ana Tor runs two accounts"
    assert derive_ledger(without("a2"), query) == [None], "an alias that is never resolved leaves it open"
    assert derive_ledger(without("e4"), query) == [None], "a void whose day holds no booking leaves it open"
    assert derive_ledger(without("l1"), query) == [None], "a day given from an undated landmark leaves it open"
    assert derive_ledger(without("b1"), query) == [11850], "without its rebooking e9 is another account's"
    assert derive_ledger(without("r1"), query) == [12450], "a reversal dated after the day changes nothing yet"
    assert derive_ledger(facts, {**query, "until": "2015-06-30"}) == [11750], "once reversed, e5 no longer counts"
    planted = dict(facts[8], fact_id="e2-planted", amount=350)
    assert derive_ledger(facts + [planted], query) == [12450, 12400], "two readings of one booking: two answers"


def test_a_renamed_name_names_one_account_before_its_day_and_another_from_it_on():
    """'The Pot fund' is account KA-1001 until 1 March, then TE-2002: a booking to it in February is KA-1001's,
    one in April TE-2002's; the question's phrase is read as of its own day."""
    code, other = {"code": "KA-1001"}, {"code": "TE-2002"}
    pot = {"name": "the Pot fund"}
    facts = [
        {"fact_id": "a1", "kind": "alias", "name": "the Pot fund", "ref": code},
        {"fact_id": "a2", "kind": "alias", "name": "the Pot fund", "ref": other, "date": "2015-03-01"},
        {"fact_id": "o1", "kind": "opening", "account": code, "amount": 10000, "date": "2015-01-01"},
        {"fact_id": "o2", "kind": "opening", "account": other, "amount": 5000, "date": "2015-01-01"},
        {"fact_id": "e1", "kind": "entry", "entry": "e1", "amount": 500, "when": {"date": "2015-02-01"},
         "source": None, "sink": pot},
        {"fact_id": "e2", "kind": "entry", "entry": "e2", "amount": 700, "when": {"date": "2015-04-01"},
         "source": None, "sink": pot},
    ]
    assert derive_ledger(facts, {"account": code, "until": "2015-06-01"}) == [10500]
    assert derive_ledger(facts, {"account": other, "until": "2015-06-01"}) == [5700]
    assert derive_ledger(facts, {"account": pot, "until": "2015-06-01"}) == [5700]
    assert derive_ledger(facts, {"account": pot, "until": "2015-02-15"}) == [10500]
    assert derive_ledger(facts[:1] + facts[2:], {"account": code, "until": "2015-06-01"}) == [11200], \
        "without the renaming both bookings are KA-1001's"


def test_amounts_in_words():
    assert in_words(4250) == "four thousand two hundred and fifty"
    assert in_words(30050) == "thirty thousand and fifty"
    assert in_words(15700) == "fifteen thousand seven hundred"


def test_good_task_is_accepted_and_needs_many_scattered_facts(task):
    """Every check passes (shortcuts included); the answer needs a score of facts over several documents, among
    them aliases and amendments that name no account; the question names neither the account's code nor its
    nickname; every shortcut solver scores 0."""
    assert _failed(task) == {}
    facts = {f["fact_id"]: f for f in task.reference["facts"]}
    evidence = [facts[e["fact_id"]] for e in task.payload["evidence"]]
    kinds = {f["kind"] for f in evidence}
    assert len(evidence) >= 15 and {"entry", "alias", "opening"} <= kinds
    assert kinds & {"void", "correction", "reversal"}
    assert len({e["doc_id"] for e in task.payload["evidence"]}) >= 3
    codes = {f["ref"]["code"] for f in facts.values() if f["kind"] == "alias" and "code" in f["ref"]}
    nicknames = {f["name"] for f in facts.values() if f["kind"] == "alias" and f["name"].endswith(" fund")}
    assert not any(name in task.payload["question"] for name in codes | nicknames)
    assert ledger.ADMINISTRATION_RULE in task.payload["question"], "the question says how handovers are read"
    assert any(f["kind"] == "plan" for f in facts.values()), "decoys that were never booked sit beside the facts"
    renamings = [f for f in facts.values() if f["kind"] == "alias" and f.get("date")]
    assert len(renamings) == 1 and len([f for f in facts.values() if f.get("name") == renamings[0]["name"]]) == 2
    assert set(estimate_success(task)["solver_scores"].values()) == {0.0}


def test_planted_wrong_answer_is_rejected(task):
    assert "world model gives" in _failed(_with_answer(task, task.reference["answer"] + 50)).get("reference", "")


def test_planted_reference_that_counts_a_decoy_is_rejected(task):
    """A reference that books a transfer that was only planned (or proposed, or imagined) is not what the
    statements give."""
    facts = task.reference["facts"]
    plan = next(f for f in facts if f["kind"] == "plan")
    booked = dict(plan, kind="entry", entry="planted", when={"date": plan["date"]})
    counted = derive_ledger(facts + [booked], task.reference["query"])
    assert counted != [task.reference["answer"]]
    assert "world model gives" in _failed(_with_answer(task, counted[0])).get("reference", "")


def test_planted_answer_at_the_first_mention_is_rejected(task):
    """A statement of the balance put before everything else: the first hit of a search for the account's
    phrase gives the answer, and the shortcut check rejects the task."""
    account = task.reference["query"]["account"]["name"]
    said = f"The {account.removeprefix('the ')} held {task.reference['answer_text']} credits that evening. "
    documents = [dict(d) for d in task.payload["documents"]]
    first = documents[0]["doc_id"]
    documents[0]["text"] = said + documents[0]["text"]

    def shifted(span: dict) -> dict:
        return {**span, "start": span["start"] + len(said), "end": span["end"] + len(said)} \
            if span["doc_id"] == first else span

    payload = {**task.payload, "documents": documents, "evidence": [shifted(e) for e in task.payload["evidence"]]}
    reference = {**task.reference, "facts": [shifted(f) for f in task.reference["facts"]]}
    messages = [Message(**m) for m in rendered_messages(documents, task.payload["question"])]
    planted = task.model_copy(update={"payload": payload, "reference": reference, "prompt": messages})
    failed = _failed(planted)
    assert "first_mention" in failed.get("shortcut", "") and "reference" not in failed


def test_history_tracking_batches_include_the_category():
    assert "ledger_balance" in {t.kind for t in _build(quota=4)}


@pytest.fixture(scope="module")
def long_task() -> Task:
    """One root ledger_balance task of 32K tokens."""
    return _build(categories="ledger_balance", target_tokens=32768)[0]


def _filler_and_facts(task: Task) -> tuple[list[str], list[str]]:
    """The task's filler sentences and its fact sentences."""
    texts = {d["doc_id"]: d["text"] for d in task.payload["documents"]}
    facts = {texts[f["doc_id"]][f["start"]:f["end"]] for f in task.reference["facts"]}
    sentences = [s.text.strip() for s in sentences_of(task.payload["documents"])]
    return [s for s in sentences if s not in facts], [s for s in sentences if s in facts]


def _resolved_names(task: Task) -> set[str]:
    """What the derivation resolves: the accounts' codes, nicknames and reserves, their owners, administrators,
    landmark events and the places of those events."""
    names = set()
    for fact in task.reference["facts"]:
        if fact["kind"] == "alias":
            names |= {fact["name"], *fact["ref"].values()}
            names |= set(re.findall(r"reserve of (.+)$", fact["name"]))
        elif fact["kind"] == "steward":
            names |= {fact["person"], *fact["account"].values()}
        elif fact["kind"] == "landmark":
            names |= {fact["event"], *re.findall(r"[A-Z][a-z]+ [A-Z][a-z]+", fact["event"])}
    return {name.removeprefix("the ") for name in names}


def _naming(sentences: list[str], names: set[str]) -> list[str]:
    return [s for s in sentences if any(name in s for name in names)]


def test_filler_speaks_the_ledgers_language_without_naming_what_the_derivation_resolves(long_task):
    """A search for the ledger's words returns at least five filler sentences per fact sentence, and no filler
    sentence names an account's code, nickname or reserve, its owner, an administrator or a landmark (nor its
    place): filler cannot make the asked balance ambiguous."""
    filler, facts = _filler_and_facts(long_task)
    assert sum(map(has_ledger_words, filler)) >= 5 * sum(map(has_ledger_words, facts))
    names = _resolved_names(long_task)
    codes = {name for name in names if re.fullmatch(r"[A-Z]{2}-\d{4}", name)}
    assert len(codes) >= 5 and any(name.endswith(" fund") for name in names) and any(" " in n for n in names)
    assert _naming(filler, names) == []
    planted = f"{filler[0][:-1]}, as account {sorted(codes)[0]} shows."
    assert _naming([planted], names) == [planted], "a filler sentence naming an asked account is caught"
    assert _failed(long_task) == {}


def test_no_filler_sentence_falls_on_a_day_an_amendment_names(long_task):
    """An amendment names its booking only by the day ("the entry of 3 May 2014 is void"): no filler sentence is
    dated on such a day, so the one booking of that day stays the only one a reader can match."""
    facts = long_task.reference["facts"]
    landmarks = {f["event"]: dt.date.fromisoformat(f["date"]) for f in facts if f["kind"] == "landmark"}
    amended = {day_of(f["target"], landmarks) for f in facts if f["kind"] in AMENDMENTS}
    filler, _ = _filler_and_facts(long_task)
    assert len(amended) >= 4 and sum(1 for sentence in filler if dates_in(sentence)) > 100
    assert [sentence for sentence in filler if dates_in(sentence) & amended] == []


def test_a_renamed_name_says_when_it_stops_naming_its_first_account(task):
    """The name a renaming later moves is introduced with the day it stops naming its first account, never in
    the present tense; references by administrator say the administrator of that time."""
    text = " ".join(d["text"] for d in task.payload["documents"])
    moved = next(f for f in task.reference["facts"] if f["kind"] == "alias" and f.get("date"))
    first = next(f for f in task.reference["facts"] if f["kind"] == "alias" and f["name"] == moved["name"]
                 and not f.get("date"))
    texts = {d["doc_id"]: d["text"] for d in task.payload["documents"]}
    assert dt.date.fromisoformat(moved["date"]) in dates_in(texts[first["doc_id"]][first["start"]:first["end"]])
    assert re.search(r"administered at the time|then in \w+ \w+'s care", text)
    assert not re.findall(r"administered(?! at the time)|(?<!then )in \w+ \w+'s care", text)


def test_longer_targets_start_deeper_with_more_amendments(task):
    """A 64K root replays 32 bookings of the asked account with two rounds of amendments, where a root of the
    minimum length replays 16 with one, and a 128K root 96: the facts to integrate grow with the context, not only
    the filler."""
    assert [root_start(ledger, tokens)["state_transition_depth"] for tokens in (MIN_TOKENS, 32768, 65536, 131072)] \
        == [16, 16, 32, 96]
    deeper = _build(categories="ledger_balance", target_tokens=65536)[0]
    assert _failed(deeper) == {}

    def counted(built: Task) -> tuple[int, int]:
        facts = {f["fact_id"]: f for f in built.reference["facts"]}
        kinds = [facts[e["fact_id"]]["kind"] for e in built.payload["evidence"]]
        return kinds.count("entry"), sum(kinds.count(k) for k in ("void", "correction"))

    (entries, amended), (deeper_entries, deeper_amended) = counted(task), counted(deeper)
    assert deeper_entries >= 2 * entries - 2 and deeper_amended >= 2 * amended
    deepest = _build(categories="ledger_balance", target_tokens=131072)[0]
    assert _failed(deepest) == {}
    assert counted(deepest)[0] >= 2 * deeper_entries
