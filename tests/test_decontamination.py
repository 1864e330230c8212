"""Decontamination: registered evaluation sets (ids, 13-grams, canaries) remove exactly the tasks that overlap
them, and each removal names the evaluation item it matched."""

from __future__ import annotations

import json
import random

import pytest

from taskforge.builders.literature.kinds import KINDS
from factories import literature_tasks, long_context_tasks, paper_collection
from taskforge.flows.cli import main
from taskforge.flows.decontam import add_evalset, list_evalsets
from taskforge.schemas import InputError, Task, task_id_for
from taskforge.store.layout import SAMPLES_DIR
from taskforge.store.batches import write_batch
from taskforge.store.layout import DataDir
from taskforge.validators import evalsets
from taskforge.validators.evalsets import classify, read_evalset
from taskforge.validators.runner import default_checks, validate


@pytest.fixture(scope="module")
def papers(tmp_path_factory):
    root = tmp_path_factory.mktemp("decontam")
    source = paper_collection(root / "papers.jsonl", count=200, seed=3)
    return {"source": source, "root": root}


def _data_dir(papers, name):
    data_dir = papers["root"] / name
    data_dir.mkdir()
    return data_dir


def _decontam(task, data_dir):
    return next(r for r in validate(task, default_checks(data_dir)).validation if r.check == "decontamination")


def test_ids_are_classified_and_normalised():
    assert classify("https://doi.org/10.5555/TF.2019.000012") == "doi:10.5555/tf.2019.000012"
    assert classify("arXiv:2101.01234v3") == "arxiv:2101.01234"
    assert classify("https://github.com/Django/django/pull/15315") == "pr:django/django#15315"
    assert classify("astropy__astropy-12907") == "pr:astropy/astropy#12907"
    assert classify("competition:Spaceship-Titanic") == "competition:spaceship-titanic"
    assert classify("canary:BENCH CANARY 26b5c67b") == "canary:BENCH CANARY 26b5c67b"
    with pytest.raises(ValueError, match="cannot tell what kind of id 'titanic' is"):
        classify("titanic")
    with pytest.raises(ValueError, match="not a valid doi id"):
        classify("doi:11.2/x")


def test_a_bad_line_fails_the_whole_registration_naming_file_and_line(tmp_path):
    listing = tmp_path / "ids.txt"
    listing.write_text("# our eval set\n10.1000/abc\nspaceship-titanic\n")
    with pytest.raises(InputError, match=r"ids.txt:3: cannot tell what kind of id"):
        read_evalset(listing)
    records = tmp_path / "items.jsonl"
    records.write_text('{"id": "q1", "question": "What is it?"}\n{"id": "q2"}\n')
    with pytest.raises(InputError, match=r"items.jsonl:2: the record has no id, text or canary"):
        read_evalset(records)


def test_an_evaluation_set_with_dois_rejects_the_tasks_built_on_those_papers(papers):
    data_dir = _data_dir(papers, "dois")
    tasks = literature_tasks(papers["source"], data_dir, list(KINDS))
    target = tasks[0]
    gold = next(p for p in target.reference["papers"] if p["role"] == "gold")
    others = [t for t in tasks[1:] if gold["doi"] not in {p["doi"] for p in t.reference["papers"]}]
    evalset = papers["root"] / "heldout.jsonl"
    evalset.write_text(json.dumps({"id": "heldout-17", "doi": f"https://doi.org/{gold['doi'].upper()}",
                                   "question": "an unrelated question"}) + "\n")
    added = add_evalset(evalset, DataDir(data_dir))
    assert added["added"] == {"name": "heldout", "source": "heldout.jsonl", "version": "", "licence": "", "items": 1,
                              "ids": 1, "texts": 1, "canaries": 0}
    decided = validate(target, default_checks(data_dir))
    result = next(r for r in decided.validation if r.check == "decontamination")
    assert decided.status == "rejected" and not result.passed
    assert f"doi '{gold['doi']}'" in result.reason and "evaluation set 'heldout' item 'heldout-17'" in result.reason
    assert result.detail["matches"][0]["item"] == "heldout-17" and result.detail["matches"][0]["kind"] == "doi"
    assert others and all(_decontam(t, data_dir).passed for t in others)
    assert all(validate(t, default_checks(data_dir)).status == "accepted" for t in others)


def test_arxiv_ids_passages_and_canaries_match_and_name_their_items(papers):
    data_dir = _data_dir(papers, "mixed")
    tasks = literature_tasks(papers["source"], data_dir, ["select_evidence", "fulltext_qa"])
    select, qa = tasks
    passage = select.reference["key_passages"][0]["text"]
    with_arxiv = next(p for t in tasks for p in t.reference["papers"] if p["arxiv_id"])
    (papers["root"] / "passages.jsonl").write_text(
        json.dumps({"id": "p-1", "passage": f"Preamble words here. {passage}"}) + "\n")
    (papers["root"] / "ids.txt").write_text(f"arXiv:{with_arxiv['arxiv_id']}v4\ncanary:CANARY-GUID-1234\n")
    add_evalset(papers["root"] / "passages.jsonl", DataDir(data_dir))
    add_evalset(papers["root"] / "ids.txt", DataDir(data_dir), name="listed")
    assert [s["name"] for s in list_evalsets(DataDir(data_dir))["sets"]] == [
        "litqa2", "mle-bench", "swe-bench-verified", "listed", "passages"]
    matches = {(m["set"], m["item"], m["kind"]) for m in _decontam(select, data_dir).detail["matches"]}
    assert ("passages", "p-1", "13-gram") in matches
    owner = next(t for t in tasks if with_arxiv in t.reference["papers"])
    assert ("listed", f"arXiv:{with_arxiv['arxiv_id']}v4", "arxiv") in {
        (m["set"], m["item"], m["kind"]) for m in _decontam(owner, data_dir).detail["matches"]}
    lc = long_context_tasks(1, target_tokens=2048)[0]
    assert _decontam(lc, data_dir).passed
    canaried = lc.model_copy(update={"payload": {**lc.payload, "note": "xx CANARY-GUID-1234 yy"}})
    result = _decontam(canaried, data_dir)
    assert not result.passed and result.detail["matches"] == [
        {"set": "listed", "item": "canary:CANARY-GUID-1234", "kind": "canary", "value": "CANARY-GUID-1234",
         "where": "payload.note"}]


def test_pull_requests_and_competition_ids_match_anywhere_in_a_task(papers):
    data_dir = _data_dir(papers, "ids")
    (papers["root"] / "swe.txt").write_text("django/django#15315\ncompetition:spaceship-titanic\n")
    add_evalset(papers["root"] / "swe.txt", DataDir(data_dir))
    lc = long_context_tasks(1, target_tokens=2048)[0]
    mentioned = lc.model_copy(update={"lineage": lc.lineage.model_copy(update={"resource_id": "django__django-15315"}),
                                      "payload": {**lc.payload, "note": "like Spaceship-Titanic."}})
    kinds = {(m["kind"], m["where"]) for m in _decontam(mentioned, data_dir).detail["matches"]}
    assert kinds == {("pr", "lineage.resource_id"), ("competition", "payload.note")}
    unrelated = lc.model_copy(update={"payload": {**lc.payload, "note": "titanic django/django#1531"}})
    assert _decontam(unrelated, data_dir).passed


QUESTIONS = [
    "Which transcription factor did the authors find to be required for the regeneration of hair cells in the "
    "zebrafish lateral line after neomycin damage?",
    "In the reported mouse model, what fraction of hepatocytes expressed the reporter gene two weeks after a single "
    "intravenous dose of the lipid nanoparticle?",
    "What mutation in the spike receptor binding domain most reduced neutralisation by convalescent sera in the "
    "pseudovirus assays described by the study?",
]
SAME_TOPIC = [
    "Which signalling pathway controls the proliferation of support cells during inner ear development in chicken "
    "embryos?",
    "How long did the reporter signal persist in mouse liver after an adenoviral vector was injected into the "
    "tail vein?",
    "Which antibody class dominated the mucosal response after intranasal vaccination of hamsters against the "
    "virus?",
]


def _paraphrased(question: str) -> str:
    """A quarter of the question's words replaced by others (every fourth word)."""
    words = question.split()
    return " ".join(f"{word}ish" if n % 4 == 1 else word for n, word in enumerate(words))


def _carrying(task, text: str, mark: str):
    """The task with `text` written into the user message the solver sees (a new task id)."""
    prompt = [*task.prompt[:-1], task.prompt[-1].model_copy(update={"content": f"{task.prompt[-1].content}\n{text}"})]
    payload = {**task.payload, "planted": mark}
    return task.model_copy(update={"task_id": task_id_for(task.family, task.kind, payload), "payload": payload,
                                   "prompt": prompt})


def _validated(capsys, tasks, data_dir, tmp_path):
    """Each stored task's status and reasons as `taskforge validate` reports them, by task id."""
    stored = write_batch(tmp_path / "planted.parquet", tasks, Task)
    code = main(["validate", str(stored), "--data-dir", str(data_dir), "--json"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return {row["task_id"]: row for row in json.loads(captured.out)["tasks"]}


def test_default_sets_are_registered_with_their_versions_and_licences(tmp_path):
    sets = {s["name"]: s for s in list_evalsets(DataDir(tmp_path))["sets"]}
    assert set(sets) == {"swe-bench-verified", "mle-bench", "litqa2"}
    assert sets["swe-bench-verified"]["items"] == 500 and sets["mle-bench"]["items"] >= 75
    assert sets["litqa2"]["canaries"] == 89
    assert all(s["version"] and s["licence"] for s in sets.values())
    result = _decontam(long_context_tasks(1, target_tokens=2048)[0], tmp_path)
    assert result.passed and result.detail["sets"] == ["litqa2", "mle-bench", "swe-bench-verified"]


def test_the_check_fails_rather_than_pass_with_no_set_registered(tmp_path, monkeypatch):
    monkeypatch.setattr(evalsets, "DEFAULTS_DIR", tmp_path / "nothing-here")
    evalsets._registry.cache_clear()
    try:
        result = _decontam(long_context_tasks(1, target_tokens=2048)[0], tmp_path)
    finally:
        evalsets._registry.cache_clear()
    assert not result.passed and result.detail["sets"] == [] and "no evaluation set" in result.reason


def test_ids_of_the_default_sets_reject_stored_tasks_naming_the_item(capsys, tmp_path):
    base = long_context_tasks(1, target_tokens=2048)[0]
    planted = {
        "swe": _carrying(base, "Fix https://github.com/astropy/astropy/pull/12907 as the maintainers did.", "swe"),
        "mle": _carrying(base, "Train a model like the winners of Spaceship-Titanic did.", "mle"),
        "litqa2": _carrying(base, "See question 0b1d5537-db47-420c-984b-9b56d38e6d98.", "litqa2"),
        "clean": _carrying(base, "Train a model on the spaceship telemetry and fix the titanic logs.", "clean"),
    }
    rows = _validated(capsys, list(planted.values()), tmp_path, tmp_path)
    reason = {name: rows[task.task_id]["reasons"] for name, task in planted.items()}
    assert "evaluation set 'swe-bench-verified' item 'astropy__astropy-12907'" in reason["swe"]
    assert "evaluation set 'mle-bench' item 'spaceship-titanic'" in reason["mle"]
    assert "evaluation set 'litqa2' item" in reason["litqa2"] and "0b1d5537" in reason["litqa2"]
    assert "decontamination" not in reason["clean"]


def test_exact_and_paraphrased_questions_are_rejected_and_same_topic_ones_pass(capsys, tmp_path):
    data_dir = tmp_path / "data"
    heldout = tmp_path / "heldout.jsonl"
    heldout.write_text("".join(json.dumps({"id": f"q{n}", "question": q}) + "\n" for n, q in enumerate(QUESTIONS)))
    assert main(["decontam", "add", str(heldout), "--data-dir", str(data_dir), "--version", "2026-01",
                 "--licence", "CC-BY-4.0", "--json"]) == 0
    added = json.loads(capsys.readouterr().out)["added"]
    assert (added["version"], added["licence"], added["texts"]) == ("2026-01", "CC-BY-4.0", 3)
    base = long_context_tasks(1, target_tokens=2048)[0]
    exact = [_carrying(base, q, f"exact-{n}") for n, q in enumerate(QUESTIONS)]
    paraphrased = [_carrying(base, _paraphrased(q), f"paraphrase-{n}") for n, q in enumerate(QUESTIONS)]
    clean = [_carrying(base, q, f"clean-{n}") for n, q in enumerate(SAME_TOPIC)]
    rows = _validated(capsys, exact + paraphrased + clean, data_dir, tmp_path)
    for n, task in enumerate(exact):
        assert "13-gram" in rows[task.task_id]["reasons"] and f"item 'q{n}'" in rows[task.task_id]["reasons"]
    for n, task in enumerate(paraphrased):
        assert _paraphrased(QUESTIONS[n]) != QUESTIONS[n]
        assert "paraphrase" in rows[task.task_id]["reasons"] and f"item 'q{n}'" in rows[task.task_id]["reasons"]
    assert all("decontamination" not in rows[task.task_id]["reasons"] for task in clean)


def _replaced(text: str, share: float, rng: random.Random, vocabulary: list[str]) -> str:
    """The text with `share` of its words, at random places, replaced by words of `vocabulary`."""
    words = text.split()
    for place in rng.sample(range(len(words)), round(len(words) * share)):
        words[place] = rng.choice(vocabulary)
    return " ".join(words)


def test_abstracts_with_a_quarter_of_their_words_replaced_are_found_and_their_siblings_mostly_not():
    """The shipped synthetic abstracts are one template over a few topics: half are registered, the other half
    (same topics, other methods) are their siblings. 95 % of paraphrases must be found, as `bench/
    decontam_quality.py` measures it (96.5 % over these five draws), and at most 1 % of siblings named (0.8 %).
    Adjacent word pairs alone, as the index had them before words one apart were paired, find 91.7 % (94.1 %
    at the same threshold)."""
    rows = [json.loads(line) for line in (SAMPLES_DIR / "papers_synthetic" / "synthetic_papers.jsonl").open()]
    found = named = registered_count = unrelated_count = 0
    for seed in range(5):
        rng = random.Random(seed)
        abstracts = [row["abstract"] for row in rows]
        rng.shuffle(abstracts)
        registered, unrelated = abstracts[:len(abstracts) // 2], abstracts[len(abstracts) // 2:]
        registry = evalsets.Registry([evalsets.EvalSet(name="held-out", source="test", items=[
            evalsets.EvalItem(item_id=f"a{n}", text=text) for n, text in enumerate(registered)])])
        vocabulary = [word for text in unrelated for word in text.split()]
        for n, text in enumerate(registered):
            matched = registry.matches([("prompt", _replaced(text, 0.25, rng, vocabulary))])
            found += f"a{n}" in {m.item_id for m in matched}
        named += sum(bool(registry.matches([("prompt", text)])) for text in unrelated)
        registered_count, unrelated_count = registered_count + len(registered), unrelated_count + len(unrelated)
    assert found >= 0.95 * registered_count
    assert named <= 0.01 * unrelated_count
