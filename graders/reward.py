"""The trainer's reward: verl's `compute_score(data_source, solution_str, ground_truth, extra_info)` for every
task family, dispatched through one small table.

Rows of the RL view carry `data_source = "taskforge/<family>"`, the task's hidden
`reference` as the JSON string `reward_model.ground_truth`, and its `grader` as a
JSON string in `extra_info`. Point verl at this module
(`custom_reward_function.path=graders/reward.py`, `name=compute_score`).

`REWARD_ENTRIES` maps a family to how its replies are scored. Text-answer families
use `InProcessScorer` (the scorer `taskforge.graders.scorer_for(grader)` names); so do
workflow, whose installed scorer grades a JSON mapping of deliverable files with
the same code its sandboxed grader program runs, and mle, whose scorer grades a
submission CSV against the private answers with the competition's metric. swe, whose grading must run
task code in `sandbox/` (held-out tests of a repository), has its own entry with
the same three methods (`taskforge.graders.swe.reward`). Every entry
names its reference and no-op submissions, so each row can be checked to score
1 for its reference and 0 for doing nothing.
"""

from __future__ import annotations

from typing import Any, Protocol

from taskforge.graders import scorer_for
from taskforge.graders.base import decoded
from taskforge.graders.swe.reward import SweSandboxScorer
from taskforge.schemas import Task, TaskforgeError, canonical_json

DATA_SOURCE_PREFIX = "taskforge/"


class UnknownRewardError(TaskforgeError):
    """A row names a data source or family this installation has no reward entry for."""


class RewardEntry(Protocol):
    """How one family's replies are scored, with the submissions that must score 1 and 0."""

    def score(self, solution: str, reference: dict[str, Any], grader: dict[str, Any],
              extra_info: dict[str, Any]) -> float: ...

    def reference_submission(self, reference: dict[str, Any], grader: dict[str, Any]) -> str: ...

    def noop_submissions(self, grader: dict[str, Any]) -> list[str]: ...


class InProcessScorer:
    """Scores a reply with the deterministic scorer the task's grader names, in this process."""

    def score(self, solution: str, reference: dict[str, Any], grader: dict[str, Any],
              extra_info: dict[str, Any]) -> float:
        return float(scorer_for(grader).score(solution, reference, grader))

    def reference_submission(self, reference: dict[str, Any], grader: dict[str, Any]) -> str:
        return scorer_for(grader).reference_submission(reference, grader)

    def noop_submissions(self, grader: dict[str, Any]) -> list[str]:
        return scorer_for(grader).noop_submissions(grader)


IN_PROCESS = InProcessScorer()
REWARD_ENTRIES: dict[str, RewardEntry] = {
    "long_context": IN_PROCESS, "literature": IN_PROCESS, "workflow": IN_PROCESS, "mle": IN_PROCESS,
    "swe": SweSandboxScorer(),
}
"""Family → reward entry. A family's tasks cannot be trained on until it has one here."""


def data_source_for(family: str) -> str:
    """The `data_source` of a family's RL rows."""
    return f"{DATA_SOURCE_PREFIX}{family}"


def family_of(data_source: str, extra_info: dict[str, Any] | None) -> str:
    """The family a row belongs to: from `taskforge/<family>`, else from `extra_info["family"]`."""
    if data_source and data_source.startswith(DATA_SOURCE_PREFIX):
        return data_source[len(DATA_SOURCE_PREFIX):]
    family = (extra_info or {}).get("family")
    if not family:
        raise UnknownRewardError(f"data source {data_source!r} is not a taskforge family and extra_info names none")
    return str(family)


def reward_entry(family: str) -> RewardEntry:
    """The reward entry of a family."""
    try:
        return REWARD_ENTRIES[family]
    except KeyError:
        raise UnknownRewardError(f"no reward entry for family {family!r}; known: "
                                 f"{', '.join(sorted(REWARD_ENTRIES))}") from None


def compute_score(data_source: str, solution_str: str, ground_truth: Any, extra_info: dict[str, Any] | None = None,
                  **_: Any) -> float:
    """verl's reward function: the score in [0, 1] of `solution_str` for the row's task.

    `ground_truth` is the task's reference (a JSON string or a mapping) and
    `extra_info["grader"]` its grader; verl's extra keyword arguments (sandbox
    URL, semaphores) are accepted and not used.
    """
    info = dict(extra_info or {})
    entry = reward_entry(family_of(data_source, info))
    return entry.score(solution_str or "", decoded(ground_truth), decoded(info.get("grader")), info)


def task_info(task: Task) -> dict[str, Any]:
    """The task fields every RL row's `extra_info` carries (payload, grader, environment as JSON strings)."""
    return {"task_id": task.task_id, "family": task.family, "kind": task.kind, "capability": task.capability,
            "parent_task_id": task.lineage.parent_task_id, "payload": canonical_json(task.payload),
            "grader": canonical_json(task.grader), "environment": canonical_json(task.environment)}


def score_task(task: Task, solution: str) -> float:
    """A reply's reward for a task envelope, exactly as `compute_score` scores it on the task's RL row."""
    return compute_score(data_source_for(task.family), solution, canonical_json(task.reference), task_info(task))
