"""What runs a SWE task's held-out tests in its instance image: the image's layout, name and eval script.

The instance image (built by `taskforge.builders.swe.image`) holds the repository
at the base commit in `/workspace/repo`, where the sandbox's test sessions have it
(and where the environment's editable install points), with `/testbed`, SWE-bench's
working directory, linking to it, and the environment built from the task's recipe
in `/workspace/env`, first on PATH. The eval script is SWE-bench's: put the test patch's files back as
they are at the base commit, apply the test patch, run the held-out test files
between the `Start`/`End Test Output` markers, and put the files back again. The
SWE-bench harness, the Inspect export and the reward all run this one script.
Nothing here needs more than the standard library.
"""

from __future__ import annotations

import re
import shlex
from typing import Any

from taskforge.graders.swe.patch import split_files

REPO_PATH, ENV_PATH = "/workspace/repo", "/workspace/env"
TESTBED = "/testbed"
"""SWE-bench's working directory: a link to `REPO_PATH`."""
IMAGE_REPOSITORY = "taskforge/swe-eval"
IMAGE_LAYOUT = "v1"
"""Part of every instance image's tag: bumped when what an instance image holds, or where, changes."""
START_MARKER, END_MARKER = ">>>>> Start Test Output", ">>>>> End Test Output"
PATCH_REFUSED = 90
"""Exit code of `submission_script` when the submission does not apply."""
_HEREDOC = "EOF_TASKFORGE_7c1d"
_IMAGE_NAME = re.compile(r"[^a-z0-9_.-]+")


def python_env(recipe: dict[str, Any]) -> tuple[tuple[str, str], ...]:
    """Variables every command in a test bed gets (the source on the path when the project is not installed)."""
    variables = [("PIP_NO_INDEX", "1"), ("PIP_DISABLE_PIP_VERSION_CHECK", "1"), ("PIP_CONFIG_FILE", "/dev/null"),
                 ("PYTHONDONTWRITEBYTECODE", "1")]
    if recipe["install"] == "pythonpath":
        variables.append(("PYTHONPATH", recipe["pythonpath"]))
    return tuple(variables)


def image_name(instance_id: str, content: str) -> str:
    """The instance image's tag: the instance id (lower case, as docker requires) and a content id of what it
    holds, so a changed snapshot or environment is a new image."""
    return f"{IMAGE_REPOSITORY}.{_IMAGE_NAME.sub('-', instance_id.lower())}:{content}-{IMAGE_LAYOUT}"


def _heredoc(command: str, text: str, then: str = "") -> list[str]:
    """`command` reading `text` on its standard input, then `then` (e.g. `|| exit 1`)."""
    return [f"{command} <<'{_HEREDOC}'{then}", text.rstrip("\n"), _HEREDOC]


def eval_script(base_commit: str, test_patch: str, test_files: list[str], recipe: dict[str, Any]) -> str:
    """The bash script that grades the current state of `/testbed` (SWE-bench's `eval.sh`)."""
    files = split_files(test_patch)
    existing = " ".join(shlex.quote(f.old_path) for f in files if not f.is_new)
    added = " ".join(shlex.quote(f.new_path) for f in files if f.is_new)
    runner = recipe["test_cmd"].removeprefix("python ")
    exports = [f"export {name}={shlex.quote(value)}" for name, value in python_env(recipe)]
    lines = ["#!/bin/bash", "set -uxo pipefail", f"cd {TESTBED}", *exports]
    reset = [f"git checkout {base_commit} -- {existing}"] if existing else []
    lines += reset + ([f"rm -f {added}"] if added else [])
    lines += _heredoc("git apply --whitespace=nowarn -", test_patch)
    lines += [f": '{START_MARKER}'",
              f"{ENV_PATH}/bin/python {runner} {' '.join(map(shlex.quote, test_files))}",
              f": '{END_MARKER}'"]
    lines += reset + ([f"rm -f {added}"] if added else [])
    return "\n".join(lines) + "\n"


def submission_script(submission: str, script: str) -> str:
    """A script that applies a submission in `/testbed` (exit `PATCH_REFUSED` when it does not apply; the empty
    submission changes nothing), then runs the eval script, its trace and output in one stream (in order, as
    the harness reads them)."""
    shebang, options, body = script.split("\n", 2)
    apply = _heredoc("git apply --whitespace=nowarn -", submission, f" || exit {PATCH_REFUSED}") \
        if submission.strip() else []
    return "\n".join([shebang, "exec 2>&1", options, f"cd {TESTBED}", *apply, body])


def test_output(log: str) -> str:
    """The part of an eval script's output between its markers (the whole log when they are missing)."""
    start, end = log.rfind(START_MARKER), log.rfind(END_MARKER)
    return log[start + len(START_MARKER):end] if 0 <= start < end else log
