"""The long-context family: evidence-grounded reasoning over long document collections."""

from __future__ import annotations

import random
from typing import Any, Iterator

from taskforge.builders.base import BuildContext, derive_seed
from taskforge.builders.long_context.axes import Axes, root_axes, root_start
from taskforge.builders.long_context.categories import CATEGORIES, categories_for
from taskforge.builders.long_context.compose import Case, UnanswerableError, assemble_world
from taskforge.builders.long_context.documents import DOCUMENT_CATEGORIES
from taskforge.builders.long_context.evolution import Judge, evolve
from taskforge.builders.long_context.judging import JudgeModelSolver, judge_child
from taskforge.builders.long_context.length import LengthTarget
from taskforge.builders.long_context.options import LongContextOptions
from taskforge.builders.long_context.sources import Corpus, load_corpus
from taskforge.graders.long_context.solvers import SHALLOW_SOLVERS, Solver
from taskforge.schemas import Lineage, Message, PlanItem, Task, task_id_for
from taskforge.schemas.tokens import TOKENIZER_NAME

COMPOSE_ATTEMPTS = 4
"""How many seeds a composition gets before a setting of the axes is given up as unanswerable."""


class LongContextBuilder:
    """Builds long-context tasks of ten categories from seeded world models or a folder of documents,
    evolving each until shortcut solvers no longer solve it."""

    family = "long_context"
    name = "long_context.world_model"
    version = "0.2.0"
    default_source = None

    def __init__(self, solvers: tuple[Solver, ...] = (*SHALLOW_SOLVERS, JudgeModelSolver()),
                 judge: Judge | None = judge_child):
        """`solvers` estimate each candidate's success rate (the shallow ones, and the judge model where an
        endpoint is configured); `judge` compares each child with its parent (None: no child is judged)."""
        self.solvers = solvers
        self.judge = judge

    def build(self, item: PlanItem, context: BuildContext) -> Iterator[Task]:
        """For each of `item.quota` roots: the root and its evolved descendants down to a hard one."""
        options = LongContextOptions.parse(context.options)
        corpus = load_corpus(options.source) if options.source else None
        categories = categories_for(item.capability, options.categories, documents=corpus is not None)
        modules = DOCUMENT_CATEGORIES if corpus else CATEGORIES
        for index in range(context.first_index, context.first_index + item.quota):
            target = options.target(index)
            fitting = [c for c in categories if getattr(modules[c], "MIN_TOKENS", 0) <= target.tokens] or categories
            category = fitting[index % len(fitting)]
            seed = derive_seed(context.cycle_id, context.seed, item.family, item.capability, index)
            module = modules[category]
            yield from evolve(
                lambda axes: self._case(category, seed, axes, target, corpus),
                lambda case, record, parent: self._task(case, record, parent, item, context, seed, corpus),
                root_axes(module.KNOBS, None if options.start == "easiest" else root_start(module, target.tokens)),
                module.KNOBS, random.Random(seed), options.evolution, self.solvers,
                self.judge,
            )

    def _case(self, category: str, seed: int, axes: Axes, target: LengthTarget, corpus: Corpus | None) -> Case:
        """The case for one setting of the axes, trying a few composition seeds before giving up."""
        problems = []
        for attempt in range(COMPOSE_ATTEMPTS):
            rng = random.Random(derive_seed(seed, attempt, *axes.as_dict().values()))
            try:
                if corpus is not None:
                    return DOCUMENT_CATEGORIES[category].compose(corpus, axes, rng, target)
                composition, world = CATEGORIES[category].compose(seed, axes, rng)
                return assemble_world(composition, world, target, rng,
                                      {"kind": "world_model", "world_seed": seed})
            except UnanswerableError as problem:
                problems.append(str(problem))
        raise UnanswerableError(f"no answerable {category} task in {COMPOSE_ATTEMPTS} attempts: {problems[-1]}")

    def _task(self, case: Case, evolution: dict[str, Any], parent: str | None, item: PlanItem,
              context: BuildContext, seed: int, corpus: Corpus | None) -> Task:
        """The task envelope of a case, with its evolution record and parent."""
        payload = {**case.payload, "evolution": evolution}
        resource = corpus.resource_id if corpus else f"world-{seed}"
        return Task(
            task_id=task_id_for(self.family, case.category, payload),
            family=self.family,
            kind=case.category,
            capability=item.capability,
            prompt=[Message(role="system", content=case.system), Message(role="user", content=case.user)],
            payload=payload,
            reference=case.reference,
            grader=case.grader,
            environment={"tools": [], "time_budget_s": 600, "tokenizer": TOKENIZER_NAME},
            lineage=Lineage(
                cycle_id=context.cycle_id, gap_ids=item.gap_ids, resource_id=resource,
                resource_revision=corpus.revision if corpus else self.version, builder=self.name,
                builder_version=self.version, parent_task_id=parent, seed=seed,
            ),
        )
