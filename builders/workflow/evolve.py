"""Construction of descendants: a seed varied along at least two axes by deterministic operators.

The first operator changes what the solver must produce (the data, the task
object, the operations or the deliverables); further operators come from
other axes until two or three axes have changed. A `lead` operator (the
builder agent's, where an endpoint is configured) is tried before the random
choice; one that changes nothing is dropped and the deterministic ones go on. An operator is recorded only
when it changed the axis it works on (as `taskforge.schemas.workflow.changed_axes`
measures it), so the recorded axes are the axes along which the descendant
differs. Certifying the descendant (reviewer, judge, validators) is someone
else's job.
"""

from __future__ import annotations

import random

from taskforge.builders.workflow.operators import OPERATORS, Operator
from taskforge.builders.workflow.seeds import WorkflowSeed
from taskforge.schemas import TaskforgeError, content_id
from taskforge.schemas.workflow import Evolution, PackageSummary, WorkflowPackage, changed_axes, summarize

REFERENCE_AXES = ("data", "object", "operations", "deliverables")
"""Axes whose change alters the reference deliverables."""


class NotEvolvableError(TaskforgeError):
    """No operator changes the seed's reference, or the seed cannot be varied along two axes."""


def _axes(before: WorkflowPackage, after: WorkflowPackage) -> set[str]:
    return changed_axes(summarize(before, {}), summarize(after, {}))


def vary(package: WorkflowPackage, rng: random.Random,
         operators: tuple[Operator, ...]) -> tuple[WorkflowPackage, list[str], list[str]]:
    """Apply operators until two or three axes changed: (varied package, operators in the order applied, axes)."""
    target = rng.choice([2, 3])
    applied: list[Operator] = []
    varied = package
    first_pass = True
    while len(axes := _axes(package, varied)) < target:
        done = {op.axis for op in applied}
        pool = [op for op in operators if op.axis not in done and op.applies(varied)
                and (not first_pass or op.axis in REFERENCE_AXES)]
        if not pool:
            break
        operator = next((op for op in pool if op.lead), None) or rng.choice(pool)
        candidate = operator.apply(varied, rng)
        if operator.axis in _axes(varied, candidate):
            varied, first_pass = candidate, False
            applied.append(operator)
        else:
            operators = tuple(op for op in operators if op is not operator)
    if first_pass or len(axes) < 2:
        raise NotEvolvableError(f"{package.seed_id} cannot be varied along two axes including one of "
                                f"{', '.join(REFERENCE_AXES)}")
    return varied, [op.name for op in applied], sorted(axes)


def evolve(seed: WorkflowSeed, parent: PackageSummary, parent_task_id: str, rng_seed: int,
           operators: tuple[Operator, ...] = OPERATORS) -> WorkflowSeed:
    """A descendant of `seed` with its evolution recorded (parent summary, operators, axes changed)."""
    package, applied, axes = vary(seed.package, random.Random(rng_seed), operators)
    generation = seed.package.generation + 1
    body = package.model_dump(mode="json", exclude={"seed_id", "evolution", "generation"})
    package = package.model_copy(update={
        "seed_id": content_id(body, prefix=f"{package.root_seed_id}.g{generation}-", length=8),
        "generation": generation,
        "evolution": Evolution(parent=parent, parent_task_id=parent_task_id, operators=applied, axes=axes, seed=rng_seed),
    })
    return WorkflowSeed(package=package, workflow=seed.workflow)
