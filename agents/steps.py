"""The LLM steps of a run and how each went: ran (with its calls), had nothing to do, or skipped and why."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable

from taskforge.agents.config import AgentsConfig


@dataclass(frozen=True)
class LLMStep:
    """One place where a role adds value; `name` is also the `purpose` its calls are recorded under."""

    name: str
    role: str
    what: str


LLM_STEPS: tuple[LLMStep, ...] = (
    LLMStep("diagnosis", "diagnoser", "diagnose failed episodes (beside the rules)"),
    LLMStep("review", "reviewer", "review built tasks (long-context, workflow) and builder-written questions, "
                                  "descriptions and problem statements (literature, MLE, SWE) against their sources"),
    LLMStep("swe_problem_statement", "builder", "write SWE problem statements from the fix, its tests and its "
                                                "commit message"),
    LLMStep("literature_questions", "builder", "rewrite computed literature questions in natural words"),
    LLMStep("workflow_evolution", "builder", "vary workflow seeds with new input records"),
    LLMStep("mle_description", "builder", "write MLE competition descriptions from the data facts"),
    LLMStep("easiness_estimate", "judge", "answer long-context candidates to estimate how easy they are"),
    LLMStep("evolution_judge", "judge", "judge evolved tasks (long-context, workflow) against their parents"),
    LLMStep("solver_attempt", "solver", "attempt candidates k times with their family's tools (the solver gate: "
                                        "the `difficulty` question)"),
)


def step_states(config: AgentsConfig, usage: Iterable[dict[str, Any]]) -> dict[str, str]:
    """Each step's state in a run, from the configuration and the run's call rows (`purpose`, `calls` …)."""
    totals: dict[str, dict[str, int]] = {}
    for row in usage:
        total = totals.setdefault(row["purpose"], {"calls": 0, "replayed": 0, "failed": 0})
        for key in total:
            total[key] += int(row[key])
    states = {}
    for step in LLM_STEPS:
        reason = config.roles[step.role].skip_reason
        done = totals.get(step.name)
        if done:
            states[step.name] = (f"ran: {done['calls']} call(s), {done['replayed']} replayed from cache, "
                                 f"{done['failed']} failed")
        elif reason:
            states[step.name] = f"skipped: {reason}"
        else:
            states[step.name] = "enabled: no calls in this run"
    return states
