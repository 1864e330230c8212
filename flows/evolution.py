"""Handing too-easy candidates back for evolution: the validate stage's side of the solver gate's loop.

The solver gate (the `difficulty` question) rejects a task it solves more
often than its ceiling; where the family's builder makes harder variants
(`taskforge.builders.base.Evolving`: workflow), the gate's result says
`evolve`. The task stays rejected, its builder makes a harder variant, and the
variant is validated in its turn — up to `MAX_ROUNDS` generations per
candidate, as the seeds' evolution loops do. The parent's gate result names
what it was evolved into (`detail.evolved_into`), or why nothing was
(`detail.not_evolved`), so the catalog keeps the whole chain.
"""

from __future__ import annotations

from typing import Iterable, Iterator

from taskforge.builders.base import BuildContext, Evolving, emitted
from taskforge.builders.registry import builder_for
from taskforge.schemas import Quarantined, Task
from taskforge.validators.base import Check
from taskforge.validators.runner import validate

MAX_ROUNDS = 2
GATE = "difficulty"


def handed_back(task: Task) -> bool:
    """Whether the solver gate rejected the task as too easy and asks for a harder variant."""
    gate = next((result for result in task.validation if result.check == GATE), None)
    return gate is not None and not gate.passed and bool(gate.detail.get("evolve"))


def _noted(task: Task, **detail: str) -> Task:
    """The task with `detail` added to its gate result."""
    results = [result.model_copy(update={"detail": {**result.detail, **detail}}) if result.check == GATE else result
               for result in task.validation]
    return task.model_copy(update={"validation": results})


def _harder(task: Task, context: BuildContext) -> Task | str:
    """A harder variant of `task` from its family's builder, or why there is none."""
    builder = builder_for(task.family)
    if not isinstance(builder, Evolving):
        return f"the {task.family} builder makes no harder variants"
    (variant,) = emitted([builder.harder(task, context)])
    return variant.reason if isinstance(variant, Quarantined) else variant


def validate_evolving(tasks: Iterable[Task], checks: tuple[Check, ...], context: BuildContext,
                      rounds: int = MAX_ROUNDS) -> Iterator[Task]:
    """Every task decided, each followed by the harder variants made of it while the solver gate hands them
    back (at most `rounds` per task)."""
    for task in tasks:
        current = validate(task, checks)
        for made in range(rounds + 1):
            if not handed_back(current):
                break
            variant = _harder(current, context) if made < rounds else f"{rounds} harder variants were made already"
            if isinstance(variant, str):
                current = _noted(current, not_evolved=variant)
                break
            yield _noted(current, evolved_into=variant.task_id)
            current = validate(variant, checks)
        yield current
