"""SWE candidates from a real scripted git history: mining, statements, versions, recipes, snapshots, leakage."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import git
import pytest

from taskforge.agents.client import Agents
from taskforge.builders.swe import limits_from
from taskforge.graders.swe.functions import touched_functions
from taskforge.builders.swe.mining import Limits, mine, select
from taskforge.builders.swe.problem import Symptom, error_lines, linked_issues, load_issues, problem_statement, pull_request_number
from taskforge.builders.swe.recipe import Recipe, detect_recipe
from taskforge.builders.swe.repair import TASK_RULES, repair
from taskforge.builders.swe.snapshot import make_snapshot
from taskforge.builders.swe.source import clone_bundle, materialize_sample, open_source, public_name
from taskforge.builders.swe.versioning import major_minor, version_at
from conftest import SAMPLES
from llm_server import ChatServer
from taskforge.graders.swe.patch import post_image_blobs
from taskforge.schemas import InputError
from test_agents import make_agents
from taskforge.validators.swe.leakage import audit_snapshot

OFFLINE = Agents.offline("no endpoint configured")


@pytest.fixture(scope="module")
def history(tmp_path_factory):
    root = tmp_path_factory.mktemp("history")
    commits = materialize_sample(SAMPLES / "swe" / "calc_history.py", root / "cache")
    source = open_source(commits["path"], root / "cache")
    return commits, source, mine(source.repo, source.head, Limits(since="2025-01-01"))


def by_fix(report):
    return {c.fix_commit: c for c in report.candidates}


def test_candidates_are_the_changes_of_source_and_tests(history):
    commits, _, report = history
    assert [c.fix_commit for c in report.candidates] == [
        commits["sub_absolute"], commits["power_merge"], commits["mul_fix_flaky"], commits["already_passing"],
        commits["div_fix"]]
    assert report.skipped == {"no_test_change": 3, "root_commit": 1}, "refactor, README and changelog are not candidates"
    assert by_fix(report)[commits["div_fix"]].committed_at == "2025-03-02T12:00:00Z"


def test_history_before_the_cutoff_is_not_mined(history):
    commits, source, _ = history
    late = mine(source.repo, source.head, Limits(since="2025-03-06"))
    assert [c.fix_commit for c in late.candidates] == [commits["sub_absolute"], commits["power_merge"]]


def test_each_candidate_knows_the_functions_it_changes_and_one_task_is_kept_per_function(history):
    commits, _, report = history
    assert by_fix(report)[commits["div_fix"]].functions == ("calc/ops.py::div",)
    assert by_fix(report)[commits["sub_absolute"]].functions == ("calc/ops.py::sub",)
    twin = by_fix(report)[commits["div_fix"]]
    again = type(twin)(**{**twin.__dict__, "fix_commit": "f" * 40})
    kept = select([*report.candidates, again])
    assert [c.fix_commit for c in kept].count(twin.fix_commit) + [c.fix_commit for c in kept].count("f" * 40) == 1


def test_changed_lines_map_to_the_innermost_function():
    before = "class A:\n    x = 1\n\n    def f(self):\n        return 1\n\n\ndef g():\n    return 2\n"
    after = "class A:\n    x = 2\n\n    def f(self):\n        return 3\n\n\ndef g():\n    return 2\n"
    diff = ("diff --git a/m.py b/m.py\n--- a/m.py\n+++ b/m.py\n@@ -1,5 +1,5 @@\n class A:\n-    x = 1\n+    x = 2\n"
            " \n     def f(self):\n-        return 1\n+        return 3\n")
    assert touched_functions("m.py", diff, before, after) == {"m.py::A.f"}, "a class attribute names no function"


def test_a_shallow_clone_is_mined_up_to_its_boundary(history, tmp_path):
    commits, _, _ = history
    clone = tmp_path / "calc"
    subprocess.run(["git", "clone", "-q", "--depth", "5", f"file://{commits['path']}", str(clone)], check=True)
    source = open_source(str(clone), tmp_path / "cache")
    assert source.shallow_boundary, "the clone is shallow"
    report = mine(source.repo, source.head, Limits(since="2025-01-01"), source.shallow_boundary)
    assert report.skipped["shallow_boundary"] == 1 and len(report.boundary) == 1
    assert [c.fix_commit for c in report.candidates] == [commits["sub_absolute"], commits["power_merge"]]
    assert report.boundary[0] == commits["mul_fix_flaky"], "its parent is not in the clone: it cannot be diffed"


def test_a_bundle_is_cloned_once_and_named_by_the_file_beside_it(history, tmp_path):
    commits, _, _ = history
    bundle = tmp_path / "calc.bundle"
    subprocess.run(["git", "-C", commits["path"], "bundle", "create", str(bundle), "HEAD", "main"], check=True,
                   capture_output=True)
    (tmp_path / "calc.json").write_text(json.dumps({"repo": "example/calc", "license": "MIT",
                                                    "usable_since": "2025-03-06"}))
    source = clone_bundle(bundle, tmp_path / "cache")
    assert source.name == "example/calc" and source.head == commits["sub_absolute"]
    assert limits_from({}, source.usable_since).since == "2025-03-06", "mining starts where the tests can run"
    assert limits_from({"since": "2025-03-08"}, source.usable_since).since == "2025-03-08"
    assert open_source(str(bundle), tmp_path / "cache").repo.git_dir == source.repo.git_dir, "cloned once"
    (tmp_path / "broken.bundle").write_text("not a bundle")
    with pytest.raises(InputError, match="broken.bundle"):
        open_source(str(tmp_path / "broken.bundle"), tmp_path / "cache")


def test_the_shipped_default_history_is_a_real_library_with_its_licence():
    described = json.loads((SAMPLES / "swe" / "tomlkit.json").read_text())
    assert described["repo"] == "python-poetry/tomlkit" and described["license"] == "MIT"
    assert "Permission is hereby granted" in (SAMPLES / "swe" / described["license_file"]).read_text()
    listed = subprocess.run(["git", "bundle", "list-heads", str(SAMPLES / "swe" / "tomlkit.bundle")],
                            capture_output=True, text=True, check=True).stdout
    assert described["head"] in listed


def test_a_merge_stands_for_its_pull_request(history):
    commits, _, report = history
    merge = by_fix(report)[commits["power_merge"]]
    assert merge.pull_number == 7 and merge.base_commit == commits["mul_fix_flaky"]
    assert merge.created_at == "2025-03-06T12:00:00Z", "created_at is when the pull request's first commit was made"
    assert "power(a, 0) is 1" in merge.message


def test_the_diff_is_split_into_solution_and_held_out_tests(history):
    commits, _, report = history
    flaky = by_fix(report)[commits["mul_fix_flaky"]]
    assert flaky.diff.source_files == ("calc/ops.py",)
    assert flaky.test_files == ("tests/test_flaky.py", "tests/test_ops.py")
    assert "tests/" not in flaky.diff.patch and "calc/ops.py" not in flaky.diff.test_patch
    repo = git.Repo(commits["path"])
    whole = repo.git.diff("--full-index", "--no-renames", flaky.base_commit, flaky.fix_commit) + "\n"
    assert sorted(whole.split("diff --git")) == sorted((flaky.diff.patch + flaky.diff.test_patch).split("diff --git"))


def test_statement_from_the_linked_issue_with_hints_from_earlier_comments(history):
    commits, source, report = history
    div = by_fix(report)[commits["div_fix"]]
    issues = load_issues(Path(source.repo.git_dir) / "issues.jsonl")
    statement = problem_statement(div.message, issues, div.diff.patch, source.name, div.first_commit_at, "calc-1",
                                  OFFLINE, [], {})
    assert statement.origin == "issue" and statement.rewrite == "skipped"
    assert statement.text.startswith("div(1, 0) returns None instead of raising\nDividing by zero")
    assert statement.hints == "Confirmed on main."


FAILURE = """tests/test_ops.py:12: in test_power_zero
    assert power(7, 0) == 1
calc/ops.py:30: in power
    return helper(a, n)
E   assert 7 == 1
E    +  where 7 = power(7, 0)"""


def test_without_an_issue_the_statement_is_the_symptoms_never_the_commit_message(history):
    commits, source, report = history
    merge = by_fix(report)[commits["power_merge"]]
    statement = problem_statement(merge.message, {}, merge.diff.patch, source.name, merge.first_commit_at, "calc-7",
                                  OFFLINE, [Symptom("tests/test_ops.py::test_power_zero", FAILURE)],
                                  {"exponent": [], "raise_to": ["def raise_to(a, n):", '    """a to the n."""']})
    assert statement.origin == "symptoms"
    assert "Fix power" not in statement.text and "power(a, 0) is 1" not in statement.text
    assert "1. power zero" in statement.text and "E" not in error_lines(FAILURE).split()[0]
    assert "assert 7 == 1" in statement.text and "calc/ops.py:30: in power" in statement.text
    assert "assert power(7, 0) == 1" not in statement.text, "the hidden test's code is not shown"
    assert "must be provided: `exponent`, `raise_to`." in statement.text, "the needed interface is stated"
    assert statement.text.rstrip().endswith('def raise_to(a, n):\n    """a to the n."""\n```'), "with its header"


def test_the_builder_agent_rewrites_the_statement_and_a_rewrite_quoting_the_fix_is_sent_back(history, tmp_path):
    commits, source, report = history
    div = by_fix(report)[commits["div_fix"]]
    leaky = {"title": "div by zero", "statement": 'Make it do raise ZeroDivisionError("division by zero").'}
    clean = {"title": "div(1, 0) returns None", "statement": "calc.ops.div(1, 0) gives None; expected an error."}
    with ChatServer() as server:
        server.queue(json.dumps(leaky), json.dumps(clean), json.dumps({
            "analysis": "states the call and the expected error", "behaviour_stated": True, "fix_hidden": True,
            "faithful": True, "issues": [], "verdict": "accept"}))
        statement = problem_statement(div.message, {}, div.diff.patch + div.diff.test_patch, source.name,
                                      div.first_commit_at, "calc-1", make_agents(server, tmp_path),
                                      [Symptom("tests/test_ops.py::test_div_by_zero", "E   Failed: DID NOT RAISE")], {})
    assert statement.origin == "rewritten" and statement.rewrite == "ok"
    assert statement.text == "div(1, 0) returns None\ncalc.ops.div(1, 0) gives None; expected an error."
    assert "Raise on division by zero" in server.requests[0]["messages"][-1]["content"]
    assert "DID NOT RAISE" in server.requests[0]["messages"][-1]["content"], "the agent is given the symptoms"


def test_message_parsing():
    assert linked_issues("Fix parser.\n\nCloses #12, fixes: #3 and fixes #12") == [12, 3]
    assert pull_request_number("Merge pull request #42 from a/b") == 42
    assert pull_request_number("Allow grouping (#221)") == 221
    assert pull_request_number("Plain commit") is None


def test_version_is_the_nearest_reachable_tag_else_the_declared_one(history):
    commits, source, _ = history
    assert version_at(source.repo, commits["changelog"]) == "0.2"
    assert version_at(source.repo, commits["mul_fix_flaky"]) == "0.1", "a later tag does not count"
    assert major_minor("v1.20.3") == "1.20" and major_minor("release") is None


def test_recipe_is_read_from_the_files_at_the_commit(history):
    commits, source, _ = history
    recipe = detect_recipe(source.repo, commits["initial"])
    assert recipe.packages == ("pytest",) and recipe.install == "pythonpath" and recipe.python == ">=3.9"
    assert recipe.log_parser == "pytest" and "-rA" in recipe.test_cmd


def test_recipe_of_a_setuptools_project_with_requirement_files(tmp_path):
    repo = git.Repo.init(tmp_path / "proj")
    root = Path(repo.working_tree_dir)
    (root / "setup.py").write_text("from setuptools import setup\nsetup(name='proj', install_requires=['attrs>=20'],"
                                   " extras_require={'test': ['hypothesis']}, python_requires='>=3.8')\n")
    (root / "requirements-dev.txt").write_text("-r requirements.txt\npytest-cov  # coverage\n--index-url http://x\n"
                                               "-e .\nproj\n")
    (root / "requirements.txt").write_text("six==1.16.0\n")
    (root / "src" / "proj").mkdir(parents=True)
    (root / "src" / "proj" / "__init__.py").write_text("")
    repo.index.add(["setup.py", "requirements-dev.txt", "requirements.txt", "src/proj/__init__.py"])
    repo.index.commit("init")
    recipe = detect_recipe(repo, "HEAD")
    assert set(recipe.packages) == {"attrs>=20", "hypothesis", "six==1.16.0", "pytest-cov", "pytest"}
    assert recipe.install == "editable" and recipe.pythonpath == "src" and recipe.python == ">=3.8"
    assert recipe.build_requires == ("setuptools>=61", "wheel")


def test_repairs_read_the_failure_log():
    recipe = Recipe(python="", packages=("pytest", "foo==0.0.1"), build_requires=(), install="editable",
                    pythonpath=".")
    unpinned = repair(recipe, "download", "ERROR: No matching distribution found for foo==0.0.1")
    assert "foo" in unpinned.packages and "foo==0.0.1" not in unpinned.packages
    dropped = repair(unpinned, "download", "ERROR: No matching distribution found for foo")
    assert dropped.packages == ("pytest",)
    yaml = repair(recipe, "smoke", "E   ModuleNotFoundError: No module named 'yaml'")
    assert "PyYAML" in yaml.packages
    cov = repair(recipe, "smoke", "pytest: error: unrecognized arguments: --cov=parse --cov-branch")
    assert "pytest-cov" in cov.packages
    assert repair(recipe, "install_project", "ERROR: Package 'x' requires a different Python").pip_flags == (
        "--ignore-requires-python",)
    assert repair(recipe, "install_project", "error: subprocess-exited-with-error").install == "pythonpath"
    no_pip = "develop.py ... /workspace/env/bin/python: No module named pip"
    assert "pip" in repair(recipe, "smoke", no_pip).packages, "a new environment may bring what is missing"
    assert repair(recipe, "install_project", no_pip, TASK_RULES).install == "pythonpath", "a task can only run from source"
    assert repair(cov, "smoke", "pytest: error: unrecognized arguments: --cov") is None, "nothing left to try"
    assert repair(recipe, "smoke", "Segmentation fault") is None
    setuptools = recipe.revised(build_requires=("setuptools>=61", "wheel"))
    older = repair(setuptools, "download", "ERROR: Packages require a different Python. 3.6.0 not in:\n'>=3.10' "
                                           "(required by setuptools 84.0.0 (from /x/setuptools-84.0.0.whl))")
    assert older.build_requires == ("setuptools", "wheel") and older.packages == recipe.packages
    assert repair(older, "download", "ERROR: Packages require a different Python. 3.6.0 not in:\n'>=3.10' "
                                     "(required by setuptools 84.0.0 (from /x/setuptools-84.0.0.whl))") is None


def test_snapshot_holds_only_the_base_commit_and_passes_the_audit(history, tmp_path):
    commits, source, report = history
    candidate = by_fix(report)[commits["mul_fix_flaky"]]
    snapshot = make_snapshot(Path(source.repo.git_dir), candidate.base_commit, tmp_path / "snap")
    logged = subprocess.run(["git", "-C", str(snapshot), "log", "--all", "--format=%H"], capture_output=True,
                            text=True, check=True).stdout.split()
    assert logged[0] == candidate.base_commit
    assert set(logged) == set(git.Repo(commits["path"]).git.rev_list(candidate.base_commit).split())
    for later in ("mul_fix_flaky", "power_branch", "power_merge", "readme", "changelog"):
        assert commits[later] not in logged
    blobs = post_image_blobs(candidate.diff.patch) + post_image_blobs(candidate.diff.test_patch)
    assert audit_snapshot(snapshot, candidate.base_commit, candidate.fix_commit, blobs) == []


def test_a_snapshot_from_a_shallow_clone_is_shallow_too_and_passes_the_audit(history, tmp_path):
    commits, _, report = history
    clone = tmp_path / "calc"
    subprocess.run(["git", "clone", "-q", "--depth", "5", f"file://{commits['path']}", str(clone)], check=True)
    candidate = by_fix(report)[commits["sub_absolute"]]
    snapshot = make_snapshot(clone / ".git", candidate.base_commit, tmp_path / "snap")
    blobs = post_image_blobs(candidate.diff.patch) + post_image_blobs(candidate.diff.test_patch)
    assert audit_snapshot(snapshot, candidate.base_commit, candidate.fix_commit, blobs) == []
    assert (snapshot / ".git" / "shallow").exists()


def _planted(source, candidate, tmp_path, name):
    snapshot = make_snapshot(Path(source.repo.git_dir), candidate.base_commit, tmp_path / name)
    return snapshot, post_image_blobs(candidate.diff.patch) + post_image_blobs(candidate.diff.test_patch)


def test_a_tag_pointing_at_the_fix_is_caught(history, tmp_path):
    commits, source, report = history
    candidate = by_fix(report)[commits["mul_fix_flaky"]]
    snapshot, blobs = _planted(source, candidate, tmp_path, "tagged")
    subprocess.run(["git", "-C", str(snapshot), "fetch", "-q", commits["path"], candidate.fix_commit], check=True)
    subprocess.run(["git", "-C", str(snapshot), "tag", "v-next", candidate.fix_commit], check=True)
    (snapshot / ".git" / "FETCH_HEAD").unlink()
    leaks = audit_snapshot(snapshot, candidate.base_commit, candidate.fix_commit, blobs)
    assert any("refs/tags/v-next" in leak for leak in leaks)
    assert any("fix commit" in leak for leak in leaks) and any("post-fix blob" in leak for leak in leaks)


def test_a_stash_holding_the_fix_is_caught(history, tmp_path):
    commits, source, report = history
    candidate = by_fix(report)[commits["mul_fix_flaky"]]
    snapshot, blobs = _planted(source, candidate, tmp_path, "stashed")
    subprocess.run(["git", "-C", str(snapshot), "apply", "-"], input=candidate.diff.patch, text=True, check=True)
    subprocess.run(["git", "-C", str(snapshot), "-c", "user.name=a", "-c", "user.email=a@b", "stash", "-q"], check=True)
    leaks = audit_snapshot(snapshot, candidate.base_commit, candidate.fix_commit, blobs)
    assert any("refs/stash" in leak for leak in leaks) and any("post-fix blob" in leak for leak in leaks)


def test_a_packed_ref_or_an_alternate_is_caught(history, tmp_path):
    commits, source, report = history
    candidate = by_fix(report)[commits["div_fix"]]
    snapshot, blobs = _planted(source, candidate, tmp_path, "alternate")
    (snapshot / ".git" / "objects" / "info" / "alternates").write_text(str(Path(source.repo.git_dir) / "objects"))
    (snapshot / ".git" / "packed-refs").write_text(f"{commits['changelog']} refs/remotes/origin/main\n")
    leaks = audit_snapshot(snapshot, candidate.base_commit, candidate.fix_commit, blobs)
    assert "objects/info/alternates is present" in leaks
    assert any("refs/remotes/origin/main" in leak for leak in leaks) and any("fix commit" in leak for leak in leaks)


def test_a_folder_that_is_not_a_repository_is_an_input_error(tmp_path):
    with pytest.raises(InputError, match="not a readable git repository"):
        open_source(str(tmp_path), tmp_path / "cache")


def test_a_repository_that_is_gone_is_named_without_its_host_path(tmp_path):
    with pytest.raises(InputError) as raised:
        open_source(str(tmp_path / "vanished.git"), tmp_path / "cache")
    assert str(raised.value) == "local/vanished: no such repository (deleted or moved?)"
    assert str(tmp_path) not in str(raised.value)


@pytest.mark.parametrize("source,name", [
    ("https://github.com/r1chardj0n3s/parse.git", "r1chardj0n3s/parse"),
    ("git@gitlab.com:group/tool.git", "group/tool"),
    ("https://deploy:s3cret-token@git.example.org:8443/team/tool.git", "https://git.example.org:8443/team/tool.git"),
    ("/home/someone/work/tool", "local/tool"),
])
def test_public_names_carry_no_credentials_or_host_paths(source, name):
    assert public_name(source) == name
