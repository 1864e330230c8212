"""The small reward install (`reward/`, distribution `taskforge-reward`): it holds exactly the modules
`compute_score` imports, they parse as Python 3.10 and import only its declared dependencies; and, installed
from its wheel on Python 3.13 (a Debian 13 image bootstrapped like the sandbox base image, no network), its
`compute_score` scores the reference of every released row of every family 1 however it is wrapped and every
no-op 0 (SWE rows through the engine's socket, in the task's instance image, as a trainer machine would). The
whole package's wheel does the same on Python 3.12 (an Ubuntu 24.04 image bootstrapped from Ubuntu's signed
archive), where every one of its modules imports but verl's tool classes. Cold (both images bootstrapped, wheels,
dependencies images) about 15 minutes; warm about 2 minutes."""

from __future__ import annotations

import ast
import json
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import docker
import pyarrow.parquet as pq
import pytest

from taskforge import sandbox
from taskforge.builders.base import BuildContext
from taskforge.builders.literature.kinds import KINDS
from taskforge.builders.mle import MleBuilder
from taskforge.builders.swe.image import build_instance_image
from taskforge.flows.screening import release_screen
from taskforge.sandbox.images.build import image_present
from taskforge.sandbox.images.pythons import INTERPRETERS, Interpreter, build_interpreter_image
from taskforge.schemas import PlanItem, Task
from taskforge.schemas.base import content_id
from taskforge.store.layout import DataDir
from taskforge.store.release import export_release
from conftest import REPO
from factories import land_validated, literature_tasks, long_context_tasks, paper_collection, swe_tasks
from mle_data import generated_frame, write_dataset
from test_release import workflow_tasks

REWARD = REPO / "reward"
PROJECT = tomllib.loads((REWARD / "pyproject.toml").read_text())["project"]
WHOLE_PROJECT = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]


PYTHON_3_13 = INTERPRETERS["3.13"]
"""Debian 13, bootstrapped with the sandbox base image's recipe."""
PYTHON_3_12 = INTERPRETERS["3.12"]
"""Ubuntu 24.04, whose archive (signed with Ubuntu's 2018 key: sandbox/images/keys/README.md) carries 3.12."""
IMAGE_REPOSITORY = "taskforge/reward-python"
COMMIT_TIMEOUT_S = 900
"""Committing the whole package's dependencies (1.5 GB) outlasts a client's default minute on a busy engine."""
DOCKER_SOCKET = "/var/run/docker.sock"
PLATFORM_TAGS = ("manylinux_2_28_x86_64", "manylinux_2_17_x86_64", "manylinux2014_x86_64")
IMPORT_NAMES = {"numpy": "numpy", "polars": "polars", "scikit-learn": "sklearn", "docker": "docker"}
"""Distribution → import name, for the small install's dependencies."""
CONTAINER_CHECK = """
import importlib, json, pkgutil, sys
import taskforge, taskforge.graders.reward
from reward_checks import reward_scores
try:
    import taskforge.store
    full = True
except ModuleNotFoundError:
    full = False
rows = json.load(open(sys.argv[1]))
scores = [[row["extra_info"]["family"], *reward_scores(row)] for row in rows]
missing = {}
for module in pkgutil.walk_packages(taskforge.__path__, "taskforge."):
    try:
        importlib.import_module(module.name)
    except ModuleNotFoundError as error:
        missing[module.name] = error.name
print(json.dumps({"python": list(sys.version_info[:2]), "taskforge": taskforge.__file__, "full_install": full,
                  "scores": scores, "unimportable": missing}))
"""
"""Run in the container: scores every row's reference (wrapped every way) and no-ops, then imports every module of
the install (`unimportable`: module → the missing module that stopped it)."""


def _listed_modules() -> set[str]:
    """The modules reward/setup.py builds into the wheel."""
    tree = ast.parse((REWARD / "setup.py").read_text())
    listed = next(node.value for node in tree.body if isinstance(node, ast.Assign)
                  and getattr(node.targets[0], "id", "") == "MODULES")
    return {package if name == "__init__" else f"{package}.{name}"
            for package, names in ast.literal_eval(listed).items() for name in names}


def _source(module: str) -> Path:
    """The checkout file of a taskforge module (`taskforge.graders.x` lives in `graders/x.py`)."""
    parts = module.split(".")[1:]
    folder = REPO / "taskforge" if not parts or parts == ["errors"] else REPO / Path(*parts)
    return folder / "__init__.py" if folder.is_dir() else folder.with_suffix(".py")


def test_the_wheel_lists_exactly_the_modules_compute_score_imports():
    probe = ("import sys, taskforge.graders.reward; "
             "print('\\n'.join(m for m in sys.modules if m == 'taskforge' or m.startswith('taskforge.')))")
    loaded = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout.split()
    assert set(loaded) == _listed_modules()


def test_the_small_install_parses_as_python_3_10_and_imports_only_its_dependencies():
    declared = {IMPORT_NAMES[requirement.split(">")[0].split("<")[0].split("[")[0].strip()]
                for requirement in PROJECT["dependencies"] + PROJECT["optional-dependencies"]["swe"]}
    imported = set()
    for module in _listed_modules():
        tree = ast.parse(_source(module).read_text(), feature_version=(3, 10))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                imported |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                imported.add(node.module.split(".")[0])
    third_party = imported - set(sys.stdlib_module_names) - {"taskforge", "__future__"}
    assert third_party <= declared | {"requests"}, third_party - declared
    assert "tomllib" not in imported, "tomllib is new in 3.11"
    assert PROJECT["requires-python"] == ">=3.10,<3.14"


def _base_image(client: docker.DockerClient, python: Interpreter) -> str:
    """The interpreter's image (built once with debootstrap, cached by its recipe's hash)."""
    return build_interpreter_image(client, python).tag


def _run(client: docker.DockerClient, image: str, script: str, mounts: dict[Path, str],
         docker_socket: bool = False) -> tuple[int, str, object]:
    """Run a shell script in a new container of `image`, network off, the host folders mounted read-only (and
    the engine's socket, for the SWE reward to run instance images)."""
    volumes = {str(host): {"bind": inside, "mode": "ro"} for host, inside in mounts.items()}
    if docker_socket:
        volumes[DOCKER_SOCKET] = {"bind": DOCKER_SOCKET, "mode": "rw"}
    container = client.containers.run(image, ["sh", "-c", script], detach=True, network_mode="none",
                                      volumes=volumes)
    code = container.wait(timeout=900)["StatusCode"]
    return code, container.logs().decode(errors="replace"), container


def _dependencies_image(client: docker.DockerClient, work: Path, python: Interpreter,
                        requirements: list[str]) -> str:
    """The interpreter's image with `requirements` in /opt/venv, from wheels downloaded on the host for its
    version (built once, tagged by the base image and the requirements)."""
    base = _base_image(client, python)
    tag = f"{IMAGE_REPOSITORY}:{content_id({'base': client.images.get(base).id, 'requirements': requirements})}"
    if image_present(client, tag):
        return tag
    wheels = work / "dependency-wheels"
    platforms = [argument for platform in PLATFORM_TAGS for argument in ("--platform", platform)]
    subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--only-binary=:all:", "--python-version",
                    python.version, "--implementation", "cp", *platforms, "--dest", str(wheels), *requirements],
                   check=True)
    code, log, container = _run(client, base, f"{python.command} -m venv /opt/venv && /opt/venv/bin/pip install "
                                "--no-index --no-cache-dir --quiet /wheels/*.whl", {wheels: "/wheels"})
    try:
        assert code == 0, log
        repository, version = tag.split(":")
        docker.from_env(timeout=COMMIT_TIMEOUT_S).containers.get(container.id).commit(repository, version)
    finally:
        container.remove(force=True)
    return tag


def mle_tasks(folder: Path) -> list[Task]:
    """One MLE task of a small generated dataset (baselines run in the docker sandbox; the size, noise and linear
    rules relaxed for its size, as tests/test_mle.py does)."""
    write_dataset(generated_frame("binary", rows=300, seed=1), folder, "generated_binary")
    item = PlanItem(family="mle", capability="implementation", quota=1, gap_ids=["gap-m"], priority=1.0)
    options = {"source": str(folder), "sandbox": "docker", "min_test_rows": 0, "min_gap_sd": 0,
               "search_iterations": 2, "linear_at_or_below_median": False}
    return [task for task in MleBuilder().build(item, BuildContext(cycle_id="test-cycle", options=options))
            if isinstance(task, Task)]


@pytest.fixture(scope="module")
def release_rows(tmp_path_factory, docker_engine) -> list[dict]:
    """The RL rows, from its train and test files, of a release of every family (literature, long-context,
    workflow and swe built and checked in the process sandbox, mle in docker), with the instance image of every SWE
    task built. Two SWE candidates: the sample's first, `sub(..., absolute=True)`, specifies no behaviour and is
    rejected (`graders.swe.specification`)."""
    root = tmp_path_factory.mktemp("release")
    data = DataDir(root / "data")
    with pytest.MonkeyPatch.context() as patch:
        chosen = sandbox.get_sandbox("process")
        patch.setattr(sandbox, "default_sandbox", lambda: chosen)
        tasks = (literature_tasks(paper_collection(root / "papers.jsonl", count=200, seed=3), data.root, list(KINDS))
                 + long_context_tasks(2, target_tokens=4096) + workflow_tasks(2) + swe_tasks(2))
        landed = land_validated(data, tasks)
    landed += land_validated(data, mle_tasks(root / "mle"))
    for task in landed:
        if task.family == "swe" and task.status == "accepted":
            build_instance_image(task, docker_engine)
    with data.open_catalog() as catalog:
        export_release(catalog, data, "1.0.0", root / "release", release_screen(catalog, data, "1.0.0"),
                       test_fraction=0.5)
    return [row for path in sorted((root / "release" / "data").glob("*/*.parquet"))
            for row in pq.read_table(path).to_pylist()]


def _check_in_container(client: docker.DockerClient, image: str, wheels: Path, install: str, rows: list[dict],
                        work: Path) -> dict:
    """Install `install` from the wheels folder into the image's /opt/venv (no network) and run CONTAINER_CHECK on
    `rows` there; what it found."""
    check = work / "check"
    check.mkdir()
    (check / "rows.json").write_text(json.dumps(rows))
    (check / "run.py").write_text(CONTAINER_CHECK)
    shutil.copy(REPO / "tests" / "reward_checks.py", check / "reward_checks.py")
    code, log, container = _run(client, image, f"/opt/venv/bin/pip install --quiet --no-index --find-links /wheel "
                                f"'{install}' && cd /check && /opt/venv/bin/python run.py rows.json",
                                {wheels: "/wheel", check: "/check"}, docker_socket=True)
    container.remove(force=True)
    assert code == 0, log
    return json.loads(log.strip().splitlines()[-1])


def _assert_every_family_scores(found: dict, rows: list[dict]) -> None:
    """Every family's rows were scored: each reference 1 however it was wrapped, each no-op 0."""
    assert {family for family, _, _ in found["scores"]} == {"literature", "long_context", "workflow", "swe", "mle"}
    assert len(found["scores"]) == len(rows) and {row["extra_info"]["split"] for row in rows} == {"train", "test"}
    for family, wrapped, noops in found["scores"]:
        assert {"bare", "fenced", "prose", "fenced with prose"} <= set(wrapped)
        assert set(wrapped.values()) == {1.0}, (family, wrapped)
        assert noops and set(noops) == {0.0}, (family, noops)


@pytest.mark.docker
def test_compute_score_from_the_small_install_on_python_3_13_scores_every_family(docker_engine, tmp_path,
                                                                                 release_rows):
    requirements = PROJECT["dependencies"] + PROJECT["optional-dependencies"]["swe"]
    image = _dependencies_image(docker_engine, tmp_path, PYTHON_3_13, requirements)
    wheels, source = tmp_path / "wheel", tmp_path / "reward"
    shutil.copytree(REWARD, source, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", str(source), "--wheel-dir",
                    str(wheels)], check=True)
    found = _check_in_container(docker_engine, image, wheels, "taskforge-reward[swe]", release_rows, tmp_path)
    assert found["python"] == [3, 13] and found["taskforge"].startswith("/opt/venv/lib/python3.13/site-packages/")
    assert found["full_install"] is False
    _assert_every_family_scores(found, release_rows)


@pytest.mark.docker
def test_the_whole_package_on_python_3_12_imports_every_module_and_scores_every_family(docker_engine, tmp_path,
                                                                                      release_rows):
    image = _dependencies_image(docker_engine, tmp_path, PYTHON_3_12, WHOLE_PROJECT["dependencies"])
    wheels = tmp_path / "wheel"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", str(REPO), "--wheel-dir",
                    str(wheels)], check=True, cwd=tmp_path)
    found = _check_in_container(docker_engine, image, wheels, "taskforge", release_rows, tmp_path)
    assert found["python"] == [3, 12] and found["taskforge"].startswith("/opt/venv/lib/python3.12/site-packages/")
    assert found["full_install"] is True
    assert found["unimportable"] == {"taskforge.tools.verl_tools": "verl"}, "only verl's tool classes need verl"
    _assert_every_family_scores(found, release_rows)
