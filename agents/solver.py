"""The solver role: attempts a task with its family's tools, one action per turn, as a mini-swe-agent does.

Each attempt is a conversation. The solver sees what a trained model would:
the task's own messages, with the tools (`taskforge.tools`) listed and the
reply format stated; it never sees the reference, the grader or how the task
was made. Each reply is one action (`SolverAction`: thought, tool, arguments);
the tool's observation comes back as the next user turn, with the actions
left. The attempt ends when the solver calls `submit` (its submission is then
graded by the task's own reward, `taskforge.graders.task_reward.score_task`), when
the step budget is spent (nothing submitted: score 0), when the conversation
outgrows the solver's window (score 0), or when a call fails (the attempt is
not counted). Every turn is one call of the `solver` role, recorded and
priced like every LLM step (purpose `solver_attempt`); attempt i is sent with
seed i, so the k attempts are separate samples and a rerun replays them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Callable, Literal

from pydantic import BaseModel, Field

from taskforge.agents.client import Agents
from taskforge.graders.task_reward import score_task
from taskforge.schemas import Task
from taskforge.schemas.locations import Location
from taskforge.tools import SUBMIT, ToolEnvironment, task_tools
from taskforge.tools.workspace import COMMAND_TIMEOUT_S

ROLE, PURPOSE = "solver", "solver_attempt"
INSTRUCTION = (
    "You solve the task below by acting with tools, one action per reply. Reply with one JSON object: `thought` "
    "(what you know so far and why this action is next), `tool` (the name of one tool) and `arguments` (that "
    "tool's arguments, as its schema says). You then see what the tool returned and choose your next action. You "
    "have at most {steps} actions. Call `{submit}` when you are done: only what you submit is graded, and "
    "submitting ends the attempt.\n\nThe tools, in OpenAI function format:\n{tools}")
Outcome = Literal["submitted", "out_of_steps", "too_long", "call_failed"]


class SolverAction(BaseModel):
    """One action of the solver: its reasoning, then the tool it calls and the arguments."""

    thought: str = Field(description="what you know so far and why this action is next")
    tool: str = Field(description="the name of one of the tools")
    arguments: dict[str, Any] = Field(default_factory=dict, description="the tool's arguments")


@dataclass(frozen=True)
class SolverSettings:
    """How hard the solver tries: attempts per task (k), actions per attempt, the score that counts as solved,
    and the time limit of one workspace command."""

    attempts: int = 4
    max_steps: int = 30
    pass_score: float = 1.0
    command_timeout_s: float = COMMAND_TIMEOUT_S


@dataclass
class Attempt:
    """How one attempt went: its seed, how it ended, its score, the tools it called, its calls' ids."""

    seed: int
    outcome: Outcome
    score: float = 0.0
    actions: list[str] = field(default_factory=list)
    call_ids: list[str] = field(default_factory=list)
    error: str | None = None

    def record(self, pass_score: float) -> dict[str, Any]:
        """A JSON-ready account of the attempt (what a check's detail keeps)."""
        return {"seed": self.seed, "outcome": self.outcome, "score": self.score, "solved": self.solved(pass_score),
                "steps": len(self.actions), "actions": self.actions, "error": self.error}

    def solved(self, pass_score: float) -> bool:
        """Whether the attempt submitted a reply that scored at least `pass_score`."""
        return self.outcome == "submitted" and self.score >= pass_score


@dataclass
class SolveRate:
    """The attempts at a task and what they add up to. Attempts whose calls failed are not counted."""

    attempts: list[Attempt]
    pass_score: float

    @property
    def counted(self) -> list[Attempt]:
        return [a for a in self.attempts if a.outcome != "call_failed"]

    @property
    def passes(self) -> int:
        return sum(a.solved(self.pass_score) for a in self.counted)

    @property
    def pass_rate(self) -> float | None:
        """Solved attempts over counted attempts (None when no attempt counted)."""
        return round(self.passes / len(self.counted), 4) if self.counted else None

    @property
    def mean_score(self) -> float | None:
        return round(sum(a.score for a in self.counted) / len(self.counted), 4) if self.counted else None

    def record(self) -> dict[str, Any]:
        """A JSON-ready account: rate, mean score, counts and every attempt."""
        return {"pass_rate": self.pass_rate, "mean_score": self.mean_score, "passes": self.passes,
                "counted": len(self.counted), "attempts": [a.record(self.pass_score) for a in self.attempts],
                "pass_score": self.pass_score}


def system_message(task: Task, tools: ToolEnvironment, max_steps: int) -> str:
    """The solver's system turn: how to act, the tools, then the task's own system turn."""
    listing = json.dumps(tools.tools, indent=1, ensure_ascii=False)
    return "\n\n".join([INSTRUCTION.format(steps=max_steps, submit=SUBMIT, tools=listing),
                        *(m.content for m in task.prompt if m.role == "system")])


def opening(task: Task, tools: ToolEnvironment, max_steps: int) -> list[dict[str, str]]:
    """The conversation an attempt starts from: the system turn, then the task's own non-system turns."""
    return [{"role": "system", "content": system_message(task, tools, max_steps)},
            *({"role": m.role, "content": m.content} for m in task.prompt if m.role != "system")]


def _known_tool(tools: ToolEnvironment) -> Callable[[SolverAction], None]:
    """A reply check: the action names a tool of the environment (else the reply is sent back to repair)."""
    names = [tool["function"]["name"] for tool in tools.tools]

    def check(action: SolverAction) -> None:
        if action.tool not in names:
            raise ValueError(f"`tool` must be one of {', '.join(names)}, not {action.tool!r}")
    return check


def attempt_task(agents: Agents, task: Task, tools: ToolEnvironment, seed: int, max_steps: int) -> Attempt:
    """One attempt at `task` with `tools`, graded by the task's own reward when it submits."""
    conversation = opening(task, tools, max_steps)
    attempt = Attempt(seed=seed, outcome="out_of_steps")
    check = _known_tool(tools)
    for step in range(1, max_steps + 1):
        reply = agents.ask_next(ROLE, conversation, SolverAction, purpose=PURPOSE, family=task.family,
                                subject=task.task_id, seed=seed, check=check)
        if reply.call is not None:
            attempt.call_ids.append(reply.call.call_id)
        if not reply.ok:
            too_long = (reply.call is not None and reply.call.status == "too_long")
            attempt.outcome, attempt.error = ("too_long" if too_long else "call_failed"), reply.reason
            return attempt
        action = reply.value
        attempt.actions.append(action.tool)
        observation = tools.call(action.tool, action.arguments)
        if tools.submitted:
            attempt.outcome = "submitted"
            attempt.score = float(score_task(task, tools.submission()))
            return attempt
        conversation += [{"role": "assistant", "content": action.model_dump_json()},
                         {"role": "user", "content": f"Observation from {action.tool}:\n{observation}\n\n"
                                                     f"({max_steps - step} actions left)"}]
    return attempt


def solve_rate(agents: Agents, task: Task, settings: SolverSettings, data_dir: Location | None = None,
               tools_for: Callable[[Task], ToolEnvironment] | None = None) -> SolveRate:
    """`settings.attempts` attempts at `task`, each with fresh tools (`tools_for(task)`; by default the family's
    own, `taskforge.tools.task_tools`), seeds 0 … k-1."""
    make = tools_for or (lambda t: task_tools(t, data_dir, settings.command_timeout_s))
    attempts = []
    for seed in range(settings.attempts):
        tools = make(task)
        try:
            attempts.append(attempt_task(agents, task, tools, seed, settings.max_steps))
        finally:
            tools.close()
    return SolveRate(attempts=attempts, pass_score=settings.pass_score)
