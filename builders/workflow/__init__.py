"""The workflow family: professional multi-step jobs with file deliverables, hidden references and graders.

The seeds of a build are the source folder's seeds that exercise the plan
item's capability (every seed when none does). Tasks come in pairs: task `2k`
of a build is seed `(start + k) mod n` itself (its generation 0, on the first
pass over the seeds), task `2k + 1` a descendant of it made by the evolution
operators, so every build of two or more tasks holds evolved descendants; on
later passes both tasks of a pair are descendants (other attempts, other
operators). A seed that cannot be varied is quarantined for that attempt.
`start` is derived from the plan item's capability, so plan items of one cycle
that ask for different capabilities begin at different seeds. A seed with a
generator gets its inputs generated first (`generation`; the option `scale`
sizes them, 1.0 by default), and its descendants get inputs generated afresh
with a data seed of their own (`generation.regenerator`), so no two tasks of a
build share input files from which one answer gives another's. A task is labelled with the plan item's
capability when its seed exercises it, else with the seed's first capability.
Every reference deliverable comes from running the reference workflow inside
the sandbox. Where an endpoint is configured, the builder agent leads the
operators with new input rows (`authoring`), and the judge compares each
descendant with its ancestor in a call of its own (`judging`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

from taskforge.agents.artifact import with_provenance
from taskforge.agents.session import current_agents
from taskforge.builders.base import BuildContext, derive_seed
from taskforge.builders.workflow.authoring import NAME as AUTHOR
from taskforge.builders.workflow.authoring import RecordAuthor
from taskforge.builders.workflow.evolve import NotEvolvableError, evolve
from taskforge.builders.workflow.execute import run_reference
from taskforge.builders.workflow.generation import generated, regenerator
from taskforge.builders.workflow.judging import judged
from taskforge.builders.workflow.operators import OPERATORS, Operator
from taskforge.builders.workflow.package import to_task
from taskforge.builders.workflow.seeds import WorkflowSeed, load_seed, seed_folders, seed_from_task
from taskforge.schemas import InputError, Lineage, PlanItem, Quarantined, Task, content_id
from taskforge.schemas.workflow import summarize

SEEDS_FOLDER = "workflow_seeds"


def exercised(seed: WorkflowSeed, capability: str) -> bool:
    """Whether a seed trains a capability (a seed that names none is taken to train any)."""
    return not seed.package.capabilities or capability in seed.package.capabilities


def label(seed: WorkflowSeed, capability: str) -> str:
    """The capability a task of this seed is labelled with: the plan item's if the seed exercises it."""
    return capability if exercised(seed, capability) else seed.package.capabilities[0]


def slot(index: int, count: int) -> tuple[int, int]:
    """Task `index` of a build over `count` seeds: (which seed, attempt), attempt 0 being the seed itself."""
    pair, second = divmod(index, 2)
    rounds = pair // count
    return pair % count, 0 if rounds == 0 and not second else 1 + 2 * rounds + second

class WorkflowBuilder:
    """Builds workflow tasks from seed folders: the seeds themselves, then their evolved descendants."""

    family = "workflow"
    name = "workflow.seed_evolution"
    version = "0.1.0"
    default_source = SEEDS_FOLDER

    def build(self, item: PlanItem, context: BuildContext) -> Iterator[Task | Quarantined]:
        if not context.options.get("source"):
            raise InputError("workflow build", f"no seed folder given (option 'source'; shipped: data/samples/{SEEDS_FOLDER})")
        loaded: dict[Path, WorkflowSeed | InputError] = {}
        for folder in seed_folders(Path(context.options["source"])):
            try:
                loaded[folder] = load_seed(folder)
            except InputError as exc:
                loaded[folder] = exc
        folders = [f for f, s in loaded.items() if isinstance(s, WorkflowSeed) and exercised(s, item.capability)] \
            or list(loaded)
        start = derive_seed(item.family, item.capability)
        scale = float(context.options.get("scale", 1.0))
        parents: dict[Path, Task] = {}
        regenerators = {f: regenerator(s, scale) for f, s in loaded.items() if isinstance(s, WorkflowSeed) and s.pending}
        for index in range(context.first_index, context.first_index + item.quota):
            position, attempt = slot(index, len(folders))
            folder = folders[(start + position) % len(folders)]
            seed = loaded[folder]
            try:
                if isinstance(seed, InputError):
                    raise seed
                seed = loaded[folder] = generated(seed, derive_seed("workflow-inputs", seed.package.seed_id,
                                                                    context.seed), scale)
            except InputError as exc:
                yield Quarantined.from_error(exc, "build", f"workflow-seed:{folder.name}#{attempt}")
                continue
            if folder not in parents:
                parents[folder] = self._task(seed, item, context, parent_task_id=None, rng_seed=None)
            parent = parents[folder]
            if attempt == 0:
                yield parent
                continue
            rng_seed = derive_seed(context.cycle_id, context.seed, seed.package.seed_id, attempt)
            yield self._descendant(seed, parent, item, context, rng_seed, f"{seed.package.seed_id}#{attempt}",
                                   regenerators.get(folder))

    def harder(self, task: Task, context: BuildContext) -> Task | Quarantined:
        """A descendant of a task the solver gate found too easy (its package varied along two or three
        axes, its reference run again), for the gate to try again."""
        seed = seed_from_task(task)
        item = PlanItem(family=self.family, capability=task.capability, quota=1, gap_ids=task.lineage.gap_ids,
                        priority=1.0)
        rng_seed = derive_seed(context.cycle_id, context.seed, task.task_id, "harder")
        return self._descendant(seed, task, item, context, rng_seed, f"{seed.package.seed_id}:harder")

    def _descendant(self, seed: WorkflowSeed, parent: Task, item: PlanItem, context: BuildContext, rng_seed: int,
                    where: str, fresh_inputs: Operator | None = None) -> Task | Quarantined:
        """A descendant of `parent` (built from `seed`), judged against it where a judge is configured; a seed
        with a generator passes `fresh_inputs`, which leads the operators with inputs of the descendant's own."""
        summary = summarize(seed.package, parent.reference["deliverables"])
        author = RecordAuthor(current_agents())
        leads = (fresh_inputs,) if fresh_inputs else ()
        try:
            child = evolve(seed, summary, parent.task_id, rng_seed, (*leads, author.operator(), *OPERATORS))
        except NotEvolvableError as exc:
            return Quarantined.from_error(exc, "build", f"workflow-seed:{where}")
        task = self._task(child, item, context, parent_task_id=parent.task_id, rng_seed=rng_seed)
        if AUTHOR in child.package.evolution.operators:
            task = with_provenance(task, built_by=author.calls)
        return judged(parent, task, author.agents)

    def _task(self, seed: WorkflowSeed, item: PlanItem, context: BuildContext, parent_task_id: str | None,
              rng_seed: int | None) -> Task:
        run = run_reference(seed)
        lineage = Lineage(
            cycle_id=context.cycle_id, gap_ids=item.gap_ids, resource_id=f"workflow-seed:{seed.package.root_seed_id}",
            resource_revision=content_id({"package": seed.package.model_dump(mode="json"), "workflow": seed.workflow}),
            builder=self.name, builder_version=self.version, parent_task_id=parent_task_id, seed=rng_seed,
        )
        return to_task(seed, run, label(seed, item.capability), lineage)
