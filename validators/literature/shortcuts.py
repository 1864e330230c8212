"""Literature shortcut scores, the literature part of the `shortcut` question: the answers of
`taskforge.graders.literature.shortcuts` (cite everything, BM25 top-k, title keyword match), each scored by the
task's own scorer in the task's environment rebuilt from its collection snapshot."""

from __future__ import annotations

from taskforge.graders import scorer_for
from taskforge.graders.literature.environment import environment_for
from taskforge.graders.literature.shortcuts import SOLVERS, shortcut_answers
from taskforge.schemas import Task
from taskforge.schemas.locations import Location


def has_shortcuts(task: Task) -> bool:
    """Whether the task's kind has shortcut solvers."""
    return task.kind in SOLVERS


def literature_shortcut_scores(data_dir: Location | None):
    """The scoring function of the literature shortcut part (snapshots under `data_dir`)."""

    def scores(task: Task) -> dict[str, float]:
        env = environment_for(task.environment, data_dir)
        scorer = scorer_for(task.grader)
        return {name: scorer.score(answer, task.reference, task.grader)
                for name, answer in shortcut_answers(task.kind, task.payload, env).items()}

    return scores
