"""Which episodes become SFT demonstrations: the selection policy, the leakage audit, and the one regrade.

Policy, in order:
1. an infrastructure failure (the run broke: sample error, environment error, time limit) is left out,
   and so is a bare timeout (the outcome says it timed out and the model left no result);
2. a zero-reward or ungraded episode is regraded once, when its task is a taskforge task of this catalog
   (found by task id) whose family has a reward entry: its final assistant message is scored with
   `taskforge.graders.task_reward.score_task`; otherwise it is recorded as not regradable and keeps its outcome;
3. a successful episode (as read, or after the regrade) is selected when it passes the leakage audit;
4. an unresolved one is selected when it left a non-empty result, interacted substantively (at least
   two tool calls answered without error) and passes the leakage audit.

The leakage audit fails an episode whose tool calls reach for answer material (hidden tests, grader or
reference files, git history beyond the working tree), that contains a canary string of a registered
evaluation set, or (for a taskforge task) whose user messages state the reference answer outside the task's
own, already checked, prompt.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from taskforge.graders.long_context.values import verbatim_in
from taskforge.graders.reward import REWARD_ENTRIES
from taskforge.graders.task_reward import score_task
from taskforge.schemas import Episode, Task
from taskforge.validators.evalsets import load_registry

MIN_TOOL_RESULTS = 2
TIMEOUT_WORDS = re.compile(r"time ?out|timed out|time limit|working[_ ]limit", re.IGNORECASE)
ANSWER_MATERIAL = re.compile(
    r"hidden[_ -]?tests?|\bgrade\.py\b|\bgrader\b|private[_/ -]?answers?|reference[_ -]?(?:solution|workflow|answer)"
    r"|\btest_patch\b|\bgold[_ -]?patch\b|refs/stash|packed-refs|\bgit\s+(?:reflog|fsck)\b"
    r"|\bgit\s+(?:log|show|rev-list)\b[^\n]*--all",
    re.IGNORECASE)


@dataclass(frozen=True)
class Selection:
    """The decision on one episode: selected or not and why, the reward it carries, and its regrade."""

    selected: bool
    reason: str
    score: float | None
    regraded_score: float | None
    regrade: str


def final_result(episode: Episode) -> str:
    """The content of the episode's last assistant message (its answer), stripped."""
    answers = [s.content for s in episode.steps if s.role == "assistant" and s.content.strip()]
    return answers[-1].strip() if answers else ""


def answered_tool_calls(episode: Episode) -> int:
    """Tool results that came back without an error."""
    return sum(1 for s in episode.steps if s.role == "tool" and not s.is_error)


def leakage_audit(episode: Episode, task: Task | None, data_dir: Path | None) -> list[str]:
    """Why the episode's result may not be its own work (empty when the audit passes)."""
    found = []
    for step in episode.steps:
        for call in step.tool_calls:
            hit = ANSWER_MATERIAL.search(call.arguments)
            if hit:
                found.append(f"step {step.index}: {call.name} reaches for answer material ({hit.group(0)!r})")
    canaries = load_registry(data_dir).canaries if data_dir else {}
    for step in episode.steps:
        for canary, (set_name, item) in canaries.items():
            if canary in step.content or any(canary in c.arguments for c in step.tool_calls):
                found.append(f"step {step.index}: canary of evaluation set {set_name!r} item {item!r}")
    if task is not None:
        answer = str(task.reference.get("answer_text") or "")
        shown = {m.content for m in task.prompt}
        for step in episode.steps:
            if step.role == "user" and step.content not in shown and answer and verbatim_in(answer, step.content):
                found.append(f"step {step.index}: a user message states the reference answer {answer!r}")
    return found


def _regrade(episode: Episode, task: Task | None, earlier: tuple[float | None, str] | None
             ) -> tuple[float | None, str]:
    """The regraded score and a note: reused when recorded before, so an episode is regraded once."""
    if earlier is not None:
        return earlier
    if task is None:
        return None, f"not regradable: task {episode.task_id!r} is not a taskforge task in this catalog"
    if task.family not in REWARD_ENTRIES:
        return None, f"not regradable: no reward entry for family {task.family!r}"
    score = score_task(task, final_result(episode))
    return score, f"regraded: {episode.outcome.score} -> {score}"


def select(episode: Episode, task: Task | None, data_dir: Path | None,
           earlier_regrade: tuple[float | None, str] | None = None) -> Selection:
    """Apply the selection policy (module docstring) to one episode; `task` is its taskforge task if known."""
    outcome = episode.outcome
    result = final_result(episode)
    if outcome.failure_origin == "infrastructure":
        return Selection(False, f"infrastructure failure: {outcome.detail or 'no detail'}", outcome.score, None,
                         "not regraded")
    if TIMEOUT_WORDS.search(outcome.detail or "") and not result:
        return Selection(False, "bare timeout: no result", outcome.score, None, "not regraded")
    score, regraded, note = outcome.score, None, "not regraded"
    if not outcome.success and (not outcome.graded or not outcome.score):
        regraded, note = _regrade(episode, task, earlier_regrade)
        score = regraded if regraded is not None else score
    leaks = leakage_audit(episode, task, data_dir)
    if outcome.success or (regraded is not None and regraded >= 1.0):
        reason = "success" if outcome.success else "success on regrade"
        return Selection(not leaks, f"leakage: {leaks[0]}" if leaks else reason, score, regraded, note)
    missing = [why for why, failed in (("no result", not result),
                                       (f"fewer than {MIN_TOOL_RESULTS} answered tool calls",
                                        answered_tool_calls(episode) < MIN_TOOL_RESULTS),
                                       (f"leakage: {leaks[0]}" if leaks else "", bool(leaks))) if failed]
    if missing:
        return Selection(False, "unresolved: " + "; ".join(missing), score, regraded, note)
    return Selection(True, "unresolved with a result", score, regraded, note)
