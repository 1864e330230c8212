"""The long-context family: evidence-grounded reasoning over long document collections."""

from __future__ import annotations

from typing import Iterator

from builders.base import BuildContext, derive_seed
from builders.long_context import timeline
from builders.long_context.length import LengthTarget
from schemas import Lineage, Message, PlanItem, Task, task_id_for


class LongContextBuilder:
    """Builds long-context tasks from seeded world models (timeline reconstruction for now)."""

    family = "long_context"
    name = "long_context.world_model"
    version = "0.1.0"
    default_source = None

    def build(self, item: PlanItem, context: BuildContext) -> Iterator[Task]:
        target = LengthTarget(tokens=int(context.options.get("target_tokens", 16384)))
        params = timeline.TimelineParams(target=target)
        for index in range(context.first_index, context.first_index + item.quota):
            seed = derive_seed(context.cycle_id, context.seed, item.family, item.capability, index)
            case = timeline.generate(seed, params)
            payload = case["payload"]
            yield Task(
                task_id=task_id_for(self.family, timeline.CATEGORY, payload),
                family=self.family,
                kind=timeline.CATEGORY,
                capability=item.capability,
                prompt=[Message(role="system", content=case["system"]), Message(role="user", content=case["user"])],
                payload=payload,
                reference=case["reference"],
                grader=case["grader"],
                environment={"tools": [], "time_budget_s": 600, "tokenizer": "qwen3.6-35b-a3b"},
                lineage=Lineage(
                    cycle_id=context.cycle_id, gap_ids=item.gap_ids, resource_id=f"world-{seed}",
                    resource_revision=self.version, builder=self.name, builder_version=self.version, seed=seed,
                ),
            )
