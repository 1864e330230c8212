"""Recursive evolution: a task that shortcut solvers find too easy spawns harder children.

A child keeps its parent's world (same seed: same entities, same filler
stream, or the same source documents) and its objective (same category and
question form) and steps at least two difficulty knobs one level harder. Every
child is composed afresh and must pass the answerability checks before it is
kept. Easiness is the best score of the solvers: the shallow shortcut solvers
of `taskforge.graders.long_context.solvers` and, where an endpoint is configured, the
judge model (`taskforge.builders.long_context.judging`). Every candidate is emitted with
its estimate: those at or below the threshold form the hard pool, the others
seed children and are rejected by the `shortcut` check (its hardness part).

Where a judge is given, each child is also compared with its parent; its
verdict is kept in the child's provenance, and a child the judge finds
materially defective (unsolvable, or training another capability) neither
enters the hard pool nor seeds children: evolution goes on with the rest of
the queue, and the `review` check (its `evolution_judge` part) rejects that child.
"""

from __future__ import annotations

import random
from collections import deque
from dataclasses import dataclass
from typing import Callable, Iterator

from taskforge.agents.artifact import with_provenance
from taskforge.agents.judge import recorded_defects
from taskforge.builders.long_context.axes import Axes, Knobs, harder_variants
from taskforge.builders.long_context.compose import Case, UnanswerableError
from taskforge.builders.long_context.length import LengthNotMetError
from taskforge.graders.long_context.solvers import HARD_POOL_THRESHOLD, SHALLOW_SOLVERS, Solver, estimate_success
from taskforge.schemas import Task

MakeCase = Callable[[Axes], Case]
"""Composes the case for a setting of the axes (raises when no answerable case fits the target)."""
MakeTask = Callable[[Case, dict, str | None], Task]
"""Wraps a case into a task envelope, with its evolution record and its parent's task id."""
Judge = Callable[[Task, Task], "dict | None"]
"""Compares a child with its parent: the verdict as kept in provenance, or None when the child is not judged."""


@dataclass(frozen=True)
class EvolutionSettings:
    """How far evolution goes from one root task."""

    enabled: bool = True
    max_generations: int = 3
    children: int = 2
    max_candidates: int = 8


def evolve(make_case: MakeCase, make_task: MakeTask, root: Axes, knobs: Knobs, rng: random.Random,
           settings: EvolutionSettings, solvers: tuple[Solver, ...] = SHALLOW_SOLVERS,
           judge: Judge | None = None) -> Iterator[Task]:
    """Every candidate from the root down to the first hard one, breadth first, each with its estimate.
    A child that cannot be composed (no answerable case, or too long for the target) is skipped; the root
    raises. A child `judge` finds materially defective is emitted but ends its branch."""
    queue: deque[tuple[Axes, Task | None, int, tuple[str, ...]]] = deque([(root, None, 0, ())])
    produced = 0
    while queue and produced < settings.max_candidates:
        axes, parent, generation, changed = queue.popleft()
        parent_id = parent.task_id if parent else None
        try:
            case = make_case(axes)
        except (UnanswerableError, LengthNotMetError):
            if parent is None:
                raise
            continue
        estimate = estimate_success(make_task(case, {}, parent_id), solvers)
        hard = estimate["estimate"] <= HARD_POOL_THRESHOLD
        record = {"generation": generation, "changed_axes": list(changed), "threshold": HARD_POOL_THRESHOLD,
                  "pool": "hard" if hard else "seed", **estimate}
        task = make_task(case, record, parent_id)
        verdict = judge(parent, task) if judge is not None and parent is not None else None
        if verdict is not None:
            task = with_provenance(task, judgement=verdict)
        produced += 1
        yield task
        if verdict is not None and recorded_defects(verdict):
            continue
        if hard or not settings.enabled:
            return
        if generation < settings.max_generations:
            for child, chosen in harder_variants(axes, knobs, rng)[: settings.children]:
                queue.append((child, task, generation + 1, chosen))
