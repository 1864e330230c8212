"""Small builders of valid records for tests."""

from __future__ import annotations

import json
from itertools import islice

from taskforge.builders.base import BuildContext
from taskforge.builders.long_context import LongContextBuilder
from taskforge.builders.swe import SweBuilder
from taskforge.schemas import Episode, Outcome, PlanItem, Segment, Step, Task, ToolCall
from conftest import SAMPLES


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


def scripted(*turns: tuple, family: str = "unknown", success: bool = False, origin: str = "model",
             detail: str | None = None, episode_id: str = "ep-scripted", metadata: dict | None = None,
             refused: bool = False) -> Episode:
    """An episode from a script of turns: ("user", text), ("say", text), ("call", tool, args, observation[, error]).

    With `refused`, the harness answers every "say" turn with a format error (as mini-swe-agent does).
    """
    steps = [Step(index=0, role="system", content="You are a research agent with tools.")]
    for turn in turns:
        kind = turn[0]
        if kind in ("user", "say"):
            steps.append(Step(index=len(steps), role="user" if kind == "user" else "assistant", content=turn[1]))
            if kind == "say" and refused:
                steps.append(Step(index=len(steps), role="user", content="Please always provide EXACTLY ONE action.",
                                  is_error=True, error="format error: found 2 actions"))
            continue
        _, tool, arguments, observation, *error = turn
        call_id = f"c{len(steps)}"
        steps.append(Step(index=len(steps), role="assistant", content="",
                          tool_calls=[ToolCall(id=call_id, name=tool, arguments=json.dumps(arguments))]))
        steps.append(Step(index=len(steps), role="tool", tool_call_id=call_id, content=observation,
                          is_error=bool(error), error=error[0] if error else None))
    return Episode(
        episode_id=episode_id, task_id=f"task-{episode_id}", family=family, source_format="native",
        source_file="test.jsonl", steps=steps, segments=[Segment(index=0, start_step=0, end_step=len(steps) - 1)],
        outcome=Outcome(score=1.0 if success else 0.0, success=success,
                        failure_origin="none" if success else origin, detail=detail),
        metadata=metadata or {},
    )


def unexplained_episode(episode_id: str = "ep-u") -> Episode:
    """A failed episode with distinct, answered tool calls that no rule explains (for the LLM diagnoser)."""
    steps = [Step(index=0, role="system", content="You are an agent."),
             Step(index=1, role="user", content="Compute the total of the ledger.")]
    lookups = [("list_files", {}, "ledger.csv notes.txt"), ("read_file", {"path": "ledger.csv"}, "a,1\nb,2\nc,3"),
               ("read_file", {"path": "notes.txt"}, "totals exclude refunds")]
    for k, (tool, arguments, observation) in enumerate(lookups):
        steps.append(Step(index=len(steps), role="assistant", content=f"Step {k}: using what I found so far.",
                          tool_calls=[ToolCall(id=f"c{k}", name=tool, arguments=json.dumps(arguments))]))
        steps.append(Step(index=len(steps), role="tool", tool_call_id=f"c{k}", content=observation))
    steps.append(Step(index=len(steps), role="assistant", content="The total is 6; the notes say refunds are excluded."))
    return Episode(
        episode_id=episode_id, task_id=f"task-{episode_id}", family="workflow", source_format="native",
        source_file="test.jsonl", steps=steps, segments=[Segment(index=0, start_step=0, end_step=len(steps) - 1)],
        outcome=Outcome(score=0.0, success=False, failure_origin="model"),
    )


def paper_collection(path, count: int = 300, seed: int = 7):
    """A synthetic paper collection of `count` records written as JSONL at `path`."""
    from taskforge.builders.literature.synthetic import generate_records, write_jsonl

    write_jsonl(path, generate_records(count, seed))
    return path


def literature_tasks(source, data_dir, kinds: list[str], per_kind: int = 1, cycle_id: str = "test-cycle") -> list[Task]:
    """Real literature tasks built from a collection file, `per_kind` of each kind, in kind order."""
    from taskforge.builders.literature import LiteratureBuilder

    item = PlanItem(family="literature", capability="general", quota=per_kind * len(kinds), gap_ids=["gap-l"],
                    priority=1.0)
    context = BuildContext(cycle_id=cycle_id, options={"source": str(source), "kinds": kinds}, data_dir=str(data_dir))
    built = [t for t in LiteratureBuilder().build(item, context) if isinstance(t, Task)]
    return sorted(built, key=lambda t: kinds.index(t.kind))


def swe_tasks(count: int) -> list[Task]:
    """SWE tasks of the scripted sample history (built in the default sandbox; callers choose the process one)."""
    item = PlanItem(family="swe", capability="implementation", quota=count, gap_ids=["gap-s"], priority=1.0)
    context = BuildContext(cycle_id="test-cycle", options={"source": str(SAMPLES / "swe" / "calc_history.py")})
    return [task for task in SweBuilder().build(item, context) if isinstance(task, Task)]


def land_validated(data, tasks: list[Task], cycle_id: str = "test-cycle") -> list[Task]:
    """Validate tasks with every check (reading `data`'s snapshots and evaluation sets) and land them through
    the landing screen, as a cycle does; returns each task as it was decided."""
    from taskforge.flows.screening import landing_screen
    from taskforge.store.landing import land
    from taskforge.validators.runner import decide, default_checks, validate

    checks = default_checks(data.root)
    validated = [validate(task, checks) for task in tasks]
    decided = {task.task_id: task for task in validated}
    with data.open_catalog() as catalog:
        screen = landing_screen(catalog, data)

        def screened(table, rows):
            added = screen.land_rows(table, rows)
            for task_id, results in zip(table.column("task_id").take(rows).to_pylist(), added):
                decided[task_id] = decide(decided[task_id], [*decided[task_id].validation, *results])
            return added

        land(validated, catalog, data.shards, cycle_id, screen=screened)
        catalog.record_signatures(screen.passed)
    return [decided[task_id] for task_id in sorted(decided)]
