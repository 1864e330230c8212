"""Which Python a commit's environment is built on: read from what the commit declares, else from its date; and
a 2016 repository whose suite the sandbox's Python cannot collect, built and validated on Python 3.6."""

from __future__ import annotations

import os
import subprocess
import zipfile

import git
import pytest

from taskforge.builders.swe.wheels import missing_requirements
from taskforge.builders.swe.interpreter import Declared, choose_python, declared_at, listed_versions, released_by, \
    retry_python
from taskforge.builders.base import BuildContext
from taskforge.builders.swe import SweBuilder
from taskforge.sandbox.images.pythons import INTERPRETERS
from taskforge.schemas import PlanItem, Task
from taskforge.validators.runner import validate
from test_swe_build import sandbox_kind

AVAILABLE = tuple(INTERPRETERS)
SETUP_CFG_2017 = """[metadata]
name = retrying
classifiers =
    Programming Language :: Python :: 2.7
    Programming Language :: Python :: 3.4
    Programming Language :: Python :: 3.5
"""
TRAVIS_2018 = "language: python\npython:\n  - 2.7\n  - 3.5\n  - \"3.6\"\n  - pypy\n"
WORKFLOW = "jobs:\n  test:\n    strategy:\n      matrix:\n        python-version: ['3.8', \"3.9\", 3.10]\n"


def declared(requires: str = "", listed: tuple[str, ...] = (), committed_at: str = "2026-07-01") -> Declared:
    return Declared(requires=requires, listed=frozenset(listed), committed_at=committed_at)


def test_versions_are_read_from_classifiers_tox_envlists_and_ci_matrices():
    assert listed_versions([SETUP_CFG_2017], []) == {"3.4", "3.5"}
    assert listed_versions(["[tox]\nenvlist = py27, py35,py36, pep8, pypy\n"], []) == {"3.5", "3.6"}
    assert listed_versions(["envlist = py3{8,9,10,11}, pep8, pypy3\n"], []) == {"3.8", "3.9", "3.10", "3.11"}
    assert listed_versions([], [TRAVIS_2018]) == {"3.5", "3.6"}
    assert listed_versions([], [WORKFLOW]) == {"3.8", "3.9", "3.10"}
    assert listed_versions(["Programming Language :: Python :: 2.7\nversion = '3.4.1'\n"], []) == set()


def test_the_release_current_on_a_date():
    assert released_by("2016-12-22") == "3.5"
    assert released_by("2016-12-23T10:00:00+01:00") == "3.6"
    assert released_by("2021-04-26") == "3.9"
    assert released_by("2007-01-01") == "3.0"


def test_a_commit_tested_on_old_pythons_gets_the_nearest_interpreter_at_or_above_its_newest():
    assert choose_python(declared(listed=("3.4", "3.5"), committed_at="2017-03-03"), AVAILABLE) == "3.6"
    assert choose_python(declared(listed=("3.5", "3.6", "3.7", "3.8")), AVAILABLE) == "3.8"
    assert choose_python(declared(listed=("3.7",)), AVAILABLE) == "3.8", "3.7 has no image: the next one up"
    assert choose_python(declared(listed=("3.12", "3.14")), AVAILABLE) == "3.13", "none newer: the newest"


def test_a_commit_declaring_no_version_gets_the_python_of_its_date():
    assert choose_python(declared(committed_at="2019-11-05T10:00:00+00:00"), AVAILABLE) == "3.8"
    assert choose_python(declared(committed_at="2013-01-21"), AVAILABLE) == "3.6", "older than every image"
    assert choose_python(declared(committed_at="2023-03-01"), AVAILABLE) == "3.11"


def test_the_requirement_bounds_the_choice():
    assert choose_python(declared(">=3.10", listed=("3.6",)), AVAILABLE) == "3.10"
    assert choose_python(declared(">=3.6,<3.9", committed_at="2024-01-01"), AVAILABLE) == "3.8"
    assert choose_python(declared("~=3.5", listed=("3.5",)), AVAILABLE) == "3.6"
    assert choose_python(declared("not a specifier", committed_at="2020-01-01"), AVAILABLE) == "3.8"


def test_an_environment_is_rebuilt_only_on_an_older_python_or_one_the_requirement_asks_for():
    assert retry_python(declared(listed=("3.4", "3.5")), AVAILABLE, "3.11") == "3.6"
    assert retry_python(declared(committed_at="2026-07-01"), AVAILABLE, "3.11") is None, "3.13: a newer one"
    assert retry_python(declared(listed=("3.11",)), AVAILABLE, "3.11") is None
    assert retry_python(declared(">=3.12", committed_at="2026-07-01"), AVAILABLE, "3.11") == "3.13"


def test_a_wheelhouse_for_an_older_python_lacks_what_only_its_markers_ask_for(tmp_path):
    with zipfile.ZipFile(tmp_path / "demo-1.0-py3-none-any.whl", "w") as wheel:
        wheel.writestr("demo-1.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: demo\nVersion: 1.0\n"
                       "Requires-Dist: importlib-metadata>=0.12; python_version < \"3.8\"\n"
                       "Requires-Dist: colorama; sys_platform == \"win32\"\n"
                       "Requires-Dist: rich; extra == \"fancy\"\nRequires-Dist: zipp\n")
    with zipfile.ZipFile(tmp_path / "zipp-3.6.0-py3-none-any.whl", "w") as wheel:
        wheel.writestr("zipp-3.6.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: zipp\nVersion: 3.6.0\n")
    requested = ["demo", 'futures; python_version < "3"', 'dataclasses; python_version < "3.7"']
    assert missing_requirements(requested, tmp_path, "3.6") == ["dataclasses", "importlib-metadata>=0.12"]
    assert missing_requirements(requested, tmp_path, "3.11") == []


def _commit(repo, message: str, date: str) -> None:
    env = {**os.environ, "GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date}
    subprocess.run(["git", "-C", str(repo), "add", "-A"], check=True)
    subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm",
                    message], check=True, env=env)


def test_what_a_commit_declares_is_read_from_its_files_and_date(tmp_path):
    repo = git.Repo.init(tmp_path)
    (tmp_path / "setup.cfg").write_text(SETUP_CFG_2017)
    (tmp_path / ".travis.yml").write_text(TRAVIS_2018)
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "conf.py").write_text("# Programming Language :: Python :: 3.9\n")
    _commit(tmp_path, "initial", "2017-03-03T12:00:00+00:00")
    found = declared_at(repo, repo.head.commit.hexsha, ">=2.7")
    assert found == Declared(requires=">=2.7", listed=frozenset({"3.4", "3.5", "3.6"}),
                             committed_at="2017-03-03T12:00:00+00:00")
    assert choose_python(found, AVAILABLE) == "3.6"


@pytest.mark.docker
def test_a_2016_suite_the_sandbox_python_cannot_collect_is_built_and_validated_on_python_3_6(tmp_path):
    repo = tmp_path / "adder"
    (repo / "tests").mkdir(parents=True)
    git.Repo.init(repo)
    (repo / "adder.py").write_text("def add(a, b):\n    return a - b\n")
    old_suite = "from adder import add\n\nasync = 'a name until Python 3.7'\n\n\ndef test_add_zero():\n" \
                "    assert add(1, 0) == 1\n"
    (repo / "tests" / "test_adder.py").write_text(old_suite)
    _commit(repo, "adder", "2016-05-01T12:00:00+00:00")
    (repo / "adder.py").write_text("def add(a, b):\n    return a + b\n")
    (repo / "tests" / "test_adder.py").write_text(old_suite + "\n\ndef test_add():\n    assert add(2, 3) == 5\n")
    _commit(repo, "add adds", "2016-05-02T12:00:00+00:00")
    item = PlanItem(family="swe", capability="implementation", quota=1, gap_ids=[], priority=1.0)
    with sandbox_kind("docker"):
        (task,) = SweBuilder().build(item, BuildContext(cycle_id="test", options={"source": str(repo), "since": ""}))
        assert isinstance(task, Task), task
        decided = validate(task)
    assert task.environment["python"] == "3.6"
    assert task.environment["image"] == INTERPRETERS["3.6"].tag()
    assert task.payload["FAIL_TO_PASS"] == ["tests/test_adder.py::test_add"]
    assert task.payload["PASS_TO_PASS"] == ["tests/test_adder.py::test_add_zero"]
    assert decided.status == "accepted", decided.reasons
