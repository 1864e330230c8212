"""SWE tasks of one repository at different commits leak into each other: a later task's workspace shows an
earlier task's fix. Real git repositories built here (a few commits, three fixes in one, one fix in another);
the links are re-derived from the tasks' patches and snapshots, the check rejects a repeated repair of one
function, and release splits keep every linked task and every repository in one split."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import git
import pytest

from taskforge.builders.swe import snapshot_path
from taskforge.builders.swe.mining import Limits, mine, select
from taskforge.builders.swe.snapshot import make_snapshot
from taskforge.graders.swe.harness import cache_root
from taskforge.schemas import Lineage, Message, Task, task_id_for
from taskforge.schemas.swe import SwePayload
from taskforge.store.splits import TEST, TRAIN, assign_splits, source_group
from taskforge.validators.swe.history import SweHistoryOverlap, functions_in, history_links, release_links, snapshot_of

OPS = '''def add(a, b):
    return a - b


def mul(a, b):
    return a + b
'''
TESTS = '''from calc.ops import add, mul


def test_zero():
    assert add(0, 0) == 0
'''


def _commit(repo: Path, files: dict[str, str], message: str, day: int) -> str:
    for name, text in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)
    when = f"2025-06-{day:02d}T12:00:00+00:00"
    env = {**os.environ, "GIT_AUTHOR_DATE": when, "GIT_COMMITTER_DATE": when}
    subprocess.run(["git", "-C", str(repo), "add", "-A"], check=True)
    subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-q",
                    "-m", message], check=True, env=env)
    return subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], check=True, capture_output=True,
                          text=True).stdout.strip()


def calc_history(root: Path) -> dict[str, str]:
    """calc: `add` fixed, then `mul` fixed, then `add` changed again (a second repair of the same function)."""
    subprocess.run(["git", "init", "-q", "-b", "main", str(root)], check=True)
    commits = {"start": _commit(root, {"calc/ops.py": OPS, "calc/__init__.py": "", "tests/test_calc.py": TESTS},
                                "start", 1)}
    fixed_add = OPS.replace("return a - b", "return a + b")
    commits["add_fix"] = _commit(root, {"calc/ops.py": fixed_add, "tests/test_calc.py": TESTS
                                        + "\n\ndef test_add():\n    assert add(2, 3) == 5\n"}, "add adds", 2)
    fixed_mul = fixed_add.replace("def mul(a, b):\n    return a + b", "def mul(a, b):\n    return a * b")
    tests = (root / "tests/test_calc.py").read_text()
    commits["mul_fix"] = _commit(root, {"calc/ops.py": fixed_mul, "tests/test_calc.py": tests
                                        + "\n\ndef test_mul():\n    assert mul(2, 3) == 6\n"}, "mul multiplies", 3)
    tests = (root / "tests/test_calc.py").read_text()
    commits["add_again"] = _commit(root, {
        "calc/ops.py": fixed_mul.replace("def add(a, b):\n    return a + b",
                                         "def add(a, b):\n    if a is None or b is None:\n        return None\n"
                                         "    return a + b"),
        "tests/test_calc.py": tests + "\n\ndef test_add_none():\n    assert add(None, 1) is None\n"},
        "add tolerates None", 4)
    return commits


def other_history(root: Path) -> None:
    """greet: one fix, a repository with no history in common with calc."""
    subprocess.run(["git", "init", "-q", "-b", "main", str(root)], check=True)
    _commit(root, {"greet/hello.py": "def hello(name):\n    return 'hi'\n", "greet/__init__.py": "",
                   "tests/test_hello.py": "from greet.hello import hello\n"}, "start", 1)
    _commit(root, {"greet/hello.py": "def hello(name):\n    return f'hi {name}'\n",
                   "tests/test_hello.py": "from greet.hello import hello\n\n\ndef test_name():\n"
                                          "    assert hello('x') == 'hi x'\n"}, "hello names", 2)


def task_of(source: Path, repo_name: str, candidate) -> Task:
    """A SWE task of a mined candidate, with its snapshot made in the SWE cache (no tests run: the links need only
    the patches and the snapshots)."""
    relative = snapshot_path(repo_name, candidate.base_commit)
    if not (cache_root() / relative).exists():
        make_snapshot(source / ".git", candidate.base_commit, cache_root() / relative)
    payload = {"instance_id": f"{repo_name.replace('/', '__')}-{candidate.fix_commit[:12]}", "repo": repo_name,
               "base_commit": candidate.base_commit, "problem_statement": "a symptom", "hints_text": "",
               "created_at": candidate.created_at, "committed_at": candidate.committed_at, "version": "0.1",
               "environment_setup_commit": candidate.base_commit, "FAIL_TO_PASS": ["tests/test_calc.py::test_x"],
               "PASS_TO_PASS": [], "environment_recipe": {}, "issue_numbers": [], "pull_number": None,
               "statement_origin": "symptoms"}
    return Task(task_id=task_id_for("swe", "issue_repair", payload), family="swe", kind="issue_repair",
                capability="implementation", prompt=[Message(role="user", content="fix it")], payload=payload,
                reference={"patch": candidate.diff.patch, "test_patch": candidate.diff.test_patch,
                           "fix_commit": candidate.fix_commit},
                grader={"harness": "swe", "log_parser": "pytest", "test_files": list(candidate.test_files),
                        "repeats": 3},
                environment={"snapshot": relative},
                lineage=Lineage(cycle_id="test", resource_id=f"repo:{repo_name}", resource_revision="head",
                                builder="swe.git_history", builder_version="0.2.0"))


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("cross")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TASKFORGE_SWE_CACHE", str(root / "cache"))
        commits = calc_history(root / "calc")
        other_history(root / "greet")
        report = mine(git.Repo(root / "calc"), "main", Limits())
        by_fix = {c.fix_commit: c for c in report.candidates}
        (greet,) = mine(git.Repo(root / "greet"), "main", Limits()).candidates
        tasks = {name: task_of(root / "calc", "acme/calc", by_fix[commits[name]])
                 for name in ("add_fix", "mul_fix", "add_again")}
        tasks["greet"] = task_of(root / "greet", "acme/greet", greet)
        tasks["fork"] = task_of(root / "calc", "someone/calc-fork", by_fix[commits["add_again"]])
        yield {"commits": commits, "report": report, "tasks": tasks}


def _links(tasks: list[Task]) -> dict[tuple[str, str], object]:
    return {(link.holder, link.shown): link for link in history_links(tasks)}


def test_a_later_workspace_shows_the_earlier_fix_and_a_second_repair_of_one_function_is_named(built):
    t = built["tasks"]
    links = _links([t["add_fix"], t["mul_fix"], t["add_again"], t["greet"]])
    later = links[(t["mul_fix"].task_id, t["add_fix"].task_id)]
    assert set(later.via) == {"history", "work_tree", "tests_in_work_tree"} and not later.repeats_repair
    assert (t["add_fix"].task_id, t["mul_fix"].task_id) not in links, "an earlier workspace shows no later fix"
    again = links[(t["add_again"].task_id, t["add_fix"].task_id)]
    assert again.shared_functions == ("calc/ops.py::add",) and again.repeats_repair
    assert links[(t["add_again"].task_id, t["mul_fix"].task_id)].shared_functions == ()
    assert not any(t["greet"].task_id in pair for pair in links), "an unrelated repository shows nothing"
    assert len(links) == 3


def test_functions_read_from_the_pre_image_blobs_are_the_ones_mining_reads_in_the_files(built):
    t, report = built["tasks"], built["report"]
    for candidate in report.candidates:
        assert functions_in(snapshot_of(t["add_again"]), candidate.diff.patch) == set(candidate.functions)
    assert {c.functions for c in report.candidates} == {("calc/ops.py::add",), ("calc/ops.py::mul",)}


def test_mining_keeps_one_task_per_function_across_commits(built):
    kept = select(built["report"].candidates)
    functions = [f for candidate in kept for f in candidate.functions]
    assert len(kept) == 2 and sorted(functions) == ["calc/ops.py::add", "calc/ops.py::mul"]


def test_the_check_rejects_a_second_repair_of_a_landed_function_both_ways_and_records_other_links(built):
    t = built["tasks"]
    later_repair = SweHistoryOverlap(lambda: [t["add_fix"]]).run(t["add_again"])
    earlier_repair = SweHistoryOverlap(lambda: [t["add_again"]]).run(t["add_fix"])
    other_function = SweHistoryOverlap(lambda: [t["add_fix"], t["greet"]]).run(t["mul_fix"])
    alone = SweHistoryOverlap(lambda: []).run(t["add_fix"])
    assert not later_repair.passed and "calc/ops.py::add" in later_repair.reason
    assert not earlier_repair.passed, "the landed later task already teaches the repair"
    assert other_function.passed and other_function.detail["links"] == [
        {"holder": t["mul_fix"].task_id, "shown": t["add_fix"].task_id,
         "via": ["history", "work_tree", "tests_in_work_tree"], "shared_functions": []}]
    assert alone.passed and alone.detail == {"peers": 0, "peers_without_snapshot": 0, "linked": 0, "links": []}


def test_release_splits_keep_each_repository_and_each_linked_pair_in_one_split(built):
    t = built["tasks"]
    tasks = [t["add_fix"], t["mul_fix"], t["greet"], t["fork"]]
    assert [source_group(task) for task in tasks] == ["repo:acme/calc", "repo:acme/calc", "repo:acme/greet",
                                                      "repo:someone/calc-fork"]
    assert SwePayload.of(t["greet"]).source_group == "repo:acme/greet", "read from `repo` in a row without it"
    links = release_links(tasks)
    plan = assign_splits(tasks, test_fraction=0.25, links=links)
    assert {plan.split_of[t["add_fix"].task_id], plan.split_of[t["mul_fix"].task_id],
            plan.split_of[t["fork"].task_id]} == {plan.split_of[t["add_fix"].task_id]}, \
        "the fork shares calc's history: the links join it to calc's group"
    assert plan.split_of[t["greet"].task_id] == TEST and plan.split_of[t["add_fix"].task_id] == TRAIN, \
        "the test share is 1 task: the 3-task calc group does not fit, greet does"
    assert all(plan.split_of[link["holder"]] == plan.split_of[link["shown"]] for link in links)
    (swe,) = plan.families.values()
    groups = {tuple(group["sources"]): group for group in swe["groups"]}
    assert set(groups) == {("repo:acme/calc", "repo:someone/calc-fork"), ("repo:acme/greet",)}
    assert groups[("repo:acme/calc", "repo:someone/calc-fork")]["tasks"] == 3
    assert len(assign_splits(tasks, test_fraction=0.25).families["swe"]["groups"]) == 3, \
        "without the links the fork is a group of its own"
    single = assign_splits(tasks[:2], test_fraction=0.5)
    assert set(single.split_of.values()) == {TRAIN} and "one source group" in single.families["swe"]["note"]
