"""Each family's tool environment, driven by scripted actions in the real process sandbox: the solver's workspace
holds what the solver should see and nothing hidden, the network is off, paths cannot leave the workspace, and
what it submits is graded by the task's own reward (the reference scores 1, the untouched workspace 0)."""

from __future__ import annotations

import os

import pytest

from taskforge import sandbox
from taskforge.builders.base import BuildContext
from taskforge.builders.mle import MleBuilder
from taskforge.builders.swe import SweBuilder
from taskforge.builders.swe.source import materialize_sample
from taskforge.graders.reward import reward_entry, score_task
from taskforge.graders.swe.harness import cache_root
from taskforge.graders.swe.patch import split_files
from taskforge.schemas import PlanItem, Task
from taskforge.store.layout import DataDir
from taskforge.tools import ToolEnvironmentError, open_tools, task_tools
from conftest import SAMPLES
from factories import literature_tasks, paper_collection
from mle_data import generated_frame, write_dataset

NO_NETWORK = "python3 -c \"import urllib.request as u; u.urlopen('http://93.184.216.34', timeout=5)\""


@pytest.fixture(scope="module", autouse=True)
def process_sandbox():
    with pytest.MonkeyPatch.context() as patch:
        before = os.environ.get("TASKFORGE_SANDBOX")
        patch.setenv("TASKFORGE_SANDBOX", "process")
        sandbox.default_sandbox.cache_clear()
        yield
    if before is None:
        os.environ.pop("TASKFORGE_SANDBOX", None)
    sandbox.default_sandbox.cache_clear()


@pytest.fixture(scope="module")
def swe_task() -> Task:
    """The sample history's task whose fix is a division guard (built like tests/test_swe_build.py builds it)."""
    sample = SAMPLES / "swe" / "calc_history.py"
    commits = materialize_sample(sample, cache_root())
    item = PlanItem(family="swe", capability="implementation", quota=10, gap_ids=["gap-1"], priority=1.0)
    tasks = list(SweBuilder().build(item, BuildContext(cycle_id="test", options={"source": str(sample)})))
    return next(t for t in tasks if isinstance(t, Task) and t.reference["fix_commit"] == commits["div_fix"])


@pytest.fixture(scope="module")
def mle_task(tmp_path_factory) -> Task:
    folder = tmp_path_factory.mktemp("mle") / "datasets"
    write_dataset(generated_frame("binary", rows=300, seed=1), folder, "generated_binary")
    item = PlanItem(family="mle", capability="implementation", quota=1, gap_ids=["gap-m"], priority=1.0)
    (task,) = MleBuilder().build(item, BuildContext(cycle_id="test-mle", options={"source": str(folder),
                                                                                  "sandbox": "process"}))
    return task


def test_swe_workspace_is_the_repository_at_its_base_and_a_fix_made_there_resolves_the_task(swe_task):
    with task_tools(swe_task) as tools:
        assert [t["function"]["name"] for t in tools.tools] == ["run", "read_file", "write_file", "submit"]
        seen = tools.call("run", {"command": "git log --oneline | wc -l && git status --short && which python"})
        assert seen.startswith("exit code 0") and "/workspace/env/bin/python" in seen
        history = tools.call("run", {"command": f"git cat-file -t {swe_task.reference['fix_commit']}"})
        assert "exit code 0" not in history, "the fix commit is not in the solver's repository"
        hidden = {test.split("::")[-1].split("[")[0] for test in swe_task.payload["FAIL_TO_PASS"]}
        for held_out in split_files(swe_task.reference["test_patch"]):
            text = tools.call("read_file", {"path": held_out.new_path})
            assert text.startswith("error:") or not any(name in text for name in hidden), "held-out tests hidden"
        assert "exit code 0" not in tools.call("run", {"command": NO_NETWORK})
        assert tools.call("write_file", {"path": "../fix.diff", "content": swe_task.reference["patch"]}).startswith(
            "wrote")
        assert tools.call("run", {"command": "git apply ../fix.diff && python -c 'print(1)'"}).startswith(
            "exit code 0")
        assert tools.call("submit", {}) == "submitted" and tools.submitted
        submission = tools.submission()
    assert "fix.diff" not in submission and score_task(swe_task, submission) == 1.0
    with task_tools(swe_task) as untouched:
        untouched.call("submit", {})
        assert untouched.submission() == "" and score_task(swe_task, "") == 0.0


def test_mle_workspace_holds_the_public_files_and_the_science_environment_not_the_answers(mle_task):
    with task_tools(mle_task) as tools:
        listing = tools.call("run", {"command": "find . -type f | sort && python -c 'import sklearn, pandas'"})
        assert listing.startswith("exit code 0")
        assert {"./data/train.csv", "./data/test.csv", "./data/sample_submission.csv"} <= set(listing.split())
        assert "answers" not in listing and "exit code 0" not in tools.call("run", {"command": NO_NETWORK})
        public_test = tools.call("read_file", {"path": "data/test.csv"})
        assert mle_task.payload["target_column"] not in public_test.splitlines()[0].split(",")
        model = ("import pandas as pd\nfrom sklearn.ensemble import RandomForestClassifier\n"
                 "tr, te = pd.read_csv('data/train.csv'), pd.read_csv('data/test.csv')\n"
                 "X = pd.get_dummies(tr.drop(columns=['id', 'label']))\n"
                 "T = pd.get_dummies(te.drop(columns=['id'])).reindex(columns=X.columns, fill_value=0)\n"
                 "m = RandomForestClassifier(random_state=0).fit(X, tr['label'])\n"
                 "pd.DataFrame({'id': te['id'], 'label': m.predict_proba(T)[:, 1]})"
                 ".to_csv('submission/submission.csv', index=False)\n")
        tools.call("write_file", {"path": "model.py", "content": model})
        assert tools.call("run", {"command": "python model.py && wc -l submission/submission.csv"}).startswith(
            "exit code 0")
        tools.call("submit", {})
        trained = score_task(mle_task, tools.submission())
    assert 0.0 <= trained <= 1.0
    with task_tools(mle_task) as tools:
        tools.call("write_file", {"path": "/workspace/submission/submission.csv",
                                  "content": mle_task.reference["best_submission"]})
        tools.call("submit", {})
        assert score_task(mle_task, tools.submission()) == 1.0


def test_literature_tools_search_and_read_the_collection_and_submit_an_answer(tmp_path):
    data = DataDir(tmp_path / "data")
    source = paper_collection(tmp_path / "papers.jsonl", count=120, seed=3)
    task = literature_tasks(source, data.root, ["find_papers"])[0]
    with pytest.raises(ToolEnvironmentError, match="no tool environment for family 'poetry'"):
        open_tools("poetry", {}, {})
    tools = task_tools(task, data.root)
    assert [t["function"]["name"] for t in tools.tools] == ["search", "read", "submit"]
    assert '"results"' in tools.call("search", {"query": task.payload["question"], "k": 3})
    assert tools.call("run", {"command": "ls"}).startswith("error: no tool 'run' here")
    answer = reward_entry("literature").reference_submission(task.reference, task.grader)
    tools.call("submit", {"answer": answer})
    assert tools.submitted and score_task(task, tools.submission()) == 1.0
