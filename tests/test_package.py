"""The whole package's wheel: every top-level folder under the one `taskforge` namespace, and the shipped
evaluation sets and samples as `taskforge/data/`, where an installed decontamination check and the cycle's
default sources find them; a data dir under `data/out/` never ships (`make run` leaves one there), and an
installed package writes its data dir under the user's home, never into site-packages."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

from taskforge.store.layout import default_data_dir

REPO = Path(__file__).resolve().parents[1]


def test_the_wheel_ships_the_evaluation_sets_and_samples_and_no_data_dir(tmp_path):
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", str(REPO), "--wheel-dir",
                    str(tmp_path)], check=True, cwd=tmp_path)
    names = set(zipfile.ZipFile(next(tmp_path.glob("taskforge-*.whl"))).namelist())
    shipped = {f"taskforge/data/{path.relative_to(REPO / 'data').as_posix()}"
               for path in [*(REPO / "data" / "evalsets").glob("*.json"), *(REPO / "data" / "samples").rglob("*")]
               if path.is_file() and "__pycache__" not in path.parts}
    assert shipped and shipped <= names, sorted(shipped - names)
    assert not any(name.startswith("taskforge/data/out/") for name in names)
    assert {"taskforge/validators/evalsets.py", "taskforge/store/catalog.py", "taskforge/errors.py"} <= names
    assert "taskforge/pyproject.toml" not in names, "an installed package must not pass for a source checkout"
    assert not {name.split("/")[0] for name in names if not name.startswith("taskforge")} - {
        "taskforge-0.1.0.dist-info"}, "nothing but taskforge lands in site-packages"


def test_an_installed_package_writes_outside_its_code_and_a_checkout_into_data_out(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    installed = tmp_path / "site-packages" / "taskforge"
    installed.mkdir(parents=True)
    assert default_data_dir(installed) == tmp_path / "home" / ".local" / "share" / "taskforge"
    assert default_data_dir(REPO) == REPO / "data" / "out"
