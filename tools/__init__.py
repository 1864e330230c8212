"""The tools each family's solver works with, one implementation for the solver gate, verl and an Inspect export.

`open_tools(family, payload, environment, data_dir)` (or `task_tools(task,
data_dir)`) gives a `ToolEnvironment`: `tools` (OpenAI function format),
`call(name, arguments)` → the observation text, `submitted`, `submission()` →
the reply the task's own reward grades (`taskforge.graders.task_reward.score_task` /
`compute_score`), `close()`.

| family | tools | workspace | submission |
|---|---|---|---|
| swe | run, read_file, write_file, submit | sandbox: `repo/` at the base commit, `env/` | diff against the base |
| mle | run, read_file, write_file, submit | sandbox: public `data/`, science env | `submission/submission.csv` |
| workflow | run, read_file, write_file, submit | sandbox: `inputs/`, empty `outputs/` | `outputs/*` as JSON |
| literature | search, read, submit(answer) | the collection snapshot under the data dir | the answer |
| long_context | submit(answer) | none (the documents are in the prompt) | the answer |
"""

from __future__ import annotations

from typing import Any

from taskforge.graders.reward import WORKSPACE_FAMILIES
from taskforge.schemas import Task
from taskforge.schemas.locations import Location
from taskforge.tools.answers import AnswerEnvironment, literature_environment
from taskforge.tools.base import SUBMIT, ToolEnvironment, ToolEnvironmentError
from taskforge.tools.workspace import COMMAND_TIMEOUT_S
from taskforge.tools.workspaces import MleWorkspace, SweWorkspace, WorkflowWorkspace


def open_tools(family: str, payload: dict[str, Any], environment: dict[str, Any], data_dir: Location | None = None,
               label: str = "task", command_timeout_s: float = COMMAND_TIMEOUT_S) -> ToolEnvironment:
    """A fresh tool environment for one attempt at a task (a workspace family's sandbox starts on its first
    call). `data_dir` holds a literature task's collection snapshot (a data dir or a release folder)."""
    limits = {"command_timeout_s": command_timeout_s}
    if family == "swe":
        return SweWorkspace(payload, environment, label, **limits)
    if family == "mle":
        return MleWorkspace(payload, environment, label, **limits)
    if family == "workflow":
        return WorkflowWorkspace(payload, label, **limits)
    if family == "literature":
        return literature_environment(environment, data_dir)
    if family == "long_context":
        return AnswerEnvironment("long_context")
    raise ToolEnvironmentError(f"no tool environment for family {family!r}")


def task_tools(task: Task, data_dir: Location | None = None, command_timeout_s: float = COMMAND_TIMEOUT_S
               ) -> ToolEnvironment:
    """A fresh tool environment for one attempt at `task`."""
    return open_tools(task.family, task.payload, task.environment, data_dir, task.task_id, command_timeout_s)


__all__ = ["SUBMIT", "WORKSPACE_FAMILIES", "ToolEnvironment", "ToolEnvironmentError", "open_tools", "task_tools"]
