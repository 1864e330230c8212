"""The build batch size rule: at most 16 batches per plan item, at least 4 tasks a batch, and the split never
changes which tasks are built."""

from __future__ import annotations

from taskforge.builders.base import BuildContext
from taskforge.builders.long_context import LongContextBuilder
from taskforge.flows.stages import MAX_BUILD_BATCHES_PER_ITEM, MIN_TASKS_PER_BUILD_BATCH, build_batch_size
from taskforge.schemas import PlanItem


def test_a_plan_item_runs_in_at_most_sixteen_batches_of_at_least_four_tasks():
    assert [build_batch_size(q) for q in (1, 4, 64, 65, 1000, 10_000)] == [4, 4, 4, 5, 63, 625]
    for quota in range(1, 3000, 7):
        size = build_batch_size(quota)
        assert size >= MIN_TASKS_PER_BUILD_BATCH
        assert -(-quota // size) <= MAX_BUILD_BATCHES_PER_ITEM


def test_splitting_an_item_into_batches_builds_the_same_tasks():
    item = PlanItem(family="long_context", capability="history_tracking", quota=6, gap_ids=[], priority=1.0)
    options = {"target_tokens": 2048, "categories": "timeline", "evolve": False}

    def built(first: int, quota: int) -> list:
        context = BuildContext(cycle_id="c", first_index=first, options=options)
        return list(LongContextBuilder().build(item.model_copy(update={"quota": quota}), context))

    whole = built(0, 6)
    assert len(whole) == 6
    assert [t.task_id for t in built(0, 4) + built(4, 2)] == [t.task_id for t in whole]
