"""The solver gate, the `difficulty` question: how often does a solver solve the task with its family's tools?

Where a solver endpoint is configured (the `solver` role: ideally the model
being trained), the solver attempts the task k times in a mini-swe-agent-style
loop with the family's tools (`taskforge.agents.solver`, `taskforge.tools`),
each submission graded by the task's own reward. The result records the pass
rate (`score`), the mean score and every attempt (`detail`), so the pass rate
is kept on the task. A task is rejected when

- its pass rate is above the ceiling (too easy: it teaches nothing). In a
  family whose builder makes harder variants of a built task (workflow) the
  result says so and carries `detail.evolve`: the validate stage hands the
  candidate back to be made harder and tries the variant again
  (`taskforge.flows.evolution`), as the seeds' loops do;
- no attempt solved it and its own reference does not score full marks
  through the same reward (a broken task, not a hard one).

Without a solver endpoint, or when an earlier check already rejected the task,
the gate says it was skipped and why, and the heuristic checks (`shortcut`)
decide alone. Attempts whose calls failed are not counted; when none counts,
the gate is skipped with the failure.

Settings (environment): `TASKFORGE_SOLVER_ATTEMPTS` (k, 4),
`TASKFORGE_SOLVER_STEPS` (actions per attempt, 30), `TASKFORGE_SOLVER_CEILING`
(0.75), `TASKFORGE_SOLVER_PASS_SCORE` (the score that counts as solved, 1.0),
`TASKFORGE_SOLVER_COMMAND_TIMEOUT_S` (one workspace command, 120).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Mapping

from taskforge.agents.client import Agents
from taskforge.agents.solver import ROLE, SolverSettings, solve_rate
from taskforge.graders.reward import reward_entry
from taskforge.graders.task_reward import score_task
from taskforge.schemas import FAMILIES, Task, TaskforgeError, ValidationResult
from taskforge.schemas.locations import Location
from taskforge.validators.base import CheckContext, skipped
from taskforge.validators.questions import Strategy, answered_by

EVOLVING_FAMILIES = ("workflow",)
"""Families whose builders make a harder variant of a built task (`taskforge.builders.base.Evolving`)."""
DEFAULT_CEILING = 0.75


class GateSettingsError(TaskforgeError):
    """A solver gate setting in the environment is not a valid number."""


@dataclass(frozen=True)
class GateSettings:
    """The solver's effort (`solver`) and the highest pass rate a kept task may have (`ceiling`)."""

    solver: SolverSettings = field(default_factory=SolverSettings)
    ceiling: float = DEFAULT_CEILING

    @classmethod
    def from_environment(cls, environ: Mapping[str, str] | None = None) -> "GateSettings":
        """The settings the `TASKFORGE_SOLVER_*` variables give (defaults for those unset)."""
        env = os.environ if environ is None else environ
        base = SolverSettings()

        def number(name: str, default: float, kind: type = float) -> float:
            raw = env.get(f"TASKFORGE_SOLVER_{name}")
            try:
                return kind(raw) if raw not in (None, "") else default
            except ValueError:
                raise GateSettingsError(f"TASKFORGE_SOLVER_{name} must be a number, got {raw!r}") from None

        settings = cls(solver=SolverSettings(attempts=int(number("ATTEMPTS", base.attempts, int)),
                                             max_steps=int(number("STEPS", base.max_steps, int)),
                                             pass_score=number("PASS_SCORE", base.pass_score),
                                             command_timeout_s=number("COMMAND_TIMEOUT_S", base.command_timeout_s)),
                       ceiling=number("CEILING", DEFAULT_CEILING))
        if settings.solver.attempts < 1 or settings.solver.max_steps < 1 or not 0 <= settings.ceiling <= 1:
            raise GateSettingsError("the solver gate needs at least 1 attempt and 1 step, and a ceiling in [0, 1]")
        return settings


class SolverGate:
    """Attempts a task k times with the solver role and its family's tools; rejects it when the pass rate is
    above the ceiling, or when nothing solves it and its reference is broken."""

    name = "solver_gate"

    def __init__(self, agents: Agents | None, data_dir: Location | None, evolves: bool,
                 settings: GateSettings | None = None):
        self.agents = agents
        self.data_dir = data_dir
        self.evolves = evolves
        self.settings = settings

    def applies_to(self, task: Task) -> bool:
        return True

    def run(self, task: Task) -> ValidationResult:
        rejected_by = [result.check for result in task.validation if not result.passed]
        if rejected_by:
            return skipped(self.name, f"skipped: not attempted, already rejected by {', '.join(rejected_by)}")
        if self.agents is None:
            return skipped(self.name, "skipped: no LLM roles in this run (no solver endpoint); the heuristic "
                                      "shortcut checks decide alone")
        reason = self.agents.skip_reason(ROLE)
        if reason:
            return skipped(self.name, f"skipped: no solver ({reason}); the heuristic shortcut checks decide alone")
        settings = self.settings or GateSettings.from_environment()
        rate = solve_rate(self.agents, task, settings.solver, self.data_dir)
        detail = {**rate.record(), "ceiling": settings.ceiling, "attempts_asked": settings.solver.attempts,
                  "max_steps": settings.solver.max_steps, "model": self.agents.config.roles[ROLE].model}
        if rate.pass_rate is None:
            failures = "; ".join(sorted({a.error or a.outcome for a in rate.attempts}))
            return skipped(self.name, f"skipped: every solver attempt's call failed ({failures})")
        if rate.pass_rate > settings.ceiling:
            handed = "; handed back for evolution into a harder variant" if self.evolves else ""
            return ValidationResult(
                check=self.name, passed=False, score=rate.pass_rate,
                reason=(f"too easy: the solver solved {rate.passes} of {len(rate.counted)} attempts "
                        f"(pass rate {rate.pass_rate}), above the ceiling {settings.ceiling}{handed}"),
                detail={**detail, "evolve": self.evolves})
        if rate.passes == 0:
            reference = _reference_score(task)
            detail["reference_score"] = reference
            if reference < 1.0:
                return ValidationResult(
                    check=self.name, passed=False, score=rate.pass_rate, detail=detail,
                    reason=(f"never solved in {len(rate.counted)} attempts and the task's own reference scores "
                            f"{reference} through its reward: the task is broken, not hard"))
        return ValidationResult(check=self.name, passed=True, score=rate.pass_rate, detail=detail)


def _reference_score(task: Task) -> float:
    """What the task's reference submission scores through the task's own reward (re-derived, not read)."""
    entry = reward_entry(task.family)
    return float(score_task(task, entry.reference_submission(task.reference, task.grader)))


def strategies(context: CheckContext) -> dict[str, Strategy]:
    """Family → its strategy for `difficulty`: the solver gate with the family's tools (evolving where the family
    has an evolution loop)."""
    return {family: answered_by(SolverGate(context.agents, context.data_dir, family in EVOLVING_FAMILIES))
            for family in FAMILIES}
