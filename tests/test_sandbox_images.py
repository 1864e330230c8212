"""Images built locally and cached by the hash of their recipe; derived images installed offline from wheels."""

from __future__ import annotations

import secrets
import zipfile
from dataclasses import replace
from pathlib import Path

import pytest

from taskforge.sandbox.api import BASE_IMAGE, Job
from taskforge.sandbox.images import BaseRecipe, PythonEnvRecipe, build_base_image, build_python_env_image
from taskforge.sandbox.images.__main__ import main
from taskforge.sandbox.images.build import image_present
from taskforge.sandbox.images.host_env import COMPLETE_MARK, ensure_host_env
from taskforge.sandbox.images.pythons import INTERPRETERS
from taskforge.sandbox.images.recipe import PYTHON_ENVS


def make_wheel(folder: Path, name: str, value: str) -> Path:
    """A minimal pure-Python wheel whose module holds `VALUE = value` (made here, so no index is needed)."""
    dist_info = f"{name}-1.0.dist-info"
    files = {
        f"{name}/__init__.py": f"VALUE = {value!r}\n",
        f"{dist_info}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n",
        f"{dist_info}/WHEEL": ("Wheel-Version: 1.0\nGenerator: taskforge-test\nRoot-Is-Purelib: true\n"
                               "Tag: py3-none-any\n"),
    }
    files[f"{dist_info}/RECORD"] = "".join(f"{path},,\n" for path in [*files, f"{dist_info}/RECORD"])
    wheel = folder / f"{name}-1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        for path, text in files.items():
            archive.writestr(path, text)
    return wheel


def test_recipe_tags_follow_the_recipe_and_nothing_else():
    recipe = BaseRecipe()

    assert recipe.tag() == BaseRecipe().tag()
    assert recipe.tag().startswith("taskforge/sandbox-base:")
    assert replace(recipe, packages=(*recipe.packages, "curl")).tag() != recipe.tag()
    env = PythonEnvRecipe(name="science", requirements=("numpy==2.0.0",))
    assert env.tag("sha256:aaa") == env.tag("sha256:aaa") != env.tag("sha256:bbb")
    assert replace(env, requirements=("numpy==2.0.1",)).tag("sha256:aaa") != env.tag("sha256:aaa")


@pytest.mark.docker
def test_base_image_build_is_skipped_when_its_recipe_is_built(docker_engine, capsys):
    outcome = build_base_image(docker_engine)

    assert (outcome.built, outcome.source) == (False, "cache")
    assert docker_engine.images.get(BASE_IMAGE).id == docker_engine.images.get(outcome.tag).id
    assert main(["base"]) == 0
    assert capsys.readouterr().out == f"{outcome.tag}: present, build skipped\n"


@pytest.mark.docker
def test_an_interpreter_image_ci_built_is_skipped_and_an_unknown_version_refused(docker_engine, capsys):
    """`.ci/run` bootstraps the older CPython old commits need; asked again, the command skips the build."""
    assert main(["python", "3.6"]) == 0
    assert capsys.readouterr().out == f"{INTERPRETERS['3.6'].tag()}: present, build skipped\n"
    with pytest.raises(SystemExit):
        main(["python", "2.7"])


@pytest.mark.docker
def test_derived_image_installs_host_wheels_offline_and_is_cached(docker_engine, docker_sandbox, tmp_path):
    name = f"tf_probe_{secrets.token_hex(3)}"
    wheel = make_wheel(tmp_path, name, "from the wheelhouse")
    recipe = PythonEnvRecipe(name=f"test-{name.replace('_', '-')}", requirements=(str(wheel),))
    tag = recipe.tag(docker_engine.images.get(recipe.base).id)
    try:
        first = build_python_env_image(docker_engine, recipe, work_root=tmp_path)
        second = build_python_env_image(docker_engine, recipe, work_root=tmp_path)
        show = f"import {name}, sys; print({name}.VALUE, sys.prefix)"
        result = docker_sandbox.run(Job(command=("python", "-c", show), image=tag))
    finally:
        if image_present(docker_engine, tag):
            docker_engine.images.remove(tag, force=True)

    assert (first.built, first.source, first.tag) == (True, "wheels", tag)
    assert (second.built, second.tag) == (False, tag)
    assert result.ok, result
    assert result.stdout == "from the wheelhouse /opt/venv\n"


def test_the_process_backend_runs_a_named_environment_built_once_and_bound_read_only(process_sandbox,
                                                                                   sandbox_temp_root, monkeypatch,
                                                                                   tmp_path):
    name = f"tf_probe_{secrets.token_hex(3)}"
    recipe = PythonEnvRecipe(name=f"test-{name.replace('_', '-')}",
                             requirements=(str(make_wheel(tmp_path, name, "from the host wheelhouse")),))
    monkeypatch.setitem(PYTHON_ENVS, recipe.name, recipe)
    monkeypatch.setenv("TASKFORGE_HOST_ENVS", str(sandbox_temp_root / "envs"))
    first = ensure_host_env(recipe)
    built_at = (first / COMPLETE_MARK).stat().st_mtime_ns
    assert ensure_host_env(recipe) == first and (first / COMPLETE_MARK).stat().st_mtime_ns == built_at

    show = f"import {name}, sys; print({name}.VALUE, sys.prefix); open(sys.prefix + '/x', 'w')"
    result = process_sandbox.run(Job(command=("python3", "-c", show), python_env=recipe.name))
    assert result.stdout == "from the host wheelhouse /opt/venv\n"
    assert result.exit_code == 1 and "Read-only file system" in result.stderr
    plain = process_sandbox.run(Job(command=("python3", "-c", f"import {name}")))
    assert plain.exit_code == 1 and "ModuleNotFoundError" in plain.stderr, "only jobs that name it see it"
    unknown = process_sandbox.run(Job(command=("true",), python_env="no-such-env"))
    assert unknown.infrastructure_error and "no Python environment named 'no-such-env'" in unknown.infrastructure_error
