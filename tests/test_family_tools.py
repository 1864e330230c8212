"""Each family's tool environment, driven by scripted actions in the real process sandbox: the solver's workspace
holds what the solver should see and nothing hidden, the network is off, paths cannot leave the workspace, and
what it submits is graded by the task's own reward (the reference scores 1, the untouched workspace 0)."""

from __future__ import annotations

import json
import os
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import yaml

from taskforge import sandbox
from taskforge.builders.base import BuildContext
from taskforge.builders.mle import MleBuilder
from taskforge.builders.swe import SweBuilder
from taskforge.builders.swe.source import materialize_sample
from taskforge.builders.workflow import WorkflowBuilder
from taskforge.flows.screening import release_screen
from taskforge.graders.reward import compute_score, reward_entry
from taskforge.graders.task_reward import score_task
from taskforge.graders.swe.harness import cache_root
from taskforge.graders.swe.patch import split_files
from taskforge.schemas import PlanItem, Task
from taskforge.store.layout import DataDir
from taskforge.store.release import export_release
from taskforge.tools import ToolEnvironmentError, open_tools, task_tools
from taskforge.tools.verl_config import TOOL_CONFIG, row_tools, tool_config
from conftest import REPO, SAMPLES
from factories import land_validated, literature_tasks, long_context_tasks, paper_collection
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
    small = {"min_test_rows": 0, "min_gap_sd": 0, "search_iterations": 2, "linear_at_or_below_median": False}
    (task,) = MleBuilder().build(item, BuildContext(cycle_id="test-mle", options={"source": str(folder),
                                                                                  "sandbox": "process", **small}))
    assert isinstance(task, Task), task
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


def test_workspace_files_go_in_and_out_one_transfer_at_a_time_and_leave_nothing_behind():
    item = PlanItem(family="workflow", capability="verification", quota=1, gap_ids=["gap-w"], priority=1.0)
    task = next(iter(WorkflowBuilder().build(item, BuildContext(
        cycle_id="test-io", options={"source": str(SAMPLES / "workflow_seeds")}))))
    with task_tools(task) as tools:
        assert tools.call("write_file", {"path": "/tmp/note", "content": "x"}).startswith("error: /tmp/note is outside")
        assert tools.call("write_file", {"path": "deep/note/inner.txt", "content": "inner"}).startswith("wrote")
        assert tools.call("read_file", {"path": "deep/note"}) == "error: deep/note is not a file in the workspace"
        assert tools.call("write_file", {"path": "note", "content": "top"}) == "wrote 3 characters to note"
        assert tools.call("read_file", {"path": "note"}) == "top", "a folder fetched before left nothing in the way"

        def write_then_read(index: int) -> str:
            tools.call("write_file", {"path": f"w{index}/same.txt", "content": f"text {index} " * 500})
            return tools.call("read_file", {"path": f"w{index}/same.txt"})

        with ThreadPoolExecutor(4) as pool:
            read = list(pool.map(write_then_read, range(8)))
        assert read == [f"text {index} " * 500 for index in range(8)]
        assert tools.call("run", {"command": "cat w*/same.txt | wc -c"}) == f"exit code 0\n{len(''.join(read))}"
        tools.call("submit", {})
        assert json.loads(tools.submission()) == {}


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


VERL_PYTHON = REPO / ".venv-verl" / "bin" / "python"


@pytest.fixture(scope="module")
def release(tmp_path_factory, swe_task, mle_task) -> Path:
    """A release of one task of every family, landed after every check, as a trainer downloads it."""
    root = tmp_path_factory.mktemp("verl")
    data = DataDir(root / "data")
    source = paper_collection(root / "papers.jsonl", count=120, seed=3)
    item = PlanItem(family="workflow", capability="verification", quota=1, gap_ids=["gap-w"], priority=1.0)
    workflow = next(iter(WorkflowBuilder().build(item, BuildContext(
        cycle_id="test-cycle", options={"source": str(SAMPLES / "workflow_seeds")}))))
    tasks = [*literature_tasks(source, data.root, ["find_papers"]), *long_context_tasks(1, target_tokens=2048),
             workflow, mle_task, swe_task]
    landed = land_validated(data, tasks)
    assert [t.status for t in landed] == ["accepted"] * len(tasks), [t.reasons for t in landed]
    with data.open_catalog() as catalog:
        export_release(catalog, data, "1.0.0", root / "release", release_screen(catalog, data, "1.0.0"))
    return root / "release"


def test_verl_loads_the_release_and_runs_every_family_through_its_own_tool_dispatch(release, tmp_path):
    if not VERL_PYTHON.exists():
        if os.environ.get("CI") == "true":
            pytest.fail("CI needs verl: `make verl-venv` builds .venv-verl")
        pytest.skip("verl is not installed here (`make verl-venv`)")
    out = tmp_path / "verl.json"
    env = {**os.environ, "TASKFORGE_RELEASE": str(release)}
    done = subprocess.run([str(VERL_PYTHON), str(REPO / "tests" / "verl_driver.py"), str(release), str(out)],
                          env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(out.read_text())
    assert report["tools"] == ["read", "read_file", "run", "search", "submit", "write_file"]
    families = report["families"]
    assert sorted(families) == ["literature", "long_context", "mle", "swe", "workflow"]
    for family, rows in families.items():
        for row in rows:
            rewards = {name: played["reward"] for name, played in row["policies"].items()}
            assert rewards["solves"] == 1.0 and rewards["idle"] == 0.0, (family, rewards)
            assert rewards.get("cheats", 0.0) == 0.0, (family, rewards)
            assert row["agent_name"] == ("single_turn_agent" if family == "long_context" else "tool_agent")
            assert row["raw_prompt_roles"][0] == "system"
    workflow = families["workflow"][0]
    assert workflow["tool_selection"] == ["run", "read_file", "write_file", "submit"]
    solved = workflow["policies"]["solves"]["calls"]
    assert solved[-1] == {"tool": "submit", "reward": 1.0, "text": "submitted"}
    assert all(call["reward"] is None for call in solved[:-1])
    cheat = [call["text"] for call in workflow["policies"]["cheats"]["calls"]]
    assert "leaves /workspace" in cheat[0] and "No such file" in cheat[1] and "exit code 0" not in cheat[1]
    assert families["literature"][0]["tool_selection"] == ["search", "read"]
    assert '"results"' in families["literature"][0]["policies"]["solves"]["calls"][0]["text"]
    assert report["open_trajectories"] == 0, "every trajectory's workspace is closed when verl drops its agent data"


def test_the_shipped_verl_tool_config_is_the_generated_one_and_names_every_tool():
    shipped = yaml.safe_load(TOOL_CONFIG.read_text())
    assert shipped == tool_config()
    assert [t["tool_schema"]["function"]["name"] for t in shipped["tools"]] == [
        "search", "read", "run", "read_file", "write_file", "submit"]
    assert {t["class_name"] for t in shipped["tools"]} == {"taskforge.tools.verl_tools.TaskforgeTool"}
    assert row_tools("long_context") == [] and row_tools("mle") == row_tools("swe") == row_tools("workflow")


def test_a_workspace_trajectory_in_verl_scores_what_its_submit_graded():
    assert compute_score("taskforge/swe", "any reply", "{}", {"tool_rewards": [0.0, 0.5]}) == 0.5
    assert compute_score("taskforge/workflow", "any reply", "{}", {"tool_rewards": []}) == 0.0
