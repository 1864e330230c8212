"""The workflow family: professional multi-step jobs with file deliverables, hidden references and graders.

Task `i` of a build is seed `(start + i) mod n` of the source folder itself
when `i < n`, else a descendant of that seed (attempt `i div n`) made by the
evolution operators (a seed that cannot be varied is quarantined for that
attempt). `start` is derived from the plan item's capability, so plan items of
one cycle that ask for different capabilities begin at different seeds.
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
from taskforge.builders.workflow.judging import judged
from taskforge.builders.workflow.operators import OPERATORS
from taskforge.builders.workflow.package import to_task
from taskforge.builders.workflow.seeds import WorkflowSeed, load_seed, seed_folders, seed_from_task
from taskforge.schemas import InputError, Lineage, PlanItem, Quarantined, Task, content_id
from taskforge.schemas.workflow import summarize

SEEDS_FOLDER = "workflow_seeds"


class WorkflowBuilder:
    """Builds workflow tasks from seed folders: the seeds themselves, then their evolved descendants."""

    family = "workflow"
    name = "workflow.seed_evolution"
    version = "0.1.0"
    default_source = SEEDS_FOLDER

    def build(self, item: PlanItem, context: BuildContext) -> Iterator[Task | Quarantined]:
        if not context.options.get("source"):
            raise InputError("workflow build", f"no seed folder given (option 'source'; shipped: data/samples/{SEEDS_FOLDER})")
        folders = seed_folders(Path(context.options["source"]))
        start = derive_seed(item.family, item.capability)
        for index in range(context.first_index, context.first_index + item.quota):
            folder, attempt = folders[(start + index) % len(folders)], index // len(folders)
            try:
                seed = load_seed(folder)
            except InputError as exc:
                yield Quarantined.from_error(exc, "build", f"workflow-seed:{folder.name}#{attempt}")
                continue
            parent = self._task(seed, item, context, parent_task_id=None, rng_seed=None)
            if attempt == 0:
                yield parent
                continue
            rng_seed = derive_seed(context.cycle_id, context.seed, seed.package.seed_id, attempt)
            yield self._descendant(seed, parent, item, context, rng_seed, f"{seed.package.seed_id}#{attempt}")

    def harder(self, task: Task, context: BuildContext) -> Task | Quarantined:
        """A descendant of a task the solver gate found too easy (its package varied along two or three
        axes, its reference run again), for the gate to try again."""
        seed = seed_from_task(task)
        item = PlanItem(family=self.family, capability=task.capability, quota=1, gap_ids=task.lineage.gap_ids,
                        priority=1.0)
        rng_seed = derive_seed(context.cycle_id, context.seed, task.task_id, "harder")
        return self._descendant(seed, task, item, context, rng_seed, f"{seed.package.seed_id}:harder")

    def _descendant(self, seed: WorkflowSeed, parent: Task, item: PlanItem, context: BuildContext, rng_seed: int,
                    where: str) -> Task | Quarantined:
        """A descendant of `parent` (built from `seed`), judged against it where a judge is configured."""
        summary = summarize(seed.package, parent.reference["deliverables"])
        author = RecordAuthor(current_agents())
        try:
            child = evolve(seed, summary, parent.task_id, rng_seed, (author.operator(), *OPERATORS))
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
        return to_task(seed, run, item.capability, lineage)
