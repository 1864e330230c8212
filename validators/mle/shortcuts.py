"""MLE shortcut scores, the MLE part of the `shortcut` question: a constant, the majority class, the single best
feature (`taskforge.graders.mle.shortcuts`, in process) and a plain linear model (run in the sandbox with the
re-run leaderboard), each scored like a solver by the task's own scorer (its reward: 0 up to the median, 1 from
gold) against the thresholds the re-run baselines give."""

from __future__ import annotations

from taskforge.graders.mle.grading import grade, reward
from taskforge.graders.mle.shortcuts import shortcut_submissions
from taskforge.schemas import Task
from taskforge.schemas.mle import MlePayload
from taskforge.validators.mle.rederive import LINEAR_SHORTCUT, rederived_grader, rederived_leaderboard


def mle_shortcut_scores(task: Task) -> dict[str, float]:
    """Each shortcut's reward on the task."""
    files, grader = MlePayload.of(task).files, rederived_grader(task)
    submissions = shortcut_submissions(files.train, files.test, grader)
    linear = rederived_leaderboard(task).submissions.get(LINEAR_SHORTCUT)
    if linear is not None:
        submissions["linear_model"] = linear
    return {name: reward(grade(text, task.reference, grader)) for name, text in submissions.items()}
