"""Export of accepted SWE tasks as SWE-bench instances (JSON lines) that the SWE-bench harness and agents run.

Each instance has SWE-bench's fields (FAIL_TO_PASS / PASS_TO_PASS as JSON strings,
as in its published datasets; `repo` the repository's real `owner/name`) and what
the harness (swebench 5.x) reads to run a custom dataset without building or
pulling anything: `image` (the instance image, built here from the task's recipe
by `taskforge.builders.swe.image`), `eval_script` (`graders/swe/eval_script.py`),
`log_parser` (a name of swebench's parser registry) and `eval_type`. mini-swe-agent
reads `image_name` (the same image; it works in `/testbed`). `install_config`
carries the environment recipe the way SWE-rebench publishes it, with `python`
the Python version the task was validated on (`requires_python` the project's
own specifier).

    python -m taskforge.sandbox.swebench_harness --dataset_name instances.jsonl --predictions_path gold --run_id check

(swebench's own command line, every container created with the network off: builders/swe/README.md, "Export").
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterable

from taskforge.graders.swe.reward import instance_image, task_eval_script
from taskforge.schemas import Task
from taskforge.store.files import write_text_atomic

INSTANCE_FIELDS = ("repo", "instance_id", "base_commit", "problem_statement", "hints_text", "created_at", "version",
                   "environment_setup_commit")
SWEBENCH_LOG_PARSERS = {"pytest": "parse_log_pytest"}
"""Our log parser → the swebench parser reading the same `pytest -rA` lines."""
EVAL_TYPE = "pass_and_fail"


def install_config(task: Task) -> dict[str, Any]:
    """The recipe, with the Python version the task was validated on and the project's own specifier."""
    recipe = dict(task.payload["environment_recipe"])
    return {**recipe, "requires_python": recipe.pop("python"), "python": task.environment["python"]}


def to_instance(task: Task) -> dict[str, Any]:
    """One SWE-bench instance from an accepted SWE task."""
    instance = {name: task.payload[name] for name in INSTANCE_FIELDS}
    image = instance_image(task.payload, task.environment)
    instance.update(
        patch=task.reference["patch"], test_patch=task.reference["test_patch"],
        FAIL_TO_PASS=json.dumps(task.payload["FAIL_TO_PASS"]), PASS_TO_PASS=json.dumps(task.payload["PASS_TO_PASS"]),
        image=image, image_name=image, eval_script=task_eval_script(task.payload, task.reference, task.grader),
        log_parser=SWEBENCH_LOG_PARSERS[task.payload["environment_recipe"]["log_parser"]], eval_type=EVAL_TYPE,
        install_config=install_config(task), task_id=task.task_id,
    )
    return instance


def accepted_swe(tasks: Iterable[Task]) -> list[Task]:
    """The accepted SWE tasks among `tasks`, by instance id."""
    return sorted((t for t in tasks if t.family == "swe" and t.status == "accepted"),
                  key=lambda t: t.payload["instance_id"])


def write_instances(tasks: Iterable[Task], path: Path) -> int:
    """Write the accepted SWE tasks among `tasks` to a JSON-lines file; returns how many were written."""
    lines = [json.dumps(to_instance(t), sort_keys=True) for t in accepted_swe(tasks)]
    write_text_atomic(path, "".join(line + "\n" for line in lines))
    return len(lines)
