"""`inspect eval` of a release's exported Inspect tasks with Inspect's own mock model (`mockllm/model`): the
default agent solver (the model's reply, the family's tools offered: literature's search/read, bash/python in
the workspace families' sandbox) scores 0 on every sample and the reference solver scores 1, with no sample
error; every row of the train and test files is a sample. Tiktoken's `o200k_base` (the mock model counts tokens
with it when tools are offered) is read from `$TIKTOKEN_CACHE_DIR` when set, else from a folder seeded from npm's
js-tiktoken once (`taskforge.store.tiktoken_cache`): nothing is downloaded from tiktoken's own host."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from inspect_ai import eval as inspect_eval

from factories import land_validated, literature_tasks, long_context_tasks, paper_collection
from test_release import workflow_tasks
from taskforge import sandbox
from taskforge.builders.literature.kinds import KINDS
from taskforge.flows.screening import release_screen
from taskforge.store.inspect_export import TASKS_FILE, release_task
from taskforge.store.layout import DataDir
from taskforge.store.release import export_release
from taskforge.store.tiktoken_cache import seed_from_npm

TOOLS = {"literature": {"search", "read"}, "long_context": set(), "workflow": {"bash", "python"}}
"""The tools the agent solver offers the model, per family."""


@pytest.fixture(scope="module")
def release(tmp_path_factory):
    """A release of literature, long-context and workflow tasks (checked in the process sandbox), split."""
    root = tmp_path_factory.mktemp("inspect")
    data = DataDir(root / "data")
    with pytest.MonkeyPatch.context() as patch:
        chosen = sandbox.get_sandbox("process")
        patch.setattr(sandbox, "default_sandbox", lambda: chosen)
        tasks = (literature_tasks(paper_collection(root / "papers.jsonl", count=200, seed=3), data.root, list(KINDS))
                 + long_context_tasks(2, target_tokens=4096) + workflow_tasks(2))
        assert {t.status for t in land_validated(data, tasks)} == {"accepted"}
    with data.open_catalog() as catalog:
        export_release(catalog, data, "1.0.0", root / "release", release_screen(catalog, data, "1.0.0"),
                       test_fraction=0.5)
    return root / "release"


@pytest.fixture(scope="module", autouse=True)
def tiktoken_cache():
    """One tiktoken cache folder for the module (a set `$TIKTOKEN_CACHE_DIR` is kept), seeded offline."""
    folder = os.environ.get("TIKTOKEN_CACHE_DIR") or os.path.join(tempfile.gettempdir(), "taskforge-test-tiktoken")
    seed_from_npm(Path(folder))
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TIKTOKEN_CACHE_DIR", folder)
        yield


def _eval(release, family: str, solver: str, log_dir) -> list:
    """The samples of one eval of a family's task, each without an error."""
    [log] = inspect_eval(release_task(release, family, solver), model="mockllm/model", log_dir=str(log_dir),
                         display="none")
    assert log.status == "success", log.error
    assert all(sample.error is None for sample in log.samples)
    return log.samples


def _score(sample) -> float:
    """The reward a sample scored."""
    return sample.scores["reward_scorer"].value


@pytest.mark.parametrize("family", sorted(TOOLS))
def test_the_mock_model_scores_0_and_the_reference_solver_1_on_every_sample(release, family, tmp_path):
    assert (release / TASKS_FILE).is_file()
    rows = sum(pq.read_metadata(path).num_rows for path in (release / "data" / family).glob("*.parquet"))
    agent = _eval(release, family, "agent", tmp_path)
    assert len(agent) == rows and {_score(sample) for sample in agent} == {0.0}, "each row of each split, 0"
    offered = {tool.name for sample in agent for event in sample.events if event.event == "model"
               for tool in event.tools}
    assert offered == TOOLS[family]
    assert {_score(sample) for sample in _eval(release, family, "reference", tmp_path)} == {1.0}
