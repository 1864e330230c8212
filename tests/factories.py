"""Small builders of valid records for tests."""

from __future__ import annotations

import json
from itertools import islice

from builders.base import BuildContext
from builders.long_context import LongContextBuilder
from schemas import Episode, Outcome, PlanItem, Segment, Step, Task, ToolCall


def episode(episode_id: str = "ep-1", *, success: bool = False, origin: str = "model", repeats: int = 0,
            family: str = "workflow", detail: str | None = None) -> Episode:
    """An episode whose assistant repeats one identical tool call `repeats` times."""
    steps = [Step(index=0, role="system", content="You are an agent."),
             Step(index=1, role="user", content="Find the answer.")]
    for k in range(repeats):
        steps.append(Step(index=len(steps), role="assistant", content="Trying.",
                          tool_calls=[ToolCall(id=f"c{k}", name="search", arguments=json.dumps({"q": "same"}))]))
        steps.append(Step(index=len(steps), role="tool", tool_call_id=f"c{k}", content="no results"))
    steps.append(Step(index=len(steps), role="assistant", content="Done."))
    return Episode(
        episode_id=episode_id, task_id=f"task-{episode_id}", family=family, source_format="native",
        source_file="test.jsonl", steps=steps, segments=[Segment(index=0, start_step=0, end_step=len(steps) - 1)],
        outcome=Outcome(score=1.0 if success else 0.0, success=success,
                        failure_origin="none" if success else origin, detail=detail),
    )


def long_context_tasks(count: int = 2, target_tokens: int = 2048, cycle_id: str = "test-cycle") -> list[Task]:
    """Real hard-pool timeline tasks from the long-context builder (evolved until shortcut solvers fail),
    small enough for fast tests."""
    item = PlanItem(family="long_context", capability="history_tracking", quota=4 * count, gap_ids=["gap-x"],
                    priority=1.0)
    context = BuildContext(cycle_id=cycle_id, options={"target_tokens": target_tokens, "categories": "timeline"})
    hard = (t for t in LongContextBuilder().build(item, context) if t.payload["evolution"]["pool"] == "hard")
    return list(islice(hard, count))
