"""SWE-agent trajectories (`.traj`): one JSON object per run with `history`, `trajectory` and `info`.

`history` is the conversation as the model saw it (system prompt, demonstrations,
the issue, then actions and observations); older files without it are rebuilt
from `trajectory` (one action/observation pair per turn). Text-based runs write
the action as a command line, function-calling runs as `tool_calls`; either way
a step carries the call and the next message is its observation (role `tool`).
The outcome comes from `info.exit_status` and `info.submission`.
"""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import Any, Iterator

from taskforge.diagnosis.readers.base import (RawToolCall, SourceFile, command_call, load_json, openai_tool_calls,
                                              segments_from_starts, text_of)
from taskforge.diagnosis.readers.run_outcome import run_outcome
from taskforge.schemas import Episode, InputError

FORMAT = "swe_agent"
_SIBLING_KEYS = {"history", "info", "environment"}


def sniff(source: SourceFile) -> bool:
    """A JSON object whose head has `trajectory` beside `history`, `info` or `environment`."""
    head = source.parsed_head
    return isinstance(head, dict) and "trajectory" in head and bool(_SIBLING_KEYS & head.keys())


def read(source: SourceFile) -> Iterator[Episode | InputError]:
    """The trajectory as one episode of family `swe`."""
    data, digest = load_json(source)
    if not isinstance(data, dict) or not isinstance(data.get("trajectory"), list):
        raise InputError(source.name, "not a SWE-agent trajectory (no `trajectory` list)")
    messages = data.get("history") or _history_from_trajectory(data["trajectory"])
    steps = steps_from_history(messages)
    info = data.get("info") if isinstance(data.get("info"), dict) else {}
    instance = instance_id(source.name)
    yield Episode(
        episode_id=f"{instance}@{digest}", task_id=instance, family="swe", source_format=FORMAT,
        source_file=source.name, steps=steps, segments=segments_from_starts([], len(steps)),
        outcome=run_outcome(info.get("exit_status"), info.get("submission"), info.get("resolved")),
        metadata={"exit_status": str(info.get("exit_status")), "submission": str(info.get("submission") or ""),
                  **_model_stats(info)},
    )


def instance_id(name: str) -> str:
    """The task instance a file is named after: `owner__repo-1.function_calling.traj` → `owner__repo-1`."""
    return PurePosixPath(name).name.split(".", 1)[0]


def _model_stats(info: dict[str, Any]) -> dict[str, float]:
    """The cost and token counts SWE-agent recorded."""
    stats = info.get("model_stats") if isinstance(info.get("model_stats"), dict) else {}
    return {k: v for k, v in stats.items() if k in ("instance_cost", "api_calls", "tokens_sent", "tokens_received")}


def _history_from_trajectory(trajectory: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A history rebuilt from trajectory turns, for files written before `history` existed."""
    history: list[dict[str, Any]] = []
    for turn in trajectory:
        history.append({"role": "assistant", "content": turn.get("response") or turn.get("thought") or "",
                        "action": turn.get("action", "")})
        history.append({"role": "user", "content": turn.get("observation") or ""})
    return history


def steps_from_history(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Steps from SWE-agent history entries; the message after an action is that action's observation."""
    steps: list[dict[str, Any]] = []
    pending: list[str] = []
    for index, message in enumerate(messages):
        role = message.get("role")
        content = text_of(message.get("content"))
        if role == "assistant":
            calls = _calls(message, index)
            pending = [call["id"] for call in calls]
            steps.append(dict(index=index, role="assistant", content=content, tool_calls=calls))
        elif role in ("tool", "user") and pending and not message.get("is_demo"):
            ids = message.get("tool_call_ids") or pending
            steps.append(dict(index=index, role="tool", content=content, tool_call_id=str(ids[0])))
            pending = []
        elif role in ("system", "user"):
            steps.append(dict(index=index, role=role, content=content))
        else:
            raise ValueError(f"history entry {index} has role {role!r}")
    return steps


def _calls(message: dict[str, Any], index: int) -> list[RawToolCall]:
    """The calls of an assistant entry: function-calling `tool_calls`, else its command line."""
    if message.get("tool_calls"):
        return openai_tool_calls(message["tool_calls"])
    action = (message.get("action") or "").strip()
    if not action:
        return []
    return [command_call(action.split(maxsplit=1)[0], action, f"action-{index}")]
