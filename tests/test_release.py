"""Trainer views and releases: every family's RL shard loads with `datasets` and scores its reference 1 (bare,
fenced or wrapped in prose) and its no-op 0 through verl's `compute_score`, and its `extra_info` does not repeat
the prompt; planted overlaps with a registered evaluation set remove exactly the
planted tasks and the report names each match; near-duplicates are removed, naming the task they repeat;
exporting a release twice gives identical files. The swe and mle releases are loaded and scored the same way
where their tasks are built (tests/test_swe_build.py, tests/test_mle_flow.py)."""

from __future__ import annotations

import json

import datasets
import pyarrow.parquet as pq
import pytest
from huggingface_hub import DatasetCard

from taskforge import sandbox
from taskforge.builders.base import BuildContext
from taskforge.builders.literature.kinds import KINDS
from taskforge.builders.workflow import WorkflowBuilder
from conftest import FIXTURE_SEEDS, SAMPLES
from factories import land_validated, literature_tasks, long_context_tasks, paper_collection
from reward_checks import assert_reward_contract
from taskforge.flows.decontam import add_evalset
from taskforge.flows.screening import landing_screen, release_screen
from taskforge.graders.literature.environment import environment_for
from taskforge.graders.task_reward import unprompted_payload
from taskforge.schemas import Message, PlanItem, Task, canonical_json, task_id_for
from taskforge.store.layout import DataDir
from taskforge.store.release import export_release
from taskforge.store.splits import source_group
from taskforge.validators.decontamination import task_fields
from taskforge.validators.runner import default_checks, validate

FAMILIES = ("literature", "long_context", "workflow")


def workflow_tasks(count: int) -> list[Task]:
    """Real workflow tasks from the shipped seeds (reference workflows run in the process sandbox)."""
    item = PlanItem(family="workflow", capability="verification", quota=count, gap_ids=["gap-w"], priority=1.0)
    context = BuildContext(cycle_id="test-cycle", options={"source": str(FIXTURE_SEEDS)})
    return list(WorkflowBuilder().build(item, context))


def _export(data: DataDir, version: str, out) -> dict:
    with data.open_catalog() as catalog:
        return export_release(catalog, data, version, out, release_screen(catalog, data, version)).checksums


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("release")
    source = paper_collection(root / "papers.jsonl", count=200, seed=3)
    data = DataDir(root / "data")
    with pytest.MonkeyPatch.context() as patch:
        chosen = sandbox.get_sandbox("process")
        patch.setattr(sandbox, "default_sandbox", lambda: chosen)
        tasks = (literature_tasks(source, data.root, list(KINDS)) + long_context_tasks(2, target_tokens=4096)
                 + workflow_tasks(2))
        landed = land_validated(data, tasks)
    assert [t.status for t in landed] == ["accepted"] * len(tasks)
    out = root / "release-1"
    return {"root": root, "source": source, "data": data, "tasks": tasks, "release": out,
            "checksums": _export(data, "1.0.0", out)}


def test_every_family_rl_shard_loads_and_scores_reference_one_and_noop_zero(built):
    out = built["release"]
    schemas = {str(pq.read_schema(path)) for path in (out / "data").glob("*/*.parquet")}
    assert len(schemas) == 1, "one schema for every family's RL files"
    indexes, by_id = [], {t.task_id: t for t in built["tasks"]}
    for family in FAMILIES:
        rows = datasets.load_dataset(str(out), family, split="train", cache_dir=str(built["root"] / "hf"))
        assert rows.num_rows == sum(t.family == family for t in built["tasks"])
        for row in rows:
            info, truth = row["extra_info"], row["reward_model"]["ground_truth"]
            indexes.append(info["index"])
            assert row["data_source"] == f"taskforge/{family}" and info["split"] == "train"
            assert row["reward_model"]["style"] == "rule" and row["prompt"][0]["role"] == "system"
            assert_reward_contract(row)
            assert info["payload"] == canonical_json(unprompted_payload(by_id[info["task_id"]]))
            if family == "long_context":
                assert {"documents", "question"}.isdisjoint(json.loads(info["payload"])), "shown by the prompt"
    assert sorted(indexes) == list(range(len(built["tasks"]))), "indexes count across families, never restart"


def test_tool_tasks_carry_verl_tool_kwargs_and_their_tools_work_from_the_release(built):
    out = built["release"]
    literature = datasets.load_dataset(str(out), "literature", split="train", cache_dir=str(built["root"] / "hf"))
    row = literature[0]
    info = row["extra_info"]
    assert row["agent_name"] == "tool_agent" and info["need_tools_kwargs"] is True
    assert {name for name, kwargs in info["tools_kwargs"].items() if kwargs} == {"read", "search"}
    assert info["tool_selection"] == ["search", "read"]
    create = info["tools_kwargs"]["search"]["create_kwargs"]
    assert create["task_id"] == info["task_id"] and info["interaction_kwargs"]["name"] == "literature_search"
    env = environment_for(json.loads(create["environment"]), out)
    found = json.loads(env.call("search", {"query": row["prompt"][-1]["content"][:300], "k": 3}))
    assert len(found["results"]) == 3
    long_context = datasets.load_dataset(str(out), "long_context", split="train", cache_dir=str(built["root"] / "hf"))
    assert {r["agent_name"] for r in long_context} == {"single_turn_agent"}
    assert all(r["extra_info"]["tools_kwargs"] is None and r["extra_info"]["interaction_kwargs"] is None
               for r in long_context)
    workflow = datasets.load_dataset(str(out), "workflow", split="train", cache_dir=str(built["root"] / "hf"))
    assert {r["extra_info"]["interaction_kwargs"]["name"] for r in workflow} == {"workflow"}
    assert {r["agent_name"] for r in workflow} == {"tool_agent"}
    assert workflow[0]["extra_info"]["tool_selection"] == ["run", "read_file", "write_file", "submit"]
    assert json.loads(workflow[0]["extra_info"]["environment"])["network"] is False
    envelopes = datasets.load_dataset(str(out), "literature_envelope", split="train",
                                     cache_dir=str(built["root"] / "hf"))
    assert [e["task_id"] for e in envelopes] == [r["extra_info"]["task_id"] for r in literature]


def test_exporting_the_same_release_twice_gives_identical_files(built, tmp_path):
    again = _export(built["data"], "1.0.0", built["release"])
    elsewhere = _export(built["data"], "1.0.0", tmp_path / "copy")
    assert again == built["checksums"] == elsewhere
    assert {"README.md", "decontamination.json", "data/long_context/train-00000-of-00001.parquet",
            "envelope/literature/train-00000-of-00001.parquet"} <= set(again)
    assert any(name.startswith("collections/") for name in again), "the literature collection snapshot ships"
    card = (built["release"] / "README.md").read_text()
    assert "config_name: literature\n" in card and "config_name: long_context_envelope" in card
    assert "| long_context | 2 | timeline 2 |" in card and "generated by taskforge (seeded world model)" in card
    header = DatasetCard(card).data
    assert header.license == ["other"] and header.license_name == "taskforge-per-source", "no licence has an id"
    assert header.task_categories == ["question-answering", "text-generation"] and header.language == ["en"]
    assert header.size_categories == ["n<1K"]


def _only_in(tasks: list[Task], target: Task, text: str) -> bool:
    """Whether `text` appears in the target task and in no other task."""
    holders = {t.task_id for t in tasks for _, field in task_fields(t) if text.casefold() in field.casefold()}
    return holders == {target.task_id}


def test_planted_overlaps_remove_exactly_those_tasks_and_the_report_names_each_match(built, tmp_path):
    data = DataDir(tmp_path / "data")
    tasks = literature_tasks(built["source"], data.root, list(KINDS)) + long_context_tasks(2, target_tokens=4096)
    by_kind = {t.kind: t for t in tasks}
    selecting, finding = by_kind["select_evidence"], by_kind["find_papers"]
    passage = next(p["text"] for p in selecting.reference["key_passages"] if _only_in(tasks, selecting, p["text"]))
    doi = next(p["doi"] for p in finding.reference["papers"] if p["doi"] and _only_in(tasks, finding, p["doi"]))
    tasks[-1] = tasks[-1].model_copy(update={"environment": {**tasks[-1].environment, "note": "BENCH-CANARY-7f3a"}})
    evalset = tmp_path / "heldout.jsonl"
    evalset.write_text("\n".join(json.dumps(r) for r in [
        {"id": "q-passage", "passage": f"An unrelated opening. {passage}"},
        {"id": "q-doi", "doi": f"https://doi.org/{doi}", "question": "Which paper introduced it?"}]) + "\n")
    add_evalset(evalset, data)
    landed = {t.task_id: t for t in land_validated(data, tasks)}
    rejected = {tid for tid, t in landed.items() if t.status == "rejected"}
    assert rejected == {selecting.task_id, finding.task_id}
    (tmp_path / "canaries.txt").write_text("canary:BENCH-CANARY-7f3a\n")
    add_evalset(tmp_path / "canaries.txt", data)
    _export(data, "2.0.0", tmp_path / "release")
    report = json.loads((tmp_path / "release" / "decontamination.json").read_text())
    named = {(r["task_id"], r["stage"], m["set"], m["item"], m["kind"])
             for r in report["removed"] for m in r["matches"]}
    assert named == {(selecting.task_id, "landing", "heldout", "q-passage", "13-gram"),
                     (finding.task_id, "landing", "heldout", "q-doi", "doi"),
                     (tasks[-1].task_id, "release", "canaries", "canary:BENCH-CANARY-7f3a", "canary")}
    released = datasets.load_dataset(str(tmp_path / "release"), "long_context", split="train",
                                     cache_dir=str(tmp_path / "hf"))
    assert [r["extra_info"]["task_id"] for r in released] == [tasks[-2].task_id]
    card = (tmp_path / "release" / "README.md").read_text()
    for item in ("q-passage", "q-doi", "canary:BENCH-CANARY-7f3a"):
        assert f"item '{item}'" in card
    assert "| heldout |  | heldout.jsonl |  | 2 | 1 | 2 | 0 |" in card
    assert "| swe-bench-verified | 500 instances" in card


def _variant(task: Task, number: int = 1, parent: str | None = None) -> Task:
    """The long-context task with one word of its question changed (in the payload and the prompt it renders): a
    near-duplicate under another task id (an evolved child when `parent` is given)."""
    def change(text: str) -> str:
        return text[::-1].replace(" eht ", " a "[::-1] * number, 1)[::-1]

    user, question = task.prompt[-1].content, task.payload["question"]
    changed = user[:-len(question)] + change(question)
    assert user.endswith(question) and changed != user
    payload = {**task.payload, "question": change(question),
               "measures": {**task.payload["measures"], "variant": number}}
    return task.model_copy(update={"task_id": task_id_for(task.family, task.kind, payload), "payload": payload,
                                   "prompt": [*task.prompt[:-1], Message(role="user", content=changed)],
                                   "lineage": task.lineage.model_copy(update={"parent_task_id": parent})})


def test_near_duplicates_are_removed_at_landing_and_against_an_earlier_release(built, tmp_path):
    original = next(t for t in built["tasks"] if t.family == "long_context")
    repeat = _variant(original)
    own = DataDir(tmp_path / "own")
    assert [t.status for t in land_validated(own, [original], "cycle-1")] == ["accepted"]
    (decided,) = land_validated(own, [repeat], "cycle-2")
    result = next(r for r in decided.validation if r.check == "near_duplicate")
    assert decided.status == "rejected" and result.detail["matches"][0]["task_id"] == original.task_id
    assert f"task {original.task_id} (landed)" in result.reason and result.score >= 0.8
    (child,) = land_validated(own, [_variant(original, 2, parent=original.task_id)], "cycle-2b")
    assert child.status == "accepted", "an evolved child is no near-duplicate of its parent"

    fresh = DataDir(tmp_path / "fresh")
    registered = add_evalset(built["release"], fresh, name="rel-1")
    assert registered["releases"] == [{"name": "rel-1", "tasks": len(built["tasks"])}]
    decided = {t.task_id: t for t in land_validated(fresh, [repeat, original], "cycle-3")}
    assert decided[original.task_id].status == "accepted", "the same task carried over is no near-duplicate"
    near = next(r for r in decided[repeat.task_id].validation if r.check == "near_duplicate")
    assert not near.passed and near.detail["matches"][0] == {"task_id": original.task_id, "origin": "release rel-1",
                                                             "jaccard": near.score}


def test_landing_checks_a_task_that_was_validated_without_decontamination(built, tmp_path):
    data = DataDir(tmp_path / "data")
    task = next(t for t in built["tasks"] if t.family == "long_context")
    (tmp_path / "ids.txt").write_text(f"canary:{task.payload['question'][:40]}\n")
    add_evalset(tmp_path / "ids.txt", data)
    partial = validate(task, [c for c in default_checks(data.root) if c.name != "decontamination"])
    assert partial.status == "accepted"
    with data.open_catalog() as catalog:
        screen = landing_screen(catalog, data)
        landed = screen.land(partial)
    assert landed.status == "rejected" and landed.reasons[0].startswith("decontamination: canary")


def test_a_family_larger_than_a_file_is_split_and_loads_whole(built, tmp_path, monkeypatch):
    monkeypatch.setattr("taskforge.store.release.ROWS_PER_FILE", 3)
    files = _export(built["data"], "1.0.0", tmp_path / "split")
    assert {"data/literature/train-00000-of-00002.parquet", "data/literature/train-00001-of-00002.parquet",
            "envelope/literature/train-00001-of-00002.parquet"} <= set(files)
    rows = datasets.load_dataset(str(tmp_path / "split"), "literature", split="train", cache_dir=str(tmp_path / "hf"))
    assert sorted(r["extra_info"]["index"] for r in rows) == list(range(len(KINDS)))


def test_a_test_fraction_moves_whole_source_groups_to_a_test_split_that_loads(built, tmp_path):
    data, out = built["data"], tmp_path / "with-test"
    with data.open_catalog() as catalog:
        result = export_release(catalog, data, "1.1.0", out, release_screen(catalog, data, "1.1.0"), test_fraction=0.5)
    report = json.loads((out / "splits.json").read_text())
    by_id = {t.task_id: t for t in built["tasks"]}
    assert "splits.json" in result.checksums and report["test_fraction"] == 0.5
    for family, part in report["families"].items():
        assert result.splits[family] == {"train": part["train"], "test": part["test"]}
        assert part["train"] + part["test"] == result.rows[family] and part["train"] > 0
        sources = [source for group in part["groups"] for source in group["sources"]]
        assert len(sources) == len(set(sources)), f"{family}: each source in one group"
        for group in part["groups"]:
            assert {source_group(by_id[i]) for i in group["task_ids"]} == set(group["sources"])
    literature = report["families"]["literature"]
    assert literature["test"] == 0 and "share one source group" in literature["note"], "one paper collection"
    tested = [family for family, part in report["families"].items() if part["test"]]
    assert tested, "a family with several sources has a test split"
    for family in tested:
        rows = datasets.load_dataset(str(out), family, split="test", cache_dir=str(tmp_path / "hf"))
        expected = {i for g in report["families"][family]["groups"] if g["split"] == "test" for i in g["task_ids"]}
        assert {r["extra_info"]["task_id"] for r in rows} == expected
        assert {r["extra_info"]["split"] for r in rows} == {"test"}
        train = datasets.load_dataset(str(out), family, split="train", cache_dir=str(tmp_path / "hf"))
        assert not expected & {r["extra_info"]["task_id"] for r in train}
    header = DatasetCard((out / "README.md").read_text()).data
    configs = {c["config_name"]: [f["split"] for f in c["data_files"]] for c in header.configs}
    assert all(configs[family] == ["train", "test"] for family in tested) and configs["literature"] == ["train"]
    assert header.size_categories == ["n<1K"] and sum(result.rows.values()) == len(built["tasks"])
