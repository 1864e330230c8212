"""The whole package's wheel: every top-level folder under the one `taskforge` namespace, and the shipped
evaluation sets and samples as `taskforge/data/`, where an installed decontamination check and the cycle's
default sources find them; a data dir under `data/out/` never ships (`make run` leaves one there)."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

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
    assert not {name.split("/")[0] for name in names if not name.startswith("taskforge")} - {
        "taskforge-0.1.0.dist-info"}, "nothing but taskforge lands in site-packages"
