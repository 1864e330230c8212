"""The SWE builder and checks end to end on the scripted sample history, in the real sandbox (network off).

One module-wide build: the environment is built once (wheels from PyPI on the host, the virtual
environment inside the sandbox), every candidate is harvested and validated.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from contextlib import contextmanager

import datasets
import pytest

from taskforge import sandbox

from taskforge.builders.base import BuildContext
from taskforge.builders.swe import SweBuilder, ensure_snapshot
from taskforge.builders.swe.environment import build_environment
from taskforge.builders.swe.recipe import detect_recipe
from taskforge.builders.swe.source import materialize_sample, open_source
from conftest import SAMPLES
from taskforge.flows.cli import main
from reward_checks import assert_reward_contract
from taskforge.graders.reward import compute_score, reward_entry
from taskforge.graders.swe.grading import grade
from taskforge.graders.swe.harness import (CACHE_ENV, TaskBed, cache_root, grading_session,
                                          whole_shortcut_run)
from taskforge.schemas import Message, PlanItem, Quarantined, Task
from taskforge.store.batches import write_batch
from taskforge.store.rl_view import rl_row
from taskforge.store.swebench import to_instance
from taskforge.validators.questions import QUESTIONS, parts_of
from taskforge.validators.runner import validate
from taskforge.validators.swe import shortcuts as swe_shortcuts
from taskforge.validators.swe.execution import outcomes_for

SAMPLE = SAMPLES / "swe" / "calc_history.py"
FLAKY = "tests/test_flaky.py::test_sometimes"


@contextmanager
def sandbox_kind(kind: str):
    """Run the enclosed code on one sandbox backend (the default backend is chosen once per process)."""
    before = os.environ.get("TASKFORGE_SANDBOX")
    os.environ["TASKFORGE_SANDBOX"] = kind
    sandbox.default_sandbox.cache_clear()
    try:
        yield
    finally:
        os.environ.pop("TASKFORGE_SANDBOX") if before is None else os.environ.update(TASKFORGE_SANDBOX=before)
        sandbox.default_sandbox.cache_clear()


@pytest.fixture(scope="module")
def swe_cache():
    """The SWE cache of the test session (conftest points `$TASKFORGE_SWE_CACHE` at a temporary folder)."""
    return cache_root()


@pytest.fixture(scope="module")
def built(swe_cache):
    """Every candidate of the sample history, built and validated, by role of its fix commit."""
    commits = materialize_sample(SAMPLE, swe_cache)
    item = PlanItem(family="swe", capability="implementation", quota=10, gap_ids=["gap-1"], priority=1.0)
    roles = {sha: role for role, sha in commits.items()}
    with sandbox_kind("process"):
        tasks = list(SweBuilder().build(item, BuildContext(cycle_id="test", options={"source": str(SAMPLE)})))
        return commits, {roles[t.reference["fix_commit"]]: validate(t) for t in tasks}


def failed_checks(task):
    return {r.check for r in task.validation if not r.passed}


def test_the_right_candidates_are_accepted(built):
    _, tasks = built
    assert set(tasks) == {"div_fix", "already_passing", "mul_fix_flaky", "power_merge", "sub_absolute"}
    accepted = {role for role, task in tasks.items() if task.status == "accepted"}
    assert accepted == {"div_fix", "mul_fix_flaky", "power_merge"}, {r: t.reasons for r, t in tasks.items()}
    assert tasks["sub_absolute"].reasons == [
        "reference: statement_states_interface: the statement specifies no behaviour: each behaviour it lists only "
        "shows that a parameter the fix adds (sub: absolute) is missing, and what the solver reads of them (shown "
        "docstrings, the base commit's docstrings) says 0 word(s) (fewer than 20; the docstring lines the fix adds "
        "are never shown)"], "its one symptom is `sub() got an unexpected keyword argument 'absolute'`"
    div = tasks["div_fix"]
    assert div.payload["FAIL_TO_PASS"] == ["tests/test_ops.py::test_div_by_zero"]
    assert div.payload["PASS_TO_PASS"] == ["tests/test_ops.py::test_add", "tests/test_ops.py::test_sub"]
    assert div.payload["statement_origin"] == "issue" and div.payload["hints_text"] == "Confirmed on main."
    assert [r.check for r in div.validation] == list(QUESTIONS)
    strategies = {r.check: r.detail.get("strategy") for r in div.validation}
    assert strategies["noop"] == ["swe_noop"] and strategies["shortcut"] == ["swe_shortcuts"]
    assert all(r.detail.get("not_applicable") for r in div.validation if r.check in ("determinism", "review"))
    assert tasks["power_merge"].payload["instance_id"] == "local__calc-7"


def test_a_test_that_already_passes_is_rejected_by_the_noop_check(built):
    _, tasks = built
    task = tasks["already_passing"]
    assert task.payload["FAIL_TO_PASS"] == [] and "tests/test_ops.py::test_clamp_bounds" in task.payload["PASS_TO_PASS"]
    assert failed_checks(task) == {"noop", "shortcut"}
    assert "no FAIL_TO_PASS test" in task.reasons[0] and "the empty_patch shortcut scores 1.0" in task.reasons[1]


def test_the_flaky_test_is_dropped(built):
    _, tasks = built
    task = tasks["mul_fix_flaky"]
    assert task.environment["harvest"]["flaky"] == [FLAKY]
    assert FLAKY not in task.payload["FAIL_TO_PASS"] + task.payload["PASS_TO_PASS"]
    assert task.payload["FAIL_TO_PASS"] == ["tests/test_ops.py::test_mul_negative"]
    outcomes = [run["statuses"].get(FLAKY) for run in task.environment["harvest"]["solution"]]
    assert len(set(outcomes)) == 2, "the runs with the solution disagree on the flaky test"


def test_runs_are_recorded_as_task_metadata(built):
    _, tasks = built
    task = tasks["div_fix"]
    harvest = task.environment["harvest"]
    assert len(harvest["solution"]) == 3 and harvest["empty"]["statuses"]["tests/test_ops.py::test_div_by_zero"] == "FAILED"
    noop = next(r for r in task.validation if r.check == "noop")
    reference = next(r for r in task.validation if r.check == "reference")
    assert noop.score == 0.0 and noop.detail["verdict"]["FAIL_TO_PASS"]["failure"] == ["tests/test_ops.py::test_div_by_zero"]
    run_part = parts_of(reference)["swe_reference"]
    assert run_part.detail["scores"] == [1.0, 1.0, 1.0]
    assert noop.detail["runs_cached"] and run_part.detail["runs_cached"], "the checks re-derive from the build's runs"
    assert task.payload["committed_at"] == "2025-03-02T12:00:00Z"
    assert task.environment["network"] is False and task.grader["test_files"] == ["tests/test_ops.py"]


def test_the_shortcut_patches_run_in_the_task_session_and_stay_out_of_the_task(built):
    _, tasks = built
    task = tasks["mul_fix_flaky"]
    outcomes = outcomes_for(task)
    assert outcomes.cached, "the checks read the build's session back instead of running one of their own"
    assert set(outcomes.shortcuts) == {"test_patch_alone", "revert_last_touched"}
    assert outcomes.shortcuts["test_patch_alone"] == outcomes.empty.statuses, "the grader puts the test patch back whole"
    assert outcomes.shortcuts["revert_last_touched"]["tests/test_ops.py::test_mul_negative"] == "FAILED"
    shortcut = parts_of(next(r for r in task.validation if r.check == "shortcut"))["swe_shortcuts"]
    assert shortcut.detail["scores"] == {"empty_patch": 0.0, "test_patch_alone": 0.0, "revert_last_touched": 0.0}
    assert set(task.environment["harvest"]) == {"empty", "solution", "solution_applied", "flaky", "FAIL_TO_FAIL",
                                                "PASS_TO_FAIL"}, "the shortcut runs are not part of the task"


def test_a_stopped_shortcut_run_is_run_again_whole_for_lists_it_does_not_decide(built, monkeypatch):
    _, tasks = built
    task = tasks["mul_fix_flaky"]
    outcomes = outcomes_for(task)
    assert outcomes.shortcuts_stopped == ["revert_last_touched"], "the run stops at its failing FAIL_TO_PASS test"
    reached = outcomes.shortcuts["revert_last_touched"]
    assert grade(reached, task.payload["FAIL_TO_PASS"], task.payload["PASS_TO_PASS"]).score == 0.0
    passed = sorted(test for test, status in reached.items() if status == "PASSED" and test != FLAKY)
    other_lists = task.model_copy(update={"payload": {**task.payload, "FAIL_TO_PASS": [], "PASS_TO_PASS": passed}})
    whole_runs = []

    def whole(*args):
        whole_runs.append(whole_shortcut_run(*args))
        return whole_runs[-1]

    monkeypatch.setattr(swe_shortcuts, "whole_shortcut_run", whole)
    with sandbox_kind("process"):
        scores = swe_shortcuts.swe_shortcut_scores(other_lists)
    assert len(whole_runs) == 1, "what the stopped run reached does not decide these lists"
    steady = {test: status for test, status in reached.items() if test != FLAKY}
    assert {test: whole_runs[0].get(test) for test in steady} == steady, "the tests it reached ran as in the whole run"
    assert scores["revert_last_touched"] == grade(whole_runs[0], [], passed).score == 1.0


def test_snapshots_pass_the_leakage_audit_and_hold_nothing_after_the_base(built, swe_cache):
    commits, tasks = built
    for task in tasks.values():
        assert "leakage" not in failed_checks(task)
    snapshot = swe_cache / tasks["power_merge"].environment["snapshot"]
    logged = subprocess.run(["git", "-C", str(snapshot), "log", "--all", "--format=%H"], capture_output=True,
                            text=True, check=True).stdout.split()
    assert logged[0] == commits["mul_fix_flaky"]
    assert not {commits[c] for c in ("power_branch", "power_merge", "readme", "changelog")} & set(logged)
    tags = subprocess.run(["git", "-C", str(snapshot), "tag"], capture_output=True, text=True, check=True).stdout
    assert tags == ""


def test_a_planted_leak_in_the_snapshot_is_rejected(built, swe_cache):
    commits, tasks = built
    task = tasks["div_fix"]
    leaked_snapshot = task.environment["snapshot"] + "-leaked"
    shutil.copytree(swe_cache / task.environment["snapshot"], swe_cache / leaked_snapshot)
    subprocess.run(["git", "-C", str(swe_cache / leaked_snapshot), "fetch", "-q", commits["path"],
                    task.reference["fix_commit"]], check=True)
    subprocess.run(["git", "-C", str(swe_cache / leaked_snapshot), "tag", "next", task.reference["fix_commit"]],
                   check=True)
    planted = task.model_copy(update={"environment": {**task.environment, "snapshot": leaked_snapshot},
                                      "validation": [], "status": "candidate"})
    assert "leakage" in failed_checks(validate(planted))


def test_planted_defects_are_rejected_by_the_execution_checks(built):
    _, tasks = built
    task = tasks["div_fix"].model_copy(update={"validation": [], "status": "candidate"})
    wrong_list = task.model_copy(update={"payload": {**task.payload, "FAIL_TO_PASS": [
        "tests/test_ops.py::test_div_by_zero", "tests/test_ops.py::test_missing"]}})
    assert failed_checks(validate(wrong_list)) == {"reference"}
    no_fix = task.model_copy(update={"reference": {**task.reference, "patch": ""}})
    rejected = validate(no_fix)
    assert failed_checks(rejected) == {"noop", "reference"}, "the runs with an empty solution give no FAIL_TO_PASS"
    assert "FAIL_TO_PASS names tests/test_ops.py::test_div_by_zero, which does not pass with the solution" in \
        rejected.reasons[1]
    quoted = task.model_copy(update={"prompt": [task.prompt[0], Message(
        role="user", content=task.prompt[1].content + '\n        raise ZeroDivisionError("division by zero")')]})
    assert failed_checks(validate(quoted)) == {"leakage"}


def test_the_statement_gives_symptoms_and_states_the_interface_the_hidden_tests_need(built):
    _, tasks = built
    sub = tasks["sub_absolute"]
    assert sub.payload["statement_origin"] == "symptoms"
    assert "Add an absolute option" not in sub.payload["problem_statement"], "never the commit message"
    assert "absolute" in sub.payload["problem_statement"] and "statement" not in failed_checks(sub)
    assert "def sub(a, b, absolute=False)" not in sub.prompt[1].content


def _with_statement(task, statement):
    """A stored copy of a task whose issue reads `statement`."""
    shown = task.prompt[1].content.replace(task.payload["problem_statement"].strip(), statement)
    return task.model_copy(update={"prompt": [task.prompt[0], Message(role="user", content=shown)],
                                   "validation": [], "status": "candidate"})


def test_a_statement_naming_the_fix_or_leaving_out_the_interface_is_rejected(built):
    _, tasks = built
    sub = tasks["sub_absolute"]
    named = validate(_with_statement(sub, "Add an absolute option to sub\nsub should take the absolute value."))
    assert failed_checks(named) == {"leakage"} and "statement_hides_fix: " in named.reasons[0]
    assert "fix commit's subject" in named.reasons[0]
    change = validate(_with_statement(sub, "fix: sub keeps the sign\nsub(2, 5, absolute=True) gives -3."))
    assert failed_checks(change) == {"leakage"} and "change description" in change.reasons[0]
    quoted = validate(_with_statement(sub, "sub is wrong\nIt should be: return abs(difference) if absolute else difference"))
    assert failed_checks(quoted) == {"leakage"} and "quotes" in quoted.reasons[0]
    unstated = validate(_with_statement(sub, "sub cannot give a distance\nsub(2, 5) is -3; I need 3 as well."))
    assert failed_checks(unstated) == {"reference"}
    assert ("statement_states_interface: the hidden tests call absolute, which the statement never mentions"
            in unstated.reasons[0])


def test_the_statement_states_the_exception_the_hidden_test_expects_and_a_statement_without_it_is_rejected(built):
    _, tasks = built
    div = tasks["div_fix"]
    statement = div.payload["problem_statement"]
    assert statement.endswith("The checks also expect:\n- div by zero: raises ZeroDivisionError"), statement
    assert not failed_checks(div)
    issue_only = validate(_with_statement(div, statement.split("\n\nThe checks also expect")[0]))
    assert failed_checks(issue_only) == {"reference"}
    assert ("statement_states_interface: the hidden tests expect what the statement never states: "
            "raises ZeroDivisionError" in issue_only.reasons[0])


def test_stored_rows_are_revalidated_by_rerunning_their_tests(built, tmp_path, capsys):
    _, tasks = built
    good = tasks["div_fix"].model_copy(update={"validation": [], "status": "candidate"})
    passing_before = good.model_copy(update={"payload": {**good.payload, "FAIL_TO_PASS": [
        *good.payload["FAIL_TO_PASS"], "tests/test_ops.py::test_add"]}})
    left_out = good.model_copy(update={"payload": {**good.payload, "PASS_TO_PASS": ["tests/test_ops.py::test_add"]}})
    path = tmp_path / "stored.parquet"
    write_batch(path, [good, passing_before, left_out], Task)
    assert main(["validate", str(path), "--data-dir", str(tmp_path / "data"), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["tasks"]
    assert [row["status"] for row in rows] == ["accepted", "rejected", "rejected"], rows
    assert rows[1]["reasons"] == ("reference: swe_reference: FAIL_TO_PASS names tests/test_ops.py::test_add, which "
                                  "passes before the patch")
    assert rows[2]["reasons"] == "reference: swe_reference: PASS_TO_PASS leaves out tests/test_ops.py::test_sub"


def test_a_shallow_clone_builds_and_only_its_boundary_commit_is_quarantined(built, tmp_path):
    commits, tasks = built
    clone = tmp_path / "calc"
    subprocess.run(["git", "clone", "-q", "--depth", "5", f"file://{commits['path']}", str(clone)], check=True)
    item = PlanItem(family="swe", capability="implementation", quota=10, gap_ids=[], priority=1.0)
    with sandbox_kind("process"):
        out = list(SweBuilder().build(item, BuildContext(cycle_id="test", options={"source": str(clone)})))
    quarantined = [o for o in out if isinstance(o, Quarantined)]
    assert [q.source for q in quarantined] == [f"repo:local/calc@{commits['mul_fix_flaky'][:12]}"]
    assert "shallow clone" in quarantined[0].reason
    built_ids = {o.task_id for o in out if not isinstance(o, Quarantined)}
    assert built_ids == {tasks["sub_absolute"].task_id, tasks["power_merge"].task_id}, "the same tasks as from the full history"


def test_task_sessions_bind_the_prepared_environment_read_only(built):
    _, tasks = built
    task = tasks["div_fix"]
    bed = TaskBed.of(task.payload, task.grader, task.environment)
    assert bed.ready, "the environment is ready: sessions install nothing"
    with sandbox_kind("process"), grading_session(bed, {}) as live:
        wrote = live.exec("touch env/planted", 60.0)
        imported = live.exec("cd repo && ../env/bin/python -c 'import calc.ops'", 60.0)
    assert wrote.exit_code != 0 and not (bed.env / "planted").exists()
    assert imported.exit_code == 0, imported.stderr


def test_swe_bench_instances_are_exported(built):
    _, tasks = built
    instance = to_instance(tasks["div_fix"])
    assert set(instance) >= {"repo", "instance_id", "base_commit", "patch", "test_patch", "problem_statement",
                             "hints_text", "created_at", "version", "FAIL_TO_PASS", "PASS_TO_PASS",
                             "environment_setup_commit"}
    assert json.loads(instance["FAIL_TO_PASS"]) == ["tests/test_ops.py::test_div_by_zero"]
    assert instance["repo"] == "local/calc" and instance["version"] == "0.1"
    assert instance["created_at"] == "2025-03-02T12:00:00Z"


def test_the_rl_reward_grades_patches_in_the_sandbox_reference_one_noop_zero(built):
    _, tasks = built
    task = tasks["div_fix"]
    row = rl_row(task, 0, ())
    truth, info = row["reward_model"]["ground_truth"], row["extra_info"]
    broken = json.loads(truth)["patch"].replace("+", "+#", 1)
    with sandbox_kind("process"):
        assert_reward_contract(row)
        assert compute_score(row["data_source"], broken, truth, info) == 0.0, "a patch that does not apply scores 0"


def _commit_all(repo, message):
    subprocess.run(["git", "-C", str(repo), "add", "-A"], check=True)
    subprocess.run(["git", "-C", str(repo), "-c", "user.name=a", "-c", "user.email=a@b", "commit", "-qm", message],
                   check=True)


def test_a_repository_that_will_not_build_is_quarantined_with_its_log_and_not_retried(swe_cache, tmp_path):
    repo = tmp_path / "broken"
    (repo / "tests").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "tool.py").write_text("def value():\n    return 1\n")
    (repo / "tests" / "test_tool.py").write_text("import taskforge_no_such_module_xyz\n")
    _commit_all(repo, "initial")
    (repo / "tool.py").write_text("def value():\n    return 2\n")
    (repo / "tests" / "test_tool.py").write_text("import taskforge_no_such_module_xyz\n\n\ndef test_value():\n"
                                                 "    assert True\n")
    _commit_all(repo, "value is 2")
    item = PlanItem(family="swe", capability="implementation", quota=4, gap_ids=[], priority=1.0)
    (built,) = SweBuilder().build(item, BuildContext(cycle_id="test", options={"source": str(repo)}))
    assert isinstance(built, Quarantined) and built.stage == "build" and built.source.startswith("repo:local/broken@")
    assert "did not build" in built.reason
    assert "taskforge-no-such-module-xyz" in built.detail["log_tail"] or "taskforge_no_such_module_xyz" in built.detail["log_tail"]
    assert str(tmp_path) not in built.detail["log_tail"]
    source = open_source(str(repo), swe_cache)
    base = source.repo.commit("HEAD~1").hexsha
    record = build_environment(source.name, base, detect_recipe(source.repo, base), ensure_snapshot(source, base))
    assert record.status == "failed" and 1 < record.attempts <= 4, "repaired at least once, within the bound"
    assert record.log_tail == built.detail["log_tail"], "the recorded failure is reused, not retried"


SHAPES = {
    "pyproject.toml": '[project]\nname = "shapes"\nversion = "0.1.0"\nrequires-python = ">=3.9"\n\n'
                      '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
    "shapes/__init__.py": '"""Plane shapes."""\n',
    "shapes/area.py": "def square(side):\n    return side * side\n",
    "tests/test_area.py": "from shapes.area import square\n\n\ndef test_square():\n    assert square(3) == 9\n",
}
RECTANGLE = ('\n\nclass Rectangle:\n    """A rectangle.\n\n    .. versionadded:: 1.1\n    """\n\n'
             "    def __init__(self, width, height):\n        self.width, self.height = width, height\n\n"
             '    def describe(self):\n        return f"{self.width}x{self.height}"\n')
PERIMETER = ('\n\ndef perimeter(width, height):\n    """Return the perimeter of a rectangle: twice the sum of its '
             "width and height,\n    in the type the arithmetic gives (an int for int sides, else a float).\n\n"
             '    .. versionadded:: 1.2\n    """\n    return 2 * (width + height)\n')
CIRCLE = '\n\ndef circle(radius):\n    """A circle\'s area."""\n    return round(3.14159 * radius * radius, 2)\n'


def _shapes_history(repo):
    """A history of three changes bringing new names: `Rectangle` (its docstring one summary line, its tests' module
    cannot import it), `perimeter` (a docstring saying what it returns, its tests meet an AttributeError) and
    `circle` (a one-line docstring) with a fix of `square` whose test fails on an assertion."""
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    for path, text in SHAPES.items():
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        (repo / path).write_text(text)
    _commit_all(repo, "initial")
    area = repo / "shapes" / "area.py"
    area.write_text(area.read_text() + RECTANGLE)
    (repo / "tests" / "test_rectangle.py").write_text(
        "from shapes.area import Rectangle\n\n\ndef test_describe():\n    assert Rectangle(2, 3).describe() == '2x3'\n"
        "\n\ndef test_describe_square():\n    assert Rectangle(4, 4).describe() == '4x4'\n")
    _commit_all(repo, "Rectangles")
    area.write_text(area.read_text() + PERIMETER)
    (repo / "tests" / "test_perimeter.py").write_text(
        "from shapes import area\n\n\ndef test_perimeter():\n    assert area.perimeter(2, 3) == 10\n")
    _commit_all(repo, "Perimeters")
    area.write_text(area.read_text().replace("    return side * side\n", "    return round(side * side, 6)\n") + CIRCLE)
    (repo / "tests" / "test_area.py").write_text(SHAPES["tests/test_area.py"] + (
        "\n\ndef test_square_float():\n    assert square(0.1) == 0.01\n"
        "\n\ndef test_circle():\n    from shapes.area import circle\n\n    assert circle(1) == 3.14\n"))
    _commit_all(repo, "Circles, and square keeps a float short")


def test_a_statement_showing_only_that_new_names_are_missing_is_rejected_unless_their_docstrings_specify(tmp_path):
    repo = tmp_path / "shapes"
    _shapes_history(repo)
    item = PlanItem(family="swe", capability="implementation", quota=3, gap_ids=[], priority=1.0)
    with sandbox_kind("process"):
        tasks = {t.reference["fix_message"].split()[0].rstrip(","): validate(t)
                 for t in SweBuilder().build(item, BuildContext(cycle_id="test", options={"source": str(repo)}))}
    rectangle, perimeter, circles = tasks["Rectangles"], tasks["Perimeters"], tasks["Circles"]
    assert "ImportError: cannot import name 'Rectangle'" in rectangle.payload["problem_statement"]
    assert failed_checks(rectangle) == {"reference"}, rectangle.reasons
    assert ("statement_states_interface: the statement specifies no behaviour: each behaviour it lists only shows "
            "that a name of the new interface (Rectangle, describe) is missing, and its docstrings say 2 word(s) "
            "(fewer than 20)" in rectangle.reasons[0])
    assert "has no attribute 'perimeter'" in perimeter.payload["problem_statement"]
    assert perimeter.status == "accepted", perimeter.reasons
    assert "assert 0.010000000000000002 == 0.01" in circles.payload["problem_statement"]
    assert "cannot import name 'circle'" in circles.payload["problem_statement"]
    assert circles.status == "accepted", circles.reasons


@pytest.mark.usefixtures("prefect_server")
def test_cli_builds_lands_and_exports_swe_tasks(built, capsys, data_dir, tmp_path):
    export = tmp_path / "instances.jsonl"
    with sandbox_kind("process"):
        code = main(["build", "swe", "--source", str(SAMPLE), "--since", "2025-03-02", "--count", "5",
                     "--data-dir", str(data_dir),
                     "--export-jsonl", str(export), "--json"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    summary = json.loads(captured.out)
    assert summary["families"]["swe"] == {"candidates": 5, "accepted": 3, "rejected": 2,
                                          "rejected_by_check": {"noop": 1, "reference": 1, "shortcut": 1}}
    instances = [json.loads(line) for line in export.read_text().splitlines()]
    assert summary["swebench_instances"] == 3 and len(instances) == 3
    assert {i["instance_id"] for i in instances} == {t.payload["instance_id"] for t in built[1].values()
                                                     if t.status == "accepted"}
    assert str(data_dir) not in export.read_text() and os.environ[CACHE_ENV] not in export.read_text()

    assert main(["release", "--version", "1.0.0", "--out", str(tmp_path / "release"), "--data-dir", str(data_dir),
                 "--json"]) == 0, capsys.readouterr().err
    rows = datasets.load_dataset(str(tmp_path / "release"), "swe", split="train", cache_dir=str(tmp_path / "hf"))
    assert rows.num_rows == 3
    entry = reward_entry("swe")
    with sandbox_kind("process"):
        for row in rows:
            truth, info = row["reward_model"]["ground_truth"], row["extra_info"]
            reference, grader = json.loads(truth), json.loads(info["grader"])
            assert compute_score(row["data_source"], entry.reference_submission(reference, grader), truth, info) == 1
            assert [compute_score(row["data_source"], noop, truth, info) for noop in entry.noop_submissions(grader)] \
                == [0.0]


@pytest.mark.docker
def test_a_task_is_built_and_validated_in_docker_containers(built):
    commits, tasks = built
    item = PlanItem(family="swe", capability="implementation", quota=1, gap_ids=[], priority=1.0)
    context = BuildContext(cycle_id="test-docker", first_index=4, options={"source": str(SAMPLE)})
    with sandbox_kind("docker"):
        (task,) = SweBuilder().build(item, context)
        decided = validate(task)
    assert task.reference["fix_commit"] == commits["div_fix"]
    assert decided.status == "accepted", decided.reasons
    assert task.environment["env"] != tasks["div_fix"].environment["env"], "one environment per backend"
    assert task.payload["FAIL_TO_PASS"] == tasks["div_fix"].payload["FAIL_TO_PASS"]
    assert task.payload["PASS_TO_PASS"] == tasks["div_fix"].payload["PASS_TO_PASS"]
