"""The SFT view of demonstrations: one row per context window of an episode, with chat messages, tools and the
token-level records a trace carried.

- A compacted episode keeps every segment: each is one row with the episode id, `segment_index` /
  `segment_count` and the steps it spans (`start_step`, `end_step`). A window that does not open with a
  system message starts from the episode's opening messages and, when the trace recorded one, a user message
  with the compaction summary, so each row is the context the model worked from.
- `messages`: `role`, `content`, OpenAI-style `tool_calls` (`id`, `type`, `function {name, arguments}` with the
  arguments as the JSON string the model emitted), `tool_call_id`, and `loss`: true on the window's own
  assistant messages only. A per-message flag, not a token mask: token masks depend on the trainer's
  tokenizer and chat template, a flag survives any of them (and equals the role-based masking of verl's
  multi-turn SFT dataset).
- `tools`: a JSON string of OpenAI function schemas (uneven nested JSON): the task's tools when the episode's
  task is a taskforge task, else one open schema per tool name the episode called (`tools_source` says which).
- `tokens`: the episode's token records (`tokenizer`, `prompt_ids`, `response_ids`, `loss_mask`,
  `rollout_logprobs`) untouched, on the row of its first segment (they belong to the episode, not a window).

Builder runs become demonstrations where a family records a solution path: a literature task's reference
tool path is replayed in its search environment and ends with the reference answer.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

import pyarrow as pa
import pyarrow.parquet as pq

from taskforge.graders.literature.environment import ENVIRONMENT_KIND as LITERATURE_ENVIRONMENT, environment_for
from taskforge.graders.reward import reward_entry
from taskforge.graders.task_reward import score_task
from taskforge.schemas import Episode, Outcome, Segment, Step, Task, TokenRecord, ToolCall, canonical_json
from taskforge.schemas.arrow import arrow_struct
from taskforge.store.files import atomic_path

ROWS_PER_FILE = 2000
SUMMARY_PREFIX = "Summary of the earlier context:\n"
BUILDER_FORMAT = "builder"

_CALL = pa.struct([("id", pa.string()), ("type", pa.string()),
                   ("function", pa.struct([("name", pa.string()), ("arguments", pa.string())]))])
_MESSAGE = pa.struct([("role", pa.string()), ("content", pa.string()), ("tool_calls", pa.list_(_CALL)),
                      ("tool_call_id", pa.string()), ("loss", pa.bool_())])
SFT_SCHEMA = pa.schema([
    ("example_id", pa.string()), ("episode_id", pa.string()), ("task_id", pa.string()), ("family", pa.string()),
    ("source", pa.string()), ("source_format", pa.string()), ("source_file", pa.string()),
    ("segment_index", pa.int64()), ("segment_count", pa.int64()), ("start_step", pa.int64()),
    ("end_step", pa.int64()), ("summary", pa.string()), ("messages", pa.list_(_MESSAGE)), ("tools", pa.string()),
    ("tools_source", pa.string()), ("reward", pa.float64()), ("success", pa.bool_()), ("selection", pa.string()),
    ("tokens", pa.list_(arrow_struct(TokenRecord))),
], metadata={"taskforge.record": "SFTView"})


def _message(step: Step, loss: bool) -> dict[str, Any]:
    """A step as an SFT message with its loss flag."""
    return {"role": step.role, "content": step.content, "tool_call_id": step.tool_call_id, "loss": loss,
            "tool_calls": [{"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
                           for c in step.tool_calls]}


def _opening(episode: Episode) -> list[Step]:
    """The messages before the first assistant turn: the instructions and the task."""
    opening = []
    for step in episode.steps:
        if step.role == "assistant":
            break
        opening.append(step)
    return opening


def _tools(episode: Episode, task: Task | None) -> tuple[str, str]:
    """The tools as a JSON string and where they come from (`task` or `calls`)."""
    if task is not None:
        return canonical_json(task.environment.get("tools") or []), "task"
    names = sorted({call.name for step in episode.steps for call in step.tool_calls})
    schemas = [{"type": "function", "function": {"name": name, "parameters": {"type": "object"}}} for name in names]
    return canonical_json(schemas), "calls"


def window_messages(episode: Episode, segment: Segment) -> list[dict[str, Any]]:
    """The messages of one context window, with loss on its own assistant messages."""
    own = [s for s in episode.steps if segment.start_step <= s.index <= segment.end_step]
    messages = []
    if own and own[0].role != "system" and segment.start_step > 0:
        messages += [_message(step, False) for step in _opening(episode)]
        if segment.summary:
            messages.append(_message(Step(index=-1, role="user", content=SUMMARY_PREFIX + segment.summary), False))
    return messages + [_message(step, step.role == "assistant") for step in own]


def sft_rows(episode: Episode, task: Task | None, source: str, reward: float | None, success: bool,
             selection: str) -> list[dict[str, Any]]:
    """One row per segment of a selected episode."""
    tools, tools_source = _tools(episode, task)
    rows = []
    for position, segment in enumerate(sorted(episode.segments, key=lambda s: s.index)):
        rows.append({
            "example_id": f"{episode.episode_id}#{segment.index}", "episode_id": episode.episode_id,
            "task_id": episode.task_id, "family": episode.family, "source": source,
            "source_format": episode.source_format, "source_file": Path(episode.source_file).name,
            "segment_index": segment.index, "segment_count": len(episode.segments),
            "start_step": segment.start_step, "end_step": segment.end_step, "summary": segment.summary,
            "messages": window_messages(episode, segment), "tools": tools, "tools_source": tools_source,
            "reward": reward, "success": success, "selection": selection,
            "tokens": [t.model_dump() for t in episode.tokens] if position == 0 else [],
        })
    return rows


def _literature_path(task: Task, data_dir: Path) -> list[tuple[str, str, str]]:
    """The reference tool path of a literature task, replayed in its environment: (tool, arguments, result)."""
    env = environment_for(task.environment, data_dir)
    return [(call["tool"], canonical_json(call["arguments"]), env.call(call["tool"], call["arguments"]))
            for call in task.reference.get("tool_path", [])]


SOLUTION_PATHS: dict[str, Callable[[Task, Path], list[tuple[str, str, str]]]] = {
    LITERATURE_ENVIRONMENT: _literature_path}
"""Environment kind → the builder's solution path of a task, replayed for real."""


def builder_demonstration(task: Task, data_dir: Path) -> Episode | None:
    """A task's builder run as an episode (its solution path, then its reference answer, graded), or None
    when its family records no solution path."""
    path = SOLUTION_PATHS.get(task.environment.get("kind"))
    if path is None:
        return None
    steps = [Step(index=n, role=m.role, content=m.content) for n, m in enumerate(task.prompt)]
    for number, (tool, arguments, result) in enumerate(path(task, data_dir), start=1):
        call_id = f"call-{number}"
        steps.append(Step(index=len(steps), role="assistant",
                          tool_calls=[ToolCall(id=call_id, name=tool, arguments=arguments)]))
        steps.append(Step(index=len(steps), role="tool", tool_call_id=call_id, content=result))
    answer = reward_entry(task.family).reference_submission(task.reference, task.grader)
    steps.append(Step(index=len(steps), role="assistant", content=answer))
    score = score_task(task, answer)
    return Episode(episode_id=f"builder-{task.task_id}", task_id=task.task_id, family=task.family,
                   source_format=BUILDER_FORMAT, source_file=f"{task.lineage.builder}-{task.lineage.builder_version}",
                   steps=steps, segments=[Segment(index=0, start_step=0, end_step=len(steps) - 1)],
                   outcome=Outcome(score=score, success=score >= 1.0))


def write_sft(rows: Iterable[dict[str, Any]], out_dir: Path) -> list[Path]:
    """Write rows as `out_dir/data/train-XXXXX-of-XXXXX.parquet` (at most ROWS_PER_FILE each); files an earlier
    export left there are replaced."""
    folder = out_dir / "data"
    parts: list[Path] = []
    for chunk in _chunks(rows, ROWS_PER_FILE):
        part = folder / f".part-{len(parts):05d}.parquet"
        with atomic_path(part) as tmp:
            pq.write_table(pa.Table.from_pylist(chunk, schema=SFT_SCHEMA), tmp, compression="zstd")
        parts.append(part)
    if not parts:
        part = folder / ".part-00000.parquet"
        with atomic_path(part) as tmp:
            pq.write_table(SFT_SCHEMA.empty_table(), tmp, compression="zstd")
        parts.append(part)
    for stale in folder.glob("train-*.parquet"):
        stale.unlink()
    final = [folder / f"train-{n:05d}-of-{len(parts):05d}.parquet" for n in range(len(parts))]
    for part, target in zip(parts, final):
        part.replace(target)
    return final


def _chunks(rows: Iterable[dict[str, Any]], size: int) -> Iterator[list[dict[str, Any]]]:
    """Rows in lists of at most `size`."""
    chunk: list[dict[str, Any]] = []
    for row in rows:
        chunk.append(row)
        if len(chunk) >= size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk

