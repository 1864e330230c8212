"""The RL view of accepted tasks: the columns verl's `RLHFDataset` and agent loops read.

- `data_source`: `taskforge/<family>`; `taskforge.graders.reward.compute_score` dispatches on it;
- `prompt`: the chat messages the solver sees (`role`, `content`); where the task's prompt does not say which
  reply is graded (a workspace task answered in one reply: workflow, mle, swe), its last message ends with the
  sentence of the family's reply reader that does (`taskforge.graders.reward.reply_format`);
- `ability`: the capability the task trains;
- `reward_model`: `{style: "rule", ground_truth}` with the hidden reference as a JSON string;
- `extra_info`: `index` (the row's position in the whole export, counted across families), `split`, `task_id`,
  `family`, `kind`, `capability`, `parent_task_id` (the task it was evolved from, if any), the `payload` (without
  the fields the prompt shows: `taskforge.graders.task_reward`), `grader` and `environment` as JSON strings,
  `need_tools_kwargs`, `tools_kwargs` and `interaction_kwargs`, and `tool_selection` (the row's tools, for
  verl's per-sample tool selection);
- `agent_name`: `tool_agent` for a task with tools (literature's search and read; the sandboxed workspace
  tools of swe, mle and workflow: `taskforge.tools.verl_config`), else `single_turn_agent` (verl's agent loops).

verl looks up `extra_info.tools_kwargs[<tool name>]["create_kwargs"]` when the
model calls a tool, so `tools_kwargs` is a struct with one field per tool name
of the export (the union over its tasks, sorted; a task without a tool leaves it
null) and each tool is created with the task id and the task's environment, from
which `taskforge.tools.verl_tools` rebuilds the task's tools (a literature task's
search index from the collection snapshot shipped beside the data; a workspace from
the task's envelope in the release). A task that acts in an environment (tools, a
search index, a sandbox workspace …) has `interaction_kwargs`: `name` (the
environment's kind, else the family; verl's interaction registry is keyed by
it) and the environment. Every other uneven or nested field is a JSON string, so every file
of an export has one schema whatever the family.
"""

from __future__ import annotations

from typing import Any, Iterable, Sequence

import pyarrow as pa

from taskforge.graders.reward import data_source_for, reply_format
from taskforge.graders.task_reward import task_info
from taskforge.schemas import SCHEMA_VERSION, Task, canonical_json
from taskforge.tools.verl_config import row_tools

SPLIT = "train"
TOOL_AGENT, SINGLE_TURN_AGENT = "tool_agent", "single_turn_agent"
REWARD_STYLE = "rule"
PASSIVE_KEYS = {"time_budget_s", "tokenizer", "tools"}


def function_tools(environment: dict[str, Any]) -> list[str]:
    """The names of the tools a task environment offers in OpenAI function format (pinned tool versions, such
    as a workflow's `{"python": "3.11"}`, are not callable tools)."""
    tools = environment.get("tools")
    return [tool["function"]["name"] for tool in tools if isinstance(tool, dict) and "function" in tool] \
        if isinstance(tools, list) else []


def tool_names(families: Iterable[str]) -> list[str]:
    """Every tool name the rows of these families offer in verl (`taskforge.tools.verl_config.row_tools`), sorted."""
    return sorted({name for family in families for name in row_tools(family)})


def has_environment(environment: dict[str, Any]) -> bool:
    """Whether a task acts in an environment: callable tools, or anything besides a time budget, a tokenizer
    and pinned tool versions (a search index, a sandbox image, a workspace, a data folder …)."""
    return bool(function_tools(environment) or set(environment) - PASSIVE_KEYS)


def rl_schema(tools: Sequence[str]) -> pa.Schema:
    """The RL view's Arrow schema for an export whose tasks offer `tools` (no `tools_kwargs` without any)."""
    text = pa.string()
    create = pa.struct([("create_kwargs", pa.struct([("task_id", text), ("environment", text)]))])
    extra = [("index", pa.int64()), ("split", text), ("task_id", text), ("family", text), ("kind", text),
             ("capability", text), ("parent_task_id", text), ("payload", text), ("grader", text),
             ("environment", text), ("need_tools_kwargs", pa.bool_())]
    if tools:
        extra.append(("tools_kwargs", pa.struct([(name, create) for name in tools])))
        extra.append(("tool_selection", pa.list_(text)))
    extra.append(("interaction_kwargs", pa.struct([("name", text), ("environment", text)])))
    return pa.schema([
        ("data_source", text),
        ("prompt", pa.list_(pa.struct([("role", text), ("content", text)]))),
        ("ability", text),
        ("reward_model", pa.struct([("style", text), ("ground_truth", text)])),
        ("extra_info", pa.struct(extra)),
        ("agent_name", text),
    ], metadata={"taskforge.schema_version": SCHEMA_VERSION, "taskforge.record": "RLView"})


def rl_prompt(task: Task) -> list[dict[str, str]]:
    """The task's chat messages, the last one ending with the graded reply format where the prompt lacks it."""
    messages = [{"role": m.role, "content": m.content} for m in task.prompt]
    stated = reply_format(task.family, task.grader)
    if stated:
        messages[-1] = {**messages[-1], "content": f"{messages[-1]['content'].rstrip()}\n\n{stated}"}
    return messages


def rl_row(task: Task, index: int, tools: Sequence[str], split: str = SPLIT) -> dict[str, Any]:
    """One task as an RL row; `index` is its position in the export (across families), `tools` the export's
    tool names, `split` the release split it is in."""
    offered = row_tools(task.family)
    environment = canonical_json(task.environment)
    create = {"create_kwargs": {"task_id": task.task_id, "environment": environment}}
    extra: dict[str, Any] = {"index": index, "split": split, **task_info(task), "need_tools_kwargs": bool(offered)}
    if tools:
        extra["tools_kwargs"] = {name: create for name in tools if name in offered} if offered else None
        extra["tool_selection"] = offered or None
    extra["interaction_kwargs"] = ({"name": task.environment.get("kind", task.family), "environment": environment}
                                   if has_environment(task.environment) else None)
    return {
        "data_source": data_source_for(task.family),
        "prompt": rl_prompt(task),
        "ability": task.capability,
        "reward_model": {"style": REWARD_STYLE, "ground_truth": canonical_json(task.reference)},
        "extra_info": extra,
        "agent_name": TOOL_AGENT if offered else SINGLE_TURN_AGENT,
    }

