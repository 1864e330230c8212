"""taskforge's tools as verl tools (`verl.tools.base_tool.BaseTool`), for verl's stock `tool_agent` loop.

Importing this module needs verl. One class, `TaskforgeTool`, serves every
tool: its name comes from the tool schema of its config entry
(`taskforge.tools.verl_config` writes the config files). verl's loop creates
and releases a tool instance around every single call, so what a trajectory
works in (its sandboxed workspace, its search environment) is kept per
trajectory, keyed by the loop's request id (`agent_data.request_id`), opened
on the trajectory's first call from the task's envelope in the release
(`create_kwargs.task_id`; `config.data_dir` is the release folder) and closed
when the trajectory's `agent_data` is dropped (or at exit).

`submit` grades the workspace with the task's own reward and returns that
score as its tool reward, the only tool reward taskforge's tools give: verl
hands the trajectory's `tool_rewards` to `compute_score` in `extra_info`,
which scores a workspace family's row by it (0 when nothing was submitted).
After `submit` the workspace is closed and further calls are told so.
"""

from __future__ import annotations

import asyncio
import atexit
import threading
import weakref
from dataclasses import dataclass, field
from typing import Any, Optional
from uuid import uuid4

from verl.tools.base_tool import BaseTool
from verl.tools.schemas import OpenAIFunctionToolSchema, ToolResponse

from taskforge.graders.task_reward import score_task
from taskforge.schemas import Task
from taskforge.tools import SUBMIT, ToolEnvironment, task_tools
from taskforge.tools.release import task_in_release
from taskforge.tools.workspace import COMMAND_TIMEOUT_S

SUBMITTED = "the attempt was submitted; its workspace is closed"


@dataclass
class Trajectory:
    """What one trajectory works in: its task, its tools, and its score once submitted."""

    task: Task
    tools: ToolEnvironment
    score: float | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)

    def act(self, name: str, parameters: dict[str, Any]) -> tuple[str, float | None]:
        """Run one tool call; the observation, and the task's reward when it was `submit`."""
        with self.lock:
            if self.score is not None:
                return SUBMITTED, None
            observation = self.tools.call(name, parameters)
            if not self.tools.submitted:
                return observation, None
            try:
                self.score = float(score_task(self.task, self.tools.submission()))
            finally:
                self.tools.close()
            return observation, self.score


class Trajectories:
    """The open trajectories of this process, by request id."""

    def __init__(self) -> None:
        self._open: dict[str, Trajectory] = {}
        self._lock = threading.Lock()

    def get(self, key: str, owner: object | None, opener: Any) -> Trajectory:
        """The trajectory `key`, opened with `opener()` on first use; closed when `owner` is dropped."""
        with self._lock:
            if key not in self._open:
                self._open[key] = opener()
                if owner is not None:
                    weakref.finalize(owner, self.close, key)
            return self._open[key]

    def close(self, key: str) -> None:
        """Close a trajectory's tools and forget it."""
        with self._lock:
            trajectory = self._open.pop(key, None)
        if trajectory is not None:
            trajectory.tools.close()

    def __len__(self) -> int:
        """How many trajectories are open."""
        return len(self._open)

    def close_all(self) -> None:
        for key in list(self._open):
            self.close(key)


TRAJECTORIES = Trajectories()
atexit.register(TRAJECTORIES.close_all)


class TaskforgeTool(BaseTool):
    """One of taskforge's tools (search, read, run, read_file, write_file, submit) in verl's interface."""

    def __init__(self, config: dict, tool_schema: OpenAIFunctionToolSchema):
        super().__init__(config, tool_schema)
        self.data_dir = str(config["data_dir"])
        self.command_timeout_s = float(config.get("command_timeout_s", COMMAND_TIMEOUT_S))
        self._created: dict[str, dict[str, Any]] = {}

    async def create(self, instance_id: Optional[str] = None, **kwargs: Any) -> tuple[str, ToolResponse]:
        """Remember the row's `create_kwargs` (its task id) for the call that follows."""
        instance_id = instance_id or uuid4().hex
        self._created[instance_id] = dict(kwargs.get("create_kwargs") or {})
        return instance_id, ToolResponse()

    async def execute(self, instance_id: str, parameters: dict[str, Any], **kwargs: Any
                      ) -> tuple[ToolResponse, float | None, dict]:
        """Run the call in the trajectory's tools (opened on its first call); `submit` returns the task's
        reward of the submission as the tool reward, every other call none."""
        task_id = self._created.get(instance_id, {}).get("task_id")
        if not task_id:
            return ToolResponse(text=f"error: this task offers no {self.name} tool"), None, {}
        agent_data = kwargs.get("agent_data")
        key = f"{getattr(agent_data, 'request_id', None) or instance_id}:{task_id}"
        trajectory = TRAJECTORIES.get(key, agent_data, lambda: self._open(task_id))
        observation, reward = await asyncio.to_thread(trajectory.act, self.name, dict(parameters))
        metrics = {"submitted": 1.0} if self.name == SUBMIT and reward is not None else {}
        return ToolResponse(text=observation), reward, metrics

    async def release(self, instance_id: str, **kwargs: Any) -> None:
        """Forget the call's `create_kwargs` (the trajectory's tools stay open for its next call)."""
        self._created.pop(instance_id, None)

    def _open(self, task_id: str) -> Trajectory:
        task = task_in_release(self.data_dir, task_id)
        return Trajectory(task=task, tools=task_tools(task, self.data_dir, self.command_timeout_s))
