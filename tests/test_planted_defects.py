"""The planted-defect suite: good task rows of every family, built once per module and stored as shards, and copies
of them each with one defect planted, all validated together by `taskforge validate` on one stored Parquet file.
Every good row is accepted; every planted row is rejected, its reasons naming the check that catches the defect.
The defect kinds, per family and check, are the matrix in validators/README.md (each `Plant` names its kind).

The sandbox is the process backend. What costs time is what the checks re-derive: reference workflows, the MLE
baselines (once for the good row, once per planted row whose public files differ) and the SWE test runs; the
validation cache (`$TASKFORGE_VALIDATION_CACHE`, a folder of this module) makes the good rows' runs serve their
copies.
"""

from __future__ import annotations

import contextlib
import csv
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np
import polars as pl
import pytest

from conftest import FIXTURE_SEEDS, SAMPLES
from factories import literature_tasks, long_context_tasks, paper_collection
from mle_data import write_dataset
from taskforge import sandbox
from taskforge.builders.base import BuildContext
from taskforge.builders.long_context import LongContextBuilder
from taskforge.builders.mle import MleBuilder
from taskforge.builders.swe import SweBuilder
from taskforge.builders.swe.source import materialize_sample
from taskforge.builders.workflow import WorkflowBuilder
from taskforge.flows.cli import main
from taskforge.graders.literature.environment import SearchEnvironment, environment_for
from taskforge.graders.literature.scorers import f1
from taskforge.graders.literature.shortcuts import keywords, titled, top_hits
from taskforge.graders.long_context.prompting import rendered_messages
from taskforge.graders.long_context.solvers import estimate_success
from taskforge.graders.mle.grading import frame_from_csv, thresholds_from_leaderboard
from taskforge.graders.swe.harness import cache_root
from taskforge.graders.swe.patch import split_files
from taskforge.schemas import Message, PlanItem, Task
from taskforge.store.batches import write_batch
from taskforge.validators.cache import CACHE_ENV
from taskforge.validators.runner import default_checks, validate

CANARY = "08397294-3d99-4790-915c-b8bcb1e9e661"
"""A LitQA2 canary string; the default evaluation sets register it."""
SWE_BENCH_INSTANCE = "astropy__astropy-12907"
"""A SWE-bench Verified instance; the default evaluation sets register it."""
MLE_BENCH_COMPETITION = "3d-object-detection-for-autonomous-vehicles"
"""An MLE-bench competition; the default evaluation sets register it."""
HELD_OUT = {"id": "planted-held-out-1", "doi": "10.5281/zenodo.7340101", "arxiv_id": "2403.01234",
            "question": "Which membrane transporter family lets marine cyanobacteria export excess copper ions during "
                        "nitrogen starvation when grown under continuous blue light at low winter temperatures?"}
"""An evaluation item this module registers with `taskforge decontam add` (24 words of question)."""
HELD_OUT_SET = "planted-held-out"
HELD_OUT_MATCH = f"matches evaluation set {HELD_OUT_SET!r} item {HELD_OUT['id']!r}"
PARAPHRASE = ("Which membrane protein family allows marine cyanobacteria to export surplus copper ions during nitrogen "
              "limitation when cultured under continuous blue light at low winter temperatures?")
"""The held-out question with a quarter of its words changed (five replaced, one added)."""
LIGHT_PARAPHRASE = ("Which membrane protein family lets marine cyanobacteria export surplus copper ions during "
                    "nitrogen starvation when cultured under continuous blue light at low winter temperatures?")
"""The held-out question with 3 of its 24 words changed."""
SEEDS = ("fixed-asset-depreciation", "payroll-overtime")


@dataclass(frozen=True)
class Plant:
    """A stored copy of a good row with one defect: its kind (a cell of the matrix in validators/README.md), the
    checks that must name it (the first is the check whose defect it is), and words its reasons must hold (each
    of them)."""

    kind: str
    task: Task
    checks: tuple[str, ...]
    says: tuple[str, ...]

    @property
    def check(self) -> str:
        """The check whose defect kind this is (the first to name it)."""
        return self.checks[0]


def plant(kind: str, task: Task, checks: tuple[str, ...], *says: str) -> Plant:
    """A plant of a defect kind of `checks[0]`, rejected by every one of `checks` with reasons holding every
    one of `says`."""
    return Plant(kind, task, checks, says)


@pytest.fixture(scope="module")
def process_backend(tmp_path_factory):
    """The process backend, and a validation cache of this module's own."""
    before = {name: os.environ.get(name) for name in ("TASKFORGE_SANDBOX", CACHE_ENV)}
    os.environ.update(TASKFORGE_SANDBOX="process", **{CACHE_ENV: str(tmp_path_factory.mktemp("validation-cache"))})
    sandbox.default_sandbox.cache_clear()
    yield
    for name, value in before.items():
        os.environ.pop(name) if value is None else os.environ.update({name: value})
    sandbox.default_sandbox.cache_clear()


@pytest.fixture(scope="module")
def data(tmp_path_factory) -> Path:
    """The data dir, with one evaluation set of this module's own registered by `taskforge decontam add`."""
    path = tmp_path_factory.mktemp("planted") / "data"
    held_out = path.parent / "held-out.jsonl"
    held_out.write_text(json.dumps(HELD_OUT) + "\n")
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["decontam", "add", str(held_out), "--data-dir", str(path), "--name", HELD_OUT_SET,
                     "--version", "1", "--licence", "CC0-1.0"]) == 0
    return path


def _accepted(tasks: list[Task], data: Path) -> list[Task]:
    checks = default_checks(data)
    return [task for task in tasks if validate(task, checks).status == "accepted"]


def _literature(data: Path, tmp: Path) -> dict[str, Task]:
    collection = paper_collection(tmp / "papers.jsonl")
    kinds = ["find_papers", "select_evidence", "fulltext_qa", "table_synthesis"]
    built = [task for kind in kinds for task in literature_tasks(collection, data, [kind], per_kind=6,
                                                                  cycle_id="planted")]
    good = {}
    for task in _accepted(built, data):
        good.setdefault(task.kind, task)
    assert set(good) == set(kinds), f"no good row of {set(kinds) - set(good)}"
    return good


def _long_context() -> dict[str, Task]:
    item = PlanItem(family="long_context", capability="history_tracking", quota=1, gap_ids=[], priority=1.0)
    context = BuildContext(cycle_id="planted-easy", options={"target_tokens": 2048, "categories": "timeline",
                                                             "evolve": False, "start": "easiest"})
    return {"hard": long_context_tasks(1, target_tokens=2048, cycle_id="planted")[0],
            "easy": next(LongContextBuilder().build(item, context))}


def _workflow(tmp: Path) -> dict[str, Task]:
    seeds = tmp / "seeds"
    for name in SEEDS:
        shutil.copytree(FIXTURE_SEEDS / name, seeds / name)
    item = PlanItem(family="workflow", capability="planted", quota=3, gap_ids=[], priority=1.0)
    built = list(WorkflowBuilder().build(item, BuildContext(cycle_id="planted", options={"source": str(seeds)})))
    child = next(t for t in built if t.lineage.parent_task_id)
    parent = next(t for t in built if t.task_id == child.lineage.parent_task_id)
    other = next(t for t in built if t not in (child, parent))
    return {"parent": parent, "other": other, "child": child}


def _mle(tmp: Path) -> Task:
    rng = np.random.default_rng(5)
    x = rng.normal(size=(300, 4))
    label = ((x[:, 0] * x[:, 1] > 0) ^ (rng.random(300) < 0.08)).astype(int)
    frame = pl.DataFrame({f"x{k}": x[:, k].round(4) for k in range(4)}).with_columns(pl.Series("label", label))
    folder = tmp / "mle"
    write_dataset(frame, folder, "interaction", {"target": "label", "metric": "accuracy", "min_test_rows": 0,
                                                 "min_gap_sd": 0, "search_iterations": 2})
    item = PlanItem(family="mle", capability="implementation", quota=1, gap_ids=[], priority=1.0)
    (task,) = MleBuilder().build(item, BuildContext(cycle_id="planted", options={"source": str(folder),
                                                                                  "sandbox": "process"}))
    assert isinstance(task, Task), task
    return task


def _swe() -> Task:
    sample = SAMPLES / "swe" / "calc_history.py"
    commits = materialize_sample(sample, cache_root())
    item = PlanItem(family="swe", capability="implementation", quota=10, gap_ids=[], priority=1.0)
    built = SweBuilder().build(item, BuildContext(cycle_id="planted", options={"source": str(sample)}))
    return next(t for t in built if isinstance(t, Task) and t.reference["fix_commit"] == commits["div_fix"])


@pytest.fixture(scope="module")
def good(process_backend, data, tmp_path_factory) -> dict[str, dict[str, Task]]:
    """Good rows of every family, landed as shards under the data dir (where the workflow descendant's ancestor is
    found)."""
    tmp = tmp_path_factory.mktemp("sources")
    rows = {"literature": _literature(data, tmp), "long_context": _long_context(), "workflow": _workflow(tmp),
            "mle": {"good": _mle(tmp)}, "swe": {"good": _swe()}}
    for family, tasks in rows.items():
        write_batch(data / "shards" / family / "part-good.parquet", list(tasks.values()), Task)
    return rows


def _copy(task: Task, label: str, **parts: Any) -> Task:
    """A stored copy of a task with some parts replaced, under an id of its own."""
    return task.model_copy(update={"task_id": f"{task.task_id}~{label}", "validation": [], "status": "candidate",
                                   "reasons": [], **parts})


def _with_user_text(task: Task, text: str) -> list[Message]:
    return [m if m.role != "user" else Message(role="user", content=m.content + text) for m in task.prompt]


def _noted(task: Task, label: str, note: str) -> Task:
    return _copy(task, label, environment={**task.environment, "note": note})


def _contaminated(task: Task, exact_id: str, evalset: str, item: str, id_kind: str,
                  paraphrased: Callable[[Task, str], Task] | None = None) -> list[Plant]:
    """Decontamination plants of a row: a canary of the shipped LitQA2 set, an id of a registered set (`exact_id`
    of item `item` of `evalset`), and the held-out question lightly paraphrased in what the solver reads
    (`paraphrased` puts it where the family's prompt takes it; default: after the user message). The shipped sets
    are never registered by this module: their plants show the check holds with nothing registered."""
    paraphrased = paraphrased or (lambda t, text: _copy(t, "paraphrase", prompt=_with_user_text(t, text)))
    return [
        plant("canary string", _noted(task, "canary", f"canary {CANARY}"), ("decontamination",), CANARY,
              "matches evaluation set 'litqa2'"),
        plant(id_kind, _noted(task, "evalset-id", f"as in {exact_id}"), ("decontamination",),
              f"matches evaluation set {evalset!r} item {item!r}"),
        plant("held-out question, a quarter of its words changed", paraphrased(task, f"\n{PARAPHRASE}"),
              ("decontamination",), "decontamination: paraphrase", HELD_OUT_MATCH),
    ]


# literature ------------------------------------------------------------------------------------------------------

def _lost_gold_paper(task: Task) -> Task:
    lost = task.reference["answer"][-1]
    keep = [p for p in task.reference["answer"] if p != lost]
    reference = {**task.reference, "answer": keep, "gold_ids": keep, "answer_text": ", ".join(keep),
                 "papers": [p for p in task.reference["papers"] if p["paper_id"] != lost],
                 "key_passages": [k for k in task.reference["key_passages"] if k["paper_id"] != lost],
                 "tool_path": [s for s in task.reference["tool_path"] if s["arguments"].get("paper_id") != lost]}
    return _copy(task, "gold-lost-paper", reference=reference)


def _answered(task: Task, ids: list[str], label: str, constraints: list | None = None) -> Task:
    """A find_papers copy whose gold set is `ids` (and whose constraints, when given, are these)."""
    payload = task.payload if constraints is None else {**task.payload, "constraints": constraints}
    ids = sorted(ids)
    return _copy(task, label, payload=payload, reference={**task.reference, "answer": ids, "gold_ids": ids,
                                                          "answer_text": ", ".join(ids)})


def _named_in_titles(task: Task, env: SearchEnvironment) -> Task:
    """A find_papers copy whose question names a word of some titles, and whose gold set is the papers so titled."""
    word = next(w for paper in env.collection.papers for w in keywords(paper.title))
    question = f"{task.payload['question']} Look for {word}."
    named = _answered(task, [p.paper_id for p in titled(env, [word])], "title")
    return named.model_copy(update={"payload": {**named.payload, "question": question}})


def _cites_after(task: Task, env: SearchEnvironment) -> tuple[Task, float]:
    """A find_papers copy asking for the papers citing an anchor published after a year that keeps a quarter to a
    third of them (the prompt names both), and the F1 listing every paper citing the anchor earns on it."""
    for anchor, citing_ids in sorted(env.collection.cited_by.items()):
        citing = [env.collection.by_id[i] for i in citing_ids]
        for year in sorted({p.year for p in citing if p.year is not None}):
            gold = [p.paper_id for p in citing if p.year is not None and p.year > year]
            score = f1(citing_ids, gold)
            if 0.4 < score < 0.5:
                constraints = [{"type": "cites", "paper_id": anchor}, {"type": "published_after", "year": year}]
                asked = f" Only papers citing “{env.collection.by_id[anchor].title}” published after {year} count."
                copy = _answered(task, gold, "cite-all-partial", constraints)
                return copy.model_copy(update={"prompt": _with_user_text(task, asked)}), score
    raise AssertionError("no anchor and year keep a quarter to a third of the papers citing the anchor")


def _literature_plants(rows: dict[str, Task], data: Path) -> list[Plant]:
    fp, se, fq, ts = (rows[k] for k in ("find_papers", "select_evidence", "fulltext_qa", "table_synthesis"))
    env = environment_for(fp.environment, data)
    anchor = next(c["paper_id"] for c in fp.payload["constraints"] if c["type"] == "cites")
    cites = [c for c in fp.payload["constraints"] if c["type"] == "cites"]
    passages = se.reference["answer"]["passages"]
    wrong = next(k for k, v in fq.payload["options"].items() if k not in (fq.reference["answer"],
                                                                          fq.payload["insufficient_option"]))
    row, column = ts.payload["rows"][0], "year"
    table = {**ts.reference["answer"], row: {**ts.reference["answer"][row],
                                             column: ts.reference["answer"][row][column] + 1}}
    gold = next(p for p in fp.reference["papers"] if p["role"] == "gold" and p.get("doi"))
    unstated = {**fp.payload, "constraints": [*fp.payload["constraints"], {"type": "published_after", "year": 1901}]}
    cites_after, cite_all_f1 = _cites_after(fp, env)
    return [
        plant("gold set missing a paper", _lost_gold_paper(fp), ("reference",), "the gold set leaves out"),
        plant("evidence passage missing", _copy(se, "evidence-lost-passage", reference={**se.reference, "answer": {
            **se.reference["answer"], "passages": passages[:-1]}}), ("reference",), "the evidence passages leaves out"),
        plant("wrong cloze answer", _copy(fq, "cloze-answer", reference={
            **fq.reference, "answer": wrong, "answer_text": fq.payload["options"][wrong]}),
              ("reference",), "fills the blank as the full text states it"),
        plant("table cell changed", _copy(ts, "table-cell", reference={**ts.reference, "answer": table}),
              ("reference",), f"cell {row}/year"),
        plant("constraint the prompt does not state", _copy(fp, "unstated-constraint", payload=unstated),
              ("reference",), "the prompt does not state the year 1901"),
        plant("the insufficient-information option is the answer", _copy(fq, "noop", reference={
            **fq.reference, "answer": fq.payload["insufficient_option"]}), ("noop",), "a no-op submission scores 1.0"),
        plant("gold paper's title in the prompt", _copy(fp, "leak-title", prompt=_with_user_text(
            fp, f"\nHint: {gold['title']}")), ("leakage",), "by its title"),
        plant("gold paper's DOI in the prompt", _copy(fp, "leak-doi", prompt=_with_user_text(
            fp, f"\nStart from doi:{gold['doi']}.")), ("leakage",), f"external id of gold paper {gold['paper_id']}"),
        plant("cite_all", _answered(fp, env.collection.cited_by[anchor], "cite-all", cites), ("shortcut",),
              "the cite_all shortcut scores 1.0"),
        plant("cite_all at F1 between 0.4 and 0.5", cites_after, ("shortcut",),
              f"the cite_all shortcut scores {cite_all_f1}, above the literature threshold 0.4"),
        plant("bm25_top_k", _answered(fp, top_hits(env, fp.payload["question"]), "bm25"), ("shortcut",),
              "the bm25_top_k shortcut scores"),
        plant("title_match", _named_in_titles(fp, env), ("shortcut",), "the title_match shortcut scores 1.0"),
        *_contaminated(fp, HELD_OUT["doi"], HELD_OUT_SET, HELD_OUT["id"], "registered DOI"),
        plant("held-out question, 3 of its 24 words changed", _copy(fp, "light-paraphrase", prompt=_with_user_text(
            fp, f"\n{LIGHT_PARAPHRASE}")), ("decontamination",), "decontamination: paraphrase", HELD_OUT_MATCH),
    ]


# long-context ----------------------------------------------------------------------------------------------------

def _rendered(task: Task, payload: dict) -> Task:
    """A copy whose payload changed, its prompt rendered from it as the builder renders it."""
    messages = [Message(**m) for m in rendered_messages(payload["documents"], payload["question"])]
    return task.model_copy(update={"payload": payload, "prompt": messages})


def _answer_in_documents(task: Task) -> Task:
    used = {span["doc_id"] for span in task.payload["evidence"]}
    documents = [dict(d) for d in task.payload["documents"]]
    free = next(d for d in documents if d["doc_id"] not in used)
    free["text"] += f"\n\nAnswer: {task.reference['answer_text']}"
    return _copy(_rendered(task, {**task.payload, "documents": documents}), "answer-in-documents")


def _evidence_withheld(task: Task) -> Task:
    user = next(m.content for m in task.prompt if m.role == "user")
    used = {span["doc_id"] for span in task.payload["evidence"]}
    for document in task.payload["documents"]:
        if document["doc_id"] in used:
            user = user.replace(document["text"], "[document withheld]")
    return _copy(task, "evidence-withheld", prompt=[m if m.role != "user" else Message(role="user", content=user)
                                                    for m in task.prompt])


def _document_differs(task: Task) -> Task:
    """A copy whose prompt shows one document (no evidence in it) otherwise than the payload holds it."""
    used = {span["doc_id"] for span in task.payload["evidence"]}
    text = next(d["text"] for d in task.payload["documents"] if d["doc_id"] not in used)
    return _copy(task, "document-differs", prompt=[
        m if m.role != "user" else Message(role="user", content=m.content.replace(text, text + " (revised)"))
        for m in task.prompt])


def _system_states_evidence(task: Task) -> Task:
    span = task.payload["evidence"][0]
    text = next(d["text"] for d in task.payload["documents"] if d["doc_id"] == span["doc_id"])
    statement = text[span["start"]:span["end"]].strip()
    return _copy(task, "evidence-in-system", prompt=[
        Message(role="system", content=f"{m.content} Note: {statement}") if m.role == "system" else m
        for m in task.prompt])


def _judged(task: Task, score: float) -> Task:
    """A copy whose evolution record holds, beside the shallow solvers' scores as they are re-run, the judge
    model's score (a solver reading only windows around the facts, recorded at build)."""
    scores = {**estimate_success(task)["solver_scores"], "judge_model": score}
    evolution = {**(task.payload.get("evolution") or {}), "solver_scores": scores, "estimate": max(scores.values())}
    return _copy(task, "judge-shortcut", payload={**task.payload, "evolution": evolution})


def _long_context_plants(rows: dict[str, Task]) -> list[Plant]:
    hard, easy = rows["hard"], rows["easy"]
    answer = hard.reference["answer_text"]
    system = [Message(role=m.role, content=m.content + f" The answer is {answer}." if m.role == "system" else m.content)
              for m in hard.prompt]
    labels = hard.grader["labels"][:-1]

    def in_question(task: Task, text: str) -> Task:
        return _copy(_rendered(task, {**task.payload, "question": task.payload["question"] + text}), "paraphrase")

    return [
        plant("empty answer scores", _copy(hard, "noop", grader={**hard.grader, "labels": []}, reference={
            **hard.reference, "answer": [], "answer_text": ""}), ("noop",), "a no-op submission scores"),
        plant("evidence replaced by [document withheld]", _evidence_withheld(hard), ("reference",),
              "is not in the prompt the solver sees"),
        plant("stored prompt not rendered from the payload", _document_differs(hard), ("reference",),
              "the documents the solver sees differ from the payload's in"),
        plant("answer in the system prompt", _copy(hard, "answer-in-system", prompt=system), ("leakage", "reference"),
              "appears verbatim in the system"),
        plant("answer in the documents part", _answer_in_documents(hard), ("leakage",),
              "the documents write the answer"),
        plant("answer after the question", _copy(hard, "answer-after-question", prompt=_with_user_text(
            hard, f" The answer is {answer}.")), ("leakage", "reference"), "appears verbatim in the question"),
        plant("evidence stated in the system prompt", _system_states_evidence(hard), ("leakage", "reference"),
              "the system prompt states the evidence of"),
        plant("first / last mention answer", _copy(easy, "shortcut"), ("shortcut",),
              "the last_mention shortcut scores 1.0, above the long_context threshold 0.5",
              "the first_mention shortcut scores 1.0"),
        plant("a shortcut scoring 0.67 (the judge model's recorded score)", _judged(hard, 0.666667), ("shortcut",),
              "the judge_model shortcut scores 0.666667, above the long_context threshold 0.5"),
        plant("a wrong answer scores 1", _copy(hard, "determinism", grader={**hard.grader, "labels": labels}),
              ("determinism", "reference"), "not 1.0"),
        *_contaminated(hard, f"arXiv:{HELD_OUT['arxiv_id']}", HELD_OUT_SET, HELD_OUT["id"], "registered arXiv id",
                      in_question),
    ]


# workflow --------------------------------------------------------------------------------------------------------

def _csv_deliverable(task: Task) -> str:
    return next(d["path"] for d in task.grader["deliverables"] if d["format"] == "csv" and d["columns"])


def _changed_number(task: Task) -> Task:
    path = _csv_deliverable(task)
    spec = next(d for d in task.grader["deliverables"] if d["path"] == path)
    column = next(name for name, rule in spec["columns"].items() if rule.get("type") == "number")
    header, *rows = list(csv.reader(io.StringIO(task.reference["deliverables"][path])))
    at = header.index(column)
    rows[0][at] = f"{float(rows[0][at]) + 7.31:.2f}"
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows([header, *rows])
    text = out.getvalue()
    return _copy(task, "changed-number", reference={**task.reference, "deliverables": {
        **task.reference["deliverables"], path: text}})


def _in_workspace(task: Task) -> Task:
    path = _csv_deliverable(task)
    inputs = {**task.payload["inputs"], path: task.reference["deliverables"][path]}
    return _copy(task, "noop", payload={**task.payload, "inputs": inputs})


def _copied_input(task: Task) -> Task:
    """Every deliverable shipped among the inputs under its own name (last run's outputs)."""
    names = {path.rsplit("/", 1)[-1]: text for path, text in task.reference["deliverables"].items()}
    inputs = {**task.payload["inputs"], **{f"inputs/{name}": text for name, text in names.items()}}
    files = {**task.payload["files"], **{name: {"describe": "last run's output"} for name in names}}
    return _copy(task, "copied-inputs", payload={**task.payload, "inputs": inputs, "files": files})


def _one_column_graded(task: Task) -> Task:
    """Every keyed CSV deliverable graded on its keys and its first column alone."""
    def strip(spec: dict) -> dict:
        first = dict(list(spec["columns"].items())[:1])
        return {**spec, "columns": first} if spec["format"] == "csv" and spec.get("key") else spec

    payload = {**task.payload, "deliverables": [strip(d) for d in task.payload["deliverables"]]}
    return _copy(task, "one-column-graded", payload=payload,
                 grader={**task.grader, "deliverables": [strip(d) for d in task.grader["deliverables"]]})


def _ancestor_answer(child: Task, parent: Task) -> Task:
    keep = ("evolution", "generation", "seed_id")
    payload = {**{k: v for k, v in parent.payload.items() if k not in keep},
               **{k: v for k, v in child.payload.items() if k in keep}}
    return _copy(child, "ancestor-answer", payload=payload, reference=parent.reference, prompt=parent.prompt)


def _grader_in_workspace(task: Task) -> Task:
    inputs = {**task.payload["inputs"], "inputs/grade.py": task.grader["program"]["source"]}
    return _copy(task, "grader-in-workspace", payload={**task.payload, "inputs": inputs})


def _computed_value_stated(task: Task) -> Task:
    """A copy whose prompt states one computed number of the reference (one no input holds)."""
    shown = "\n".join(task.payload["inputs"].values())
    header, *rows = list(csv.reader(io.StringIO(task.reference["deliverables"][_csv_deliverable(task)])))
    value = next(cell for row in rows for cell in row[1:]
                 if len(cell.replace(".", "").strip("0")) >= 4 and cell not in shown)
    return _copy(task, "computed-value", prompt=_with_user_text(task, f"\nCheck: one row should come to {value}."))


def _uniform_inputs(task: Task) -> Task:
    """Every input row the same but for its key: each computed column holds one value, which the constant
    shortcut fills in."""
    path = next(p for p in task.payload["inputs"] if p.endswith(".csv"))
    header, first, *rows = list(csv.reader(io.StringIO(task.payload["inputs"][path])))
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows([header, first, *([row[0], *first[1:]] for row in rows)])
    return _copy(task, "uniform-inputs", payload={**task.payload, "inputs": {**task.payload["inputs"],
                                                                            path: out.getvalue()}})


def _workflow_plants(rows: dict[str, Task]) -> list[Plant]:
    parent, child = rows["parent"], rows["child"]
    path = _csv_deliverable(parent)
    return [
        plant("untouched workspace scores (deliverable among the inputs)", _in_workspace(parent), ("noop", "leakage"),
              "the untouched workspace scores"),
        plant("reference deliverable with one number changed", _changed_number(parent), ("reference",),
              "is not what the workflow writes: line 2"),
        plant("deliverable in the prompt", _copy(parent, "leak-prompt", prompt=_with_user_text(
            parent, "\n" + parent.reference["deliverables"][path])), ("leakage",), "is contained in the prompt"),
        plant("grader program in the workspace", _grader_in_workspace(parent), ("leakage",),
              "inputs/grade.py is a hidden file in the workspace"),
        plant("computed value stated in the prompt", _computed_value_stated(parent), ("leakage",),
              "the prompt states computed values of"),
        plant("copied_inputs", _copied_input(parent), ("shortcut",), "the copied_inputs shortcut scores 1.0"),
        plant("constant values", _uniform_inputs(parent), ("shortcut",), "the constant_mode shortcut scores"),
        plant("ancestor's reference", _ancestor_answer(child, parent), ("shortcut",),
              "the ancestor_reference shortcut scores"),
        plant("grader blind to wrong values (one column graded)", _one_column_graded(parent), ("determinism", "reference"),
              "is not graded"),
        *_contaminated(parent, f"doi:{HELD_OUT['doi']}", HELD_OUT_SET, HELD_OUT["id"], "registered DOI"),
    ]


# MLE -------------------------------------------------------------------------------------------------------------

def _with_files(task: Task, label: str, files: dict[str, str] | None = None, answers: str | None = None,
                **reference: Any) -> Task:
    """A copy with some public files (and the answers) replaced, its checksums kept in step."""
    files = {**task.payload["files"], **(files or {})}
    digest = lambda text: hashlib.sha256(text.encode("utf-8")).hexdigest()  # noqa: E731
    checksums = {f"public/{name}": digest(text) for name, text in files.items()}
    answers = answers if answers is not None else task.reference["answers"]
    return _copy(task, label, payload={**task.payload, "files": files, "checksums": checksums},
                 reference={**task.reference, **reference, "answers": answers,
                            "checksums": {"private/answers.csv": digest(answers)}})


def _labels(task: Task) -> dict[str, str]:
    frames = (frame_from_csv(task.payload["files"]["train.csv"]), frame_from_csv(task.reference["answers"]))
    return {i: label for frame in frames for i, label in zip(frame["id"], frame["label"])}


def _copy_of_label(task: Task) -> Task:
    """A public column equal to the label on 98.5 % of rows (every 67th row flipped)."""
    labels = _labels(task)
    flip = {i: ("1" if labels[i] == "0" else "0") if k % 67 == 33 else labels[i]
            for k, i in enumerate(sorted(labels, key=int))}
    files = {name: (frame := frame_from_csv(task.payload["files"][name])).with_columns(
        pl.Series("sensor_flag", [flip[i] for i in frame["id"]])).write_csv() for name in ("train.csv", "test.csv")}
    return _with_files(task, "label-copy", files)


def _duplicated_rows(task: Task) -> Task:
    train, test = (frame_from_csv(task.payload["files"][n]) for n in ("train.csv", "test.csv"))
    copies = train.head(30)
    start = max(int(i) for i in _labels(task)) + 1
    new_ids = [str(start + k) for k in range(copies.height)]
    added = copies.with_columns(pl.Series("id", new_ids))
    answers = pl.concat([frame_from_csv(task.reference["answers"]), added.select("id", "label")])
    sample = frame_from_csv(task.payload["files"]["sample_submission.csv"])
    extra = lambda frame: pl.concat([frame, pl.DataFrame({"id": new_ids, "label": [frame["label"][0]] * len(new_ids)})])  # noqa: E731,E501
    best = frame_from_csv(task.reference["best_submission"])
    return _with_files(task, "duplicated-rows", {"test.csv": pl.concat([test, added.drop("label")]).write_csv(),
                                                 "sample_submission.csv": extra(sample).write_csv()},
                       answers=answers.write_csv(), best_submission=extra(best).write_csv())


def _ids_in_label_order(task: Task) -> Task:
    labels = _labels(task)
    order = sorted(labels, key=lambda i: (labels[i], int(i)))
    renamed = {old: str(new) for new, old in enumerate(order)}

    def relabel(text: str) -> str:
        frame = frame_from_csv(text)
        return frame.with_columns(pl.Series("id", [renamed[i] for i in frame["id"]])).sort(
            pl.col("id").cast(pl.Int64)).write_csv()

    files = {name: relabel(task.payload["files"][name]) for name in ("train.csv", "test.csv", "sample_submission.csv")}
    return _with_files(task, "id-order", files, answers=relabel(task.reference["answers"]),
                       best_submission=relabel(task.reference["best_submission"]))


def _leaderboard(task: Task, label: str, entries: list[dict]) -> Task:
    thresholds = vars(thresholds_from_leaderboard([e["score"] for e in entries], task.grader["is_lower_better"]))
    best = entries[0]
    return _copy(task, label, payload={**task.payload, "leaderboard": entries, "thresholds": thresholds},
                 grader={**task.grader, "thresholds": thresholds},
                 reference={**task.reference, "best_entry": best["entry"], "best_score": best["score"]})


def _label_transform(task: Task) -> Task:
    """A public column that is a simple transform of the label (3 x label plus a little noise)."""
    labels, noise = _labels(task), np.random.default_rng(11)
    reading = {i: f"{3.0 * int(labels[i]) + noise.normal(0, 0.4):.3f}" for i in sorted(labels, key=int)}
    files = {name: (frame := frame_from_csv(task.payload["files"][name])).with_columns(
        pl.Series("reading", [reading[i] for i in frame["id"]])).write_csv() for name in ("train.csv", "test.csv")}
    return _with_files(task, "label-transform", files)


def _parity_code(task: Task) -> Task:
    """A public code (0-19) whose parity is the label on 95 % of rows: a lookup of its values predicts the label,
    a linear model of it cannot."""
    labels, draw = _labels(task), np.random.default_rng(13)
    code = {i: str(2 * int(draw.integers(10)) + (int(labels[i]) ^ int(draw.random() < 0.05)))
            for i in sorted(labels, key=int)}
    files = {name: (frame := frame_from_csv(task.payload["files"][name])).with_columns(
        pl.Series("site", [code[i] for i in frame["id"]])).write_csv() for name in ("train.csv", "test.csv")}
    return _with_files(task, "parity-code", files)


def _one_class_test(task: Task) -> Task:
    """Private answers all of train's majority class: the constant prediction is right on every test row."""
    train = frame_from_csv(task.payload["files"]["train.csv"])
    majority = train["label"].mode().sort()[0]
    answers = frame_from_csv(task.reference["answers"])
    return _with_files(task, "one-class-test",
                       answers=answers.with_columns(pl.lit(majority).alias("label")).write_csv())


def _label_in_test(task: Task) -> Task:
    labels = _labels(task)
    test = frame_from_csv(task.payload["files"]["test.csv"])
    return _with_files(task, "label-in-test", {"test.csv": test.with_columns(
        pl.Series("label", [labels[i] for i in test["id"]])).write_csv()})


def _answers_off_test(task: Task) -> Task:
    """Private answers whose first id is no test row's."""
    answers = frame_from_csv(task.reference["answers"])
    ids = ["999999", *answers["id"].to_list()[1:]]
    return _with_files(task, "answers-ids", answers=answers.with_columns(pl.Series("id", ids)).write_csv())


def _mle_plants(rows: dict[str, Task]) -> list[Plant]:
    task = rows["good"]
    inflated = [{**e, "score": round(e["score"] + 0.05, 5)} for e in task.payload["leaderboard"]]
    linear = [{**e, "rank": k + 1} for k, e in enumerate(e for e in task.payload["leaderboard"] if (
        e["model"], e["train_fraction"]) in (("linear", 1.0), ("constant", 1.0)))]
    return [
        plant("sample submission wins a medal", _with_files(task, "noop", {
            "sample_submission.csv": task.reference["best_submission"]}), ("noop",),
              "the sample submission wins a medal"),
        plant("thresholds the baselines do not give", _leaderboard(task, "thresholds", inflated), ("reference",),
              "when run again, the leaderboard records"),
        plant("answers off the public test ids", _answers_off_test(task), ("reference",),
              "the answer ids are not the ids of test.csv"),
        plant("label in the public test file", _label_in_test(task), ("leakage",),
              "the public test.csv holds the label column 'label'"),
        plant("public column equal to the label on 98.5 % of rows", _copy_of_label(task), ("leakage",),
              "the single public feature 'sensor_flag' predicts the label far beyond"),
        plant("public column a simple transform of the label", _label_transform(task), ("leakage",),
              "the single public feature 'reading' predicts the label far beyond"),
        plant("test rows duplicating train rows", _duplicated_rows(task), ("leakage",), "30 test rows"),
        plant("labels recoverable from id order", _ids_in_label_order(task), ("leakage",),
              "the labels are recoverable from the id"),
        plant("constant / majority class", _one_class_test(task), ("shortcut",),
              "the constant shortcut scores 1.0", "the majority_class shortcut scores 1.0"),
        plant("single best feature", _leaderboard(_parity_code(task), "linear-board", linear), ("shortcut",),
              "the single_best_feature shortcut scores 1.0"),
        plant("linear model", _leaderboard(task, "linear-wins", linear),
              ("shortcut",), "the linear_model shortcut scores 1.0"),
        plant("split without its seed", _copy(task, "unseeded", payload={
            **task.payload, "split": {**task.payload["split"], "seed": None}}), ("determinism",),
              "predict differently when run again with the task's seed (None)"),
        *_contaminated(task, MLE_BENCH_COMPETITION, "mle-bench", MLE_BENCH_COMPETITION, "MLE-bench competition id"),
    ]


# SWE -------------------------------------------------------------------------------------------------------------

def _git(path: Path, *args: str, stdin: str | None = None) -> None:
    subprocess.run(["git", "-c", "user.name=planted", "-c", "user.email=planted@example.org", "-C", str(path), *args],
                   input=stdin, text=True, check=True, capture_output=True)


def _regressed_snapshot(task: Task) -> Task:
    """A copy whose snapshot's last commit reintroduced the bug its previous commit fixed: reverting the last
    touched file fixes it."""
    relative = task.environment["snapshot"] + "-regressed"
    snapshot = cache_root() / relative
    if not snapshot.exists():
        shutil.copytree(cache_root() / task.environment["snapshot"], snapshot)
        _git(snapshot, "apply", "-", stdin=task.reference["patch"])
        _git(snapshot, "commit", "-qam", "fix the division")
        _git(snapshot, "revert", "--no-edit", "HEAD")
    return _copy(task, "regressed", environment={**task.environment, "snapshot": relative})


def _fix_in_object_store(task: Task) -> Task:
    """A copy whose snapshot's object store holds the solution's post-fix blobs (staged once, then unstaged)."""
    relative = task.environment["snapshot"] + "-fix-objects"
    snapshot = cache_root() / relative
    if not snapshot.exists():
        shutil.copytree(cache_root() / task.environment["snapshot"], snapshot)
        _git(snapshot, "apply", "--cached", "-", stdin=task.reference["patch"])
        _git(snapshot, "read-tree", "HEAD")
    return _copy(task, "fix-objects", environment={**task.environment, "snapshot": relative})


def _swe_plants(rows: dict[str, Task]) -> list[Plant]:
    task = rows["good"]
    quoted = '\n        raise ZeroDivisionError("division by zero")'
    f2p, p2p = task.payload["FAIL_TO_PASS"], task.payload["PASS_TO_PASS"]
    with_fix = task.reference["test_patch"] + task.reference["patch"]
    return [
        plant("empty patch resolves (no failing test)", _copy(task, "noop", payload={
            **task.payload, "FAIL_TO_PASS": []}), ("noop",), "the empty patch resolves"),
        plant("hidden test passes before the fix", _copy(task, "reference", payload={
            **task.payload, "FAIL_TO_PASS": [*f2p, "tests/test_ops.py::test_add"]}), ("reference",),
              "FAIL_TO_PASS names tests/test_ops.py::test_add, which passes before the patch"),
        plant("PASS_TO_PASS test failing before the fix", _copy(task, "p2p", payload={
            **task.payload, "PASS_TO_PASS": [*p2p, *f2p]}), ("reference",),
              f"PASS_TO_PASS names {f2p[0]}, which does not pass both before and after the patch"),
        plant("statement quotes the fix", _copy(task, "leak", prompt=_with_user_text(task, quoted)), ("leakage",),
              "quotes"),
        plant("fix in the snapshot's object store", _fix_in_object_store(task), ("leakage",),
              "post-fix blob(s) of the solution or tests are in the object store"),
        plant("test patch alone resolves (it carries the fix)", _copy(task, "test-patch-fixes", reference={
            **task.reference, "test_patch": with_fix}), ("shortcut",), "the test_patch_alone shortcut scores 1.0"),
        plant("reverting the last touched file resolves", _regressed_snapshot(task), ("shortcut",),
              "the revert_last_touched shortcut scores 1.0"),
        *_contaminated(task, SWE_BENCH_INSTANCE, "swe-bench-verified", SWE_BENCH_INSTANCE,
                      "SWE-bench Verified instance id"),
    ]


PLANTS: dict[str, Callable[..., list[Plant]]] = {
    "literature": _literature_plants, "long_context": _long_context_plants, "workflow": _workflow_plants,
    "mle": _mle_plants, "swe": _swe_plants}


@pytest.fixture(scope="module")
def verdicts(good, data, tmp_path_factory) -> dict[str, Any]:
    """Good and planted rows stored in one Parquet file, validated by `taskforge validate`: task id → its row."""
    planted = {family: plants(good[family], data) if family == "literature" else plants(good[family])
               for family, plants in PLANTS.items()}
    rows = [t for tasks in good.values() for t in tasks.values()]
    rows += [planted_row.task for plants in planted.values() for planted_row in plants]
    path = tmp_path_factory.mktemp("stored") / "planted.parquet"
    write_batch(path, rows, Task)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["validate", str(path), "--data-dir", str(data), "--json"]) == 0
    result = json.loads(out.getvalue())
    return {"by_id": {row["task_id"]: row for row in result["tasks"]}, "planted": planted, "unreadable":
            result["unreadable"]}


def test_every_good_row_is_accepted(good, verdicts):
    assert not verdicts["unreadable"]
    for family, tasks in good.items():
        for name, task in tasks.items():
            if (family, name) == ("long_context", "easy"):
                continue
            row = verdicts["by_id"][task.task_id]
            assert row["status"] == "accepted", (family, name, row["reasons"])


@pytest.mark.parametrize("family", sorted(PLANTS))
def test_every_planted_defect_is_rejected_naming_its_check(family, verdicts):
    for planted in verdicts["planted"][family]:
        row = verdicts["by_id"][planted.task.task_id]
        named = {reason.split(":", 1)[0] for reason in row["reasons"].split("; ") if ":" in reason}
        assert row["status"] == "rejected", (planted.kind, row)
        assert set(planted.checks) <= named, (planted.kind, planted.checks, row["reasons"])
        for says in planted.says:
            assert says in row["reasons"], (planted.kind, says, row["reasons"])


def test_every_question_has_a_planted_defect_in_every_family_that_judges_it(verdicts):
    """`review` and `difficulty` need a model: reviewer rejections are tested in test_agents_hooks.py and
    test_hooks_*.py, too-easy tasks in test_solver_gate.py (answered by the local OpenAI-protocol server)."""
    from taskforge.validators.base import CheckContext
    from taskforge.validators.registry import strategy_tables

    tables = strategy_tables(CheckContext())
    for family, plants in verdicts["planted"].items():
        judged = {q for q, strategy in tables[family].items()
                  if strategy.absent is None and q not in ("review", "difficulty")}
        covered = {planted.check for planted in plants}
        missing = judged - covered
        assert not missing, (family, missing)


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q"]))
