"""The literature family: search, evidence-selection, full-text QA and synthesis tasks from paper collections.

Each task ships a search environment (BM25 over the collection, `search` and
`read` tools) described in its `environment`; the collection's snapshot is
saved under the data dir so validators and the trainer rebuild the same tools.
Questions are phrased by templates, and rewritten by the builder agent where
an endpoint is configured and the reviewer accepts the rewrite
(`taskforge.builders.literature.natural`).
"""

from __future__ import annotations

import random
from functools import partial
from pathlib import Path
from typing import Iterator

from taskforge.agents.session import current_agents
from taskforge.builders.base import BuildContext, derive_seed
from taskforge.builders.literature.cases import Case
from taskforge.builders.literature.collection import load_collection
from taskforge.builders.literature.kinds import GENERATORS, KINDS
from taskforge.builders.literature.natural import natural_task
from taskforge.builders.literature.prompting import system_message
from taskforge.builders.literature.questions import QuestionWriter, TemplateQuestions
from taskforge.graders.literature.environment import SearchEnvironment, open_environment
from taskforge.graders.literature.papers import PaperCollection, save_snapshot
from taskforge.schemas import InputError, Lineage, Message, PlanItem, Quarantined, Task, TaskforgeError, task_id_for
from taskforge.schemas.locations import normalize

KINDS_FOR_CAPABILITY = {
    "search_breadth": ("find_papers", "table_synthesis", "find_papers_2hop"),
    "relevance_judgement": ("select_evidence", "find_papers"),
    "evidence_selection": ("select_evidence", "fulltext_qa"),
    "explore_exploit_balance": ("find_papers", "select_evidence", "table_synthesis"),
}
ATTEMPTS = 40


def kinds_for(capability: str, requested: list[str] | None = None) -> tuple[str, ...]:
    """The kinds built for a capability (all kinds for one without a mapping), or those requested."""
    if requested:
        unknown = sorted(set(requested) - set(KINDS))
        if unknown:
            raise TaskforgeError(f"unknown literature kinds {', '.join(unknown)}; known: {', '.join(KINDS)}")
        return tuple(requested)
    return KINDS_FOR_CAPABILITY.get(capability, KINDS)


class LiteratureBuilder:
    """Builds literature tasks from a paper collection (JSONL/JSON/Parquet records, a file or a folder)."""

    family = "literature"
    name = "literature.collection"
    version = "0.1.0"
    default_source = "papers"

    def __init__(self, question_writer: QuestionWriter | None = None):
        self.question_writer = question_writer or TemplateQuestions()

    def build(self, item: PlanItem, context: BuildContext) -> Iterator[Task | Quarantined]:
        source = context.options.get("source")
        if not source:
            raise TaskforgeError("the literature builder needs a paper collection: give a source")
        if not context.data_dir:
            raise TaskforgeError("the literature builder needs a data dir to keep the collection snapshot")
        loaded = load_collection(Path(source), context.options.get("collection_id"))
        yield from loaded.quarantined
        collection = loaded.collection
        snapshot = save_snapshot(collection, context.data_dir)
        env = open_environment(str(normalize(context.data_dir)), collection.collection_id, collection.version)
        spec = env.spec(snapshot)
        kinds = kinds_for(item.capability, context.options.get("kinds"))
        for index in range(context.first_index, context.first_index + item.quota):
            kind = kinds[index % len(kinds)]
            seed = derive_seed(context.cycle_id, context.seed, item.family, item.capability, index)
            case = self._case(kind, env, seed)
            if case is None:
                yield Quarantined.from_error(InputError(
                    collection.collection_id, f"no {kind} task found in {ATTEMPTS} attempts (seed {seed})"),
                    "build", f"papers:{collection.collection_id}")
                continue
            make_task = partial(self._task, item=item, context=context, collection=collection, spec=spec, seed=seed)
            yield natural_task(case, env, make_task, current_agents())

    def _task(self, case: Case, *, item: PlanItem, context: BuildContext, collection: PaperCollection,
              spec: dict, seed: int) -> Task:
        """The envelope of a case of `collection` for a plan item."""
        payload = {**case.payload, "kind": case.kind,
                   "collection": {"collection_id": collection.collection_id, "version": collection.version}}
        return Task(
            task_id=task_id_for(self.family, case.kind, payload), family=self.family, kind=case.kind,
            capability=item.capability,
            prompt=[Message(role="system", content=system_message(collection)),
                    Message(role="user", content=case.user)],
            payload=payload, reference=case.reference, grader=case.grader, environment=spec,
            lineage=Lineage(cycle_id=context.cycle_id, gap_ids=item.gap_ids,
                            resource_id=f"papers:{collection.collection_id}", resource_revision=collection.version,
                            builder=self.name, builder_version=self.version, seed=seed),
        )

    def _case(self, kind: str, env: SearchEnvironment, seed: int) -> Case | None:
        """The first case the kind's generator makes over a few seeded attempts."""
        for attempt in range(ATTEMPTS):
            case = GENERATORS[kind](env, random.Random(derive_seed(seed, attempt)), self.question_writer)
            if case is not None:
                return case
        return None
