"""The trainer's reward: verl's `compute_score(data_source, solution_str, ground_truth, extra_info)` for every
task family, dispatched through one small table.

Rows of the RL view carry `data_source = "taskforge/<family>"`, the task's hidden
`reference` as the JSON string `reward_model.ground_truth`, and its `grader` as a
JSON string in `extra_info`. Point verl at this module
(`custom_reward_function.path=graders/reward.py`, `name=compute_score`), or install
the small `taskforge-reward` distribution and name `taskforge.graders.reward`.

`REWARD_ENTRIES` maps a family to how its replies are scored. Each entry has a
reply reader (`taskforge.graders.replies`) that takes the graded part out of a reply
however the model wraps it (a ```json fence, sentences around it), and states the
graded reply where the task's prompt does not. Text-answer families and workflow
(a JSON mapping of deliverable files) and mle (a submission CSV) use
`InProcessScorer` (the scorer `taskforge.graders.scorer_for(grader)` names); swe,
whose grading runs the repository's tests, has its own entry
(`taskforge.graders.swe.reward`). Every entry names its reference and no-op
submissions, so each row can be checked to score 1 for its reference and 0 for
doing nothing.

This module and what it imports belong to the small reward install: the standard
library, numpy, polars and scikit-learn (and the docker SDK for swe) only.
"""

from __future__ import annotations

from typing import Any, Protocol

from taskforge.errors import TaskforgeError
from taskforge.graders import scorer_for
from taskforge.graders.base import decoded
from taskforge.graders.replies import CsvReply, FilesReply, ReplyReader, TextAnswer
from taskforge.graders.swe.reward import SweScorer

DATA_SOURCE_PREFIX = "taskforge/"
WORKSPACE_FAMILIES = ("swe", "mle", "workflow")
"""Families whose solver works in a sandboxed workspace. In verl's tool agent loop their reward is the one the
`submit` tool computed (`taskforge.tools.verl_tools`), which verl passes on as `extra_info["tool_rewards"]`."""


class UnknownRewardError(TaskforgeError):
    """A row names a data source or family this installation has no reward entry for."""


class RewardEntry(Protocol):
    """How one family's replies are read and scored, with the submissions that must score 1 and 0."""

    reader: ReplyReader

    def score(self, solution: str, reference: dict[str, Any], grader: dict[str, Any],
              extra_info: dict[str, Any]) -> float: ...

    def reference_submission(self, reference: dict[str, Any], grader: dict[str, Any]) -> str: ...

    def noop_submissions(self, grader: dict[str, Any]) -> list[str]: ...


class InProcessScorer:
    """Scores a reply with the deterministic scorer the task's grader names, in this process."""

    def __init__(self, reader: ReplyReader):
        self.reader = reader

    def score(self, solution: str, reference: dict[str, Any], grader: dict[str, Any],
              extra_info: dict[str, Any]) -> float:
        return float(scorer_for(grader).score(solution, reference, grader))

    def reference_submission(self, reference: dict[str, Any], grader: dict[str, Any]) -> str:
        return scorer_for(grader).reference_submission(reference, grader)

    def noop_submissions(self, grader: dict[str, Any]) -> list[str]:
        return scorer_for(grader).noop_submissions(grader)


TEXT_ANSWER = InProcessScorer(TextAnswer())
REWARD_ENTRIES: dict[str, RewardEntry] = {
    "long_context": TEXT_ANSWER, "literature": TEXT_ANSWER, "workflow": InProcessScorer(FilesReply()),
    "mle": InProcessScorer(CsvReply()), "swe": SweScorer(),
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


def reply_format(family: str, grader: dict[str, Any]) -> str | None:
    """The sentence stating the graded reply of a task, when its own prompt does not state it."""
    return reward_entry(family).reader.reply_format(grader)


def compute_score(data_source: str, solution_str: str, ground_truth: Any, extra_info: dict[str, Any] | None = None,
                  **_: Any) -> float:
    """verl's reward function: the score in [0, 1] of `solution_str` for the row's task.

    `ground_truth` is the task's reference (a JSON string or a mapping) and
    `extra_info["grader"]` its grader; the graded part of the reply is read
    out of its wrapping first. verl's extra keyword arguments (sandbox URL,
    semaphores) are accepted and not used. A workspace family's row run in
    verl's tool agent loop (`extra_info["tool_rewards"]` present) scores what
    its `submit` tool graded.
    """
    info = dict(extra_info or {})
    family = family_of(data_source, info)
    if family in WORKSPACE_FAMILIES and "tool_rewards" in info:
        return submitted_reward(info["tool_rewards"])
    entry = reward_entry(family)
    grader = decoded(info.get("grader"))
    answer = entry.reader.read(solution_str or "", grader)
    return entry.score(answer, decoded(ground_truth), grader, info)


def submitted_reward(tool_rewards: Any) -> float:
    """A workspace trajectory's reward in verl's tool agent loop: what its `submit` graded (taskforge's tools
    give no other reward; verl adds 0 for a call it refused), 0 when it never submitted."""
    rewards = [float(r) for r in (list(tool_rewards) if tool_rewards is not None else [])]
    return max(rewards, default=0.0)
