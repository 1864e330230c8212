"""The SWE family's shipped sample: a script that creates a git repository with a scripted history.

A nested `.git` cannot be committed, so the sample repository is made by this
script (`python calc_history.py DEST` creates DEST/calc and prints the commits
by role as JSON). The SWE builder runs it when its source is this file; the
tests use it too.

History on `main`, oldest first:
  1. initial package `calc` with tests for add and sub
  2. fix: division by zero raises (+ a test that fails before) — links issue #1
  3. refactor of the source only (no test change: not a candidate)
  4. a docstring change with a test that already passes before it (rejected by the no-op check)
  5. fix: mul of negatives (+ a failing test) and a new flaky test (dropped from the lists)
  6. merge of pull request #7: fix power with exponent zero (+ a failing test)
  7. README and changelog commits, then the tag v0.2.0
  8. feature: `sub(..., absolute=True)` (+ a failing test calling the new keyword: the statement must name it)
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

OPS = '''"""Arithmetic."""


def add(a, b):
    return a + b


def sub(a, b):
    return a - b


def div(a, b):
    if b == 0:
        return None
    return a / b


def mul(a, b):
    return abs(a) * abs(b)


def power(a, n):
    result = a
    for _ in range(n - 1):
        result *= a
    return result


def clamp(x, low, high):
    return max(low, min(x, high))
'''

TESTS = '''from calc.ops import add, sub


def test_add():
    assert add(2, 3) == 5


def test_sub():
    assert sub(5, 3) == 2
'''

FLAKY = '''from pathlib import Path

STATE = Path(__file__).resolve().parents[2] / "flaky-state"


def test_sometimes():
    count = int(STATE.read_text()) if STATE.exists() else 0
    STATE.write_text(str(count + 1))
    assert count % 2 == 0
'''

PYPROJECT = '''[project]
name = "calc"
version = "0.1.0"
requires-python = ">=3.9"

[tool.pytest.ini_options]
testpaths = ["tests"]
'''

ISSUE = {"number": 1, "title": "div(1, 0) returns None instead of raising",
         "body": "Dividing by zero silently gives None; callers expect an error.",
         "comments": [{"createdAt": "2020-01-01T00:00:00Z", "body": "Confirmed on main."}]}


def _git(repo: Path, *args: str, date: str | None = None) -> str:
    env = {"GIT_AUTHOR_NAME": "Dev", "GIT_AUTHOR_EMAIL": "dev@example.org", "GIT_COMMITTER_NAME": "Dev",
           "GIT_COMMITTER_EMAIL": "dev@example.org", "PATH": "/usr/bin:/bin", "HOME": str(repo)}
    if date:
        env.update(GIT_AUTHOR_DATE=date, GIT_COMMITTER_DATE=date)
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True,
                          env=env).stdout.strip()


def _edit(repo: Path, path: str, old: str, new: str) -> None:
    target = repo / path
    text = target.read_text()
    assert old in text, (path, old)
    target.write_text(text.replace(old, new))


def _write(repo: Path, path: str, text: str) -> None:
    (repo / path).parent.mkdir(parents=True, exist_ok=True)
    (repo / path).write_text(text)


def _commit(repo: Path, message: str, day: int) -> str:
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", message, date=f"2025-03-{day:02d}T12:00:00+00:00")
    return _git(repo, "rev-parse", "HEAD")


def scripted_repository(root: Path) -> dict[str, str]:
    """Create the repository under `root/calc` and return the commits by role."""
    repo = root / "calc"
    repo.mkdir(parents=True)
    _git(repo, "init", "-q", "-b", "main")
    _write(repo, "pyproject.toml", PYPROJECT)
    _write(repo, "calc/__init__.py", '"""A tiny calculator."""\n')
    _write(repo, "calc/ops.py", OPS)
    _write(repo, "tests/test_ops.py", TESTS)
    commits = {"initial": _commit(repo, "Initial calculator", 1)}

    _edit(repo, "calc/ops.py", "        return None\n", "        raise ZeroDivisionError(\"division by zero\")\n")
    _edit(repo, "tests/test_ops.py", "from calc.ops import add, sub\n", "import pytest\n\nfrom calc.ops import add, div, sub\n")
    (repo / "tests/test_ops.py").write_text((repo / "tests/test_ops.py").read_text()
                                            + "\n\ndef test_div_by_zero():\n    with pytest.raises(ZeroDivisionError):\n"
                                              "        div(1, 0)\n")
    commits["div_fix"] = _commit(repo, "Raise on division by zero\n\nFixes #1", 2)

    _edit(repo, "calc/ops.py", "def add(a, b):\n    return a + b\n", "def add(a, b):\n    total = a + b\n    return total\n")
    commits["refactor"] = _commit(repo, "Refactor add", 3)

    _edit(repo, "calc/ops.py", "def clamp(x, low, high):\n",
          "def clamp(x, low, high):\n    \"\"\"Limit x to the closed interval [low, high].\"\"\"\n")
    (repo / "tests/test_ops.py").write_text((repo / "tests/test_ops.py").read_text()
                                            + "\n\ndef test_clamp_bounds():\n    from calc.ops import clamp\n"
                                              "    assert clamp(5, 0, 3) == 3\n")
    commits["already_passing"] = _commit(repo, "Document clamp bounds", 4)

    _edit(repo, "calc/ops.py", "    return abs(a) * abs(b)\n", "    return a * b\n")
    (repo / "tests/test_ops.py").write_text((repo / "tests/test_ops.py").read_text()
                                            + "\n\ndef test_mul_negative():\n    from calc.ops import mul\n"
                                              "    assert mul(-2, 3) == -6\n")
    _write(repo, "tests/test_flaky.py", FLAKY)
    commits["mul_fix_flaky"] = _commit(repo, "Keep the sign in mul\n\nmul(-2, 3) gave 6 instead of -6.", 5)

    _git(repo, "checkout", "-q", "-b", "fix-power")
    _edit(repo, "calc/ops.py", "    result = a\n    for _ in range(n - 1):\n", "    result = 1\n    for _ in range(n):\n")
    (repo / "tests/test_ops.py").write_text((repo / "tests/test_ops.py").read_text()
                                            + "\n\ndef test_power_zero():\n    from calc.ops import power\n"
                                              "    assert power(7, 0) == 1\n")
    commits["power_branch"] = _commit(repo, "power(a, 0) is 1", 6)
    _git(repo, "checkout", "-q", "main")
    _git(repo, "merge", "-q", "--no-ff", "-m", "Merge pull request #7 from dev/fix-power\n\nFix power with exponent 0",
         "fix-power", date="2025-03-07T12:00:00+00:00")
    commits["power_merge"] = _git(repo, "rev-parse", "HEAD")

    _write(repo, "README.md", "# calc\n")
    commits["readme"] = _commit(repo, "Add README", 8)
    _write(repo, "CHANGELOG.md", "## 0.2.0\n- fixes\n")
    commits["changelog"] = _commit(repo, "Changelog for 0.2.0", 9)
    _git(repo, "tag", "v0.2.0")
    _edit(repo, "calc/ops.py", "def sub(a, b):\n    return a - b\n",
          "def sub(a, b, absolute=False):\n    difference = a - b\n    return abs(difference) if absolute else difference\n")
    (repo / "tests/test_ops.py").write_text((repo / "tests/test_ops.py").read_text()
                                            + "\n\ndef test_sub_absolute():\n    assert sub(2, 5, absolute=True) == 3\n")
    commits["sub_absolute"] = _commit(repo, "Add an absolute option to sub", 10)
    _git(repo, "branch", "-D", "fix-power")
    (repo / ".git" / "issues.jsonl").write_text(json.dumps(ISSUE) + "\n")
    commits["path"] = str(repo)
    return commits


if __name__ == "__main__":
    print(json.dumps(scripted_repository(Path(sys.argv[1]))))
