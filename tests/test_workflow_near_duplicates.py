"""The near-duplicate screen judges what a workflow solver sees: the prompt and the input files. Siblings of the
commission seed with one prompt and inputs generated apart are both kept; the same prompt over the same inputs,
or a near-copy of the prompt over them, is removed, through every way a signature is made (the check on a task,
the landing screen on Arrow rows without a batch file's signature, a registered earlier release)."""

from __future__ import annotations

import json

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from taskforge import sandbox
from taskforge.builders.workflow.generation import generated
from taskforge.builders.workflow.prompting import messages
from taskforge.builders.workflow.seeds import load_seed
from taskforge.schemas import Lineage, Message, Task, ValidationResult, task_id_for
from taskforge.schemas.arrow import to_table
from taskforge.store.rl_view import rl_row, rl_schema
from taskforge.validators.near_duplicates import (PART_BYTES, NearDuplicateCheck, NearDuplicateIndex, asked_text,
                                                  release_signatures, signature, task_signatures)
from taskforge.validators.screen import Screen
from conftest import SAMPLES

SEED = SAMPLES / "workflow_seeds" / "sales-commission-run"


@pytest.fixture(scope="module")
def siblings():
    """Two commission packages with one prompt and inputs generated from two data seeds (a small scale)."""
    with pytest.MonkeyPatch.context() as patch:
        chosen = sandbox.get_sandbox("process")
        patch.setattr(sandbox, "default_sandbox", lambda: chosen)
        seed = load_seed(SEED)
        return [generated(seed, data_seed, scale=0.1).package for data_seed in (3, 4)]


def _task(package, task_id: str | None = None, prompt: list[Message] | None = None) -> Task:
    """A workflow task of a package as the screen reads it (decontaminated, accepted)."""
    payload = package.model_dump(mode="json")
    grader = {"deliverables": [d.grading() for d in package.deliverables]}
    return Task(task_id=task_id or task_id_for("workflow", package.domain, payload), family="workflow",
                kind=package.domain, capability="verification", prompt=prompt or messages(package), payload=payload,
                reference={}, grader=grader, status="accepted",
                validation=[ValidationResult(check="decontamination", passed=True)],
                lineage=Lineage(cycle_id="c", resource_id=f"workflow-seed:{package.seed_id}", resource_revision="r",
                                builder="workflow.seed_evolution", builder_version="0"))


def _near_copy(task: Task) -> list[Message]:
    """The task's prompt with one word of its request changed."""
    user = task.prompt[-1].content
    changed = user.replace(" the ", " a ", 1)
    assert changed != user
    return [*task.prompt[:-1], Message(role="user", content=changed)]


@pytest.fixture(scope="module")
def tasks(siblings):
    """The first sibling, the second, a copy of the first under another id, a near-copy of its prompt."""
    first, second = (_task(package) for package in siblings)
    return [first, second, _task(siblings[0], task_id="workflow-copy"),
            _task(siblings[0], task_id="workflow-near-copy", prompt=_near_copy(first))]


def test_the_siblings_share_their_prompt_and_not_their_inputs(tasks):
    first, second, *_ = tasks
    assert first.prompt == second.prompt and first.task_id != second.task_id
    assert first.payload["inputs"] != second.payload["inputs"]


def test_siblings_are_kept_and_copies_over_the_same_inputs_removed(tasks):
    check = NearDuplicateCheck(NearDuplicateIndex(), origin="landed")
    results = [check.run(task) for task in tasks]
    assert [r.passed for r in results] == [True, True, False, False]
    first = tasks[0].task_id
    assert [r.detail["matches"][0]["task_id"] for r in results[2:]] == [first, first]
    assert results[2].score == 1.0 and results[3].score >= 0.8


def test_the_landing_screen_signs_rows_without_a_signature_the_same_way(tasks):
    screen = Screen(None, NearDuplicateIndex(), origin="landed")
    added = screen.land_rows(to_table(tasks, Task), np.arange(len(tasks)))
    assert [[r.check for r in results] for results in added] == [["near_duplicate"]] * 4
    assert [results[0].passed for results in added] == [True, True, False, False]
    assert [signed for _, signed in screen.passed.values()] == task_signatures(tasks[:2])


def test_a_signature_is_the_prompts_then_the_inputs_and_a_task_without_inputs_is_signed_by_its_prompt(tasks):
    signed = task_signatures(tasks)
    assert all(len(s) == 2 * PART_BYTES for s in signed)
    assert signed[0][:PART_BYTES] == signed[1][:PART_BYTES] == signature(asked_text(tasks[0].prompt))
    bare = tasks[0].model_copy(update={"payload": {**tasks[0].payload, "inputs": {}}})
    assert task_signatures([bare]) == [signature(asked_text(bare.prompt))]


def test_an_earlier_release_is_signed_with_its_inputs(tasks, tmp_path):
    folder = tmp_path / "release"
    (folder / "data" / "workflow").mkdir(parents=True)
    (folder / "checksums.json").write_text(json.dumps({}))
    rows = [rl_row(task, n, []) for n, task in enumerate(tasks[:2])]
    pq.write_table(pa.Table.from_pylist(rows, schema=rl_schema([])), folder / "data" / "workflow" / "train.parquet")
    registered = release_signatures(folder).to_pylist()
    index = NearDuplicateIndex()
    for row in registered:
        index.add(row["task_id"], "release rel-1", row["signature"], row["parent_task_id"])
    check = NearDuplicateCheck(index, origin="landed")
    assert [check.run(task).passed for task in tasks[2:]] == [False, False]
    assert all(len(row["signature"]) == 2 * PART_BYTES for row in registered)
