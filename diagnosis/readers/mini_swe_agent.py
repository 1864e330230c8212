"""mini-swe-agent trajectories (`.traj.json`), both layouts it has written.

- v1 (`mini-swe-agent` 1.x `github_issue` / `local` runs): a bare JSON list of
  chat messages; the model's command is the one fenced ```bash / ```mswea_bash_command
  block of each assistant message and the next user message is its output
  (`<returncode>N</returncode>`). A run ends with a submit command
  (`echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT`, earlier `MINI_SWE_AGENT_FINAL_OUTPUT`)
  whose output, the last message, is the submission.
- dict layouts (`trajectory_format` `mini-swe-agent-1`, v2 `mini-swe-agent-1.1`):
  `{"info": {exit_status, submission, model_stats, ...}, "messages": [...]}`;
  v2 messages are the model's native messages plus `extra` (parsed `actions`,
  `returncode`, `exit_status`), tool calls in the OpenAI format, and a final
  `exit` message.

Observations are normalised to role `tool`; a turn the harness refused ("found 3
actions") ran nothing: its commands are dropped and the refusal is a user step
marked as a format error; an `exit` message that answers a
pending command is that command's output, otherwise it is recorded as a user turn.
"""

from __future__ import annotations

import re
from typing import Any, Iterator

from taskforge.diagnosis.readers.base import (CUT, RawToolCall, SourceFile, command_call, load_json,
                                              openai_tool_calls, segments_from_starts, text_of)
from taskforge.diagnosis.readers.run_outcome import run_outcome
from taskforge.diagnosis.readers.swe_agent import instance_id
from taskforge.schemas import Episode, InputError, Outcome

FORMAT = "mini_swe_agent"
SUBMIT_MARKERS = ("COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT", "MINI_SWE_AGENT_FINAL_OUTPUT")
_V1_MARKERS = (b"mswea_bash_command", *(m.encode() for m in SUBMIT_MARKERS))
_FORMAT_MARKER = b'"trajectory_format"'
_BLOCK = re.compile(r"```(?:mswea_bash_command|bash)\s*\n(.*?)\n```", re.DOTALL)
_REFUSED = re.compile(r"EXACTLY ONE action in triple backticks, found (\d+) actions|"
                      r"format your (?:response|action) .{0,40}found (\d+) actions", re.I)
"""The harness's answer to a turn with no command or several: nothing was run."""
_RETURNCODE = re.compile(r'<returncode>\s*(-?\d+)\s*</returncode>|"returncode":\s*(-?\d+)')


def sniff(source: SourceFile) -> bool:
    """A message list with mini-swe-agent's command markers, or a dict with its `trajectory_format`/`mini_version`."""
    raw = source.head()
    head = source.parsed_head
    if isinstance(head, list):
        first = head[0] if head else None
        return isinstance(first, dict) and "role" in first and any(m in raw for m in _V1_MARKERS)
    if isinstance(head, dict) and ("messages" in head or head.get("info") is CUT):
        info = head.get("info")
        tail = source.tail()
        return (isinstance(info, dict) and "mini_version" in info) or (
            _FORMAT_MARKER in tail and b"mini-swe-agent" in tail)
    return False


def read(source: SourceFile) -> Iterator[Episode | InputError]:
    """The trajectory as one episode of family `swe`."""
    data, digest = load_json(source)
    if isinstance(data, list):
        messages, info = data, None
    elif isinstance(data, dict) and isinstance(data.get("messages"), list):
        messages, info = data["messages"], data.get("info") if isinstance(data.get("info"), dict) else {}
    else:
        raise InputError(source.name, "not a mini-swe-agent trajectory (no list of messages)")
    if info is not None:
        metadata = {"exit_status": str(info.get("exit_status")), "mini_version": str(info.get("mini_version")),
                    "submission": str(info.get("submission") or "")}
    else:
        metadata = {"trajectory_format": "list"}
    steps = steps_from_messages(messages)
    instance = instance_id(source.name)
    yield Episode(
        episode_id=f"{instance}@{digest}", task_id=instance, family="swe", source_format=FORMAT,
        source_file=source.name, steps=steps, segments=segments_from_starts([], len(steps)),
        outcome=_outcome(info, messages), metadata=metadata,
    )


def steps_from_messages(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Steps from mini-swe-agent messages: commands become `bash` calls, their outputs `tool` steps."""
    steps: list[dict[str, Any]] = []
    pending: list[str] = []
    for index, message in enumerate(messages):
        role = message.get("role")
        content = text_of(message.get("content"))
        extra = message.get("extra") if isinstance(message.get("extra"), dict) else {}
        if role == "assistant":
            calls = _calls(message, content, extra, index)
            pending = [call["id"] for call in calls]
            steps.append(dict(index=index, role="assistant", content=content, tool_calls=calls))
        elif role == "user" and pending and (refused := _REFUSED.search(content[:600])):
            steps[-1]["tool_calls"] = []
            pending = []
            steps.append(dict(index=index, role="user", content=content, is_error=True,
                              error=f"format error: found {refused.group(1) or refused.group(2)} actions"))
        elif role in ("tool", "user", "exit") and pending:
            code = _returncode(content, extra)
            failed = code not in (None, 0)
            steps.append(dict(index=index, role="tool", content=content,
                              tool_call_id=message.get("tool_call_id") or pending[0],
                              is_error=failed, error=f"returncode {code}" if failed else None))
            pending = pending[1:] if role == "tool" else []
        elif role in ("system", "user", "exit"):
            steps.append(dict(index=index, role="system" if role == "system" else "user", content=content))
        else:
            raise ValueError(f"message {index} has role {role!r}")
    return steps


def _calls(message: dict[str, Any], content: str, extra: dict[str, Any], index: int) -> list[RawToolCall]:
    """Tool calls, else parsed actions, else fenced command blocks, as calls."""
    if message.get("tool_calls"):
        return openai_tool_calls(message["tool_calls"])
    commands = [a["command"] for a in extra.get("actions") or [] if isinstance(a, dict) and "command" in a]
    commands = commands or [match.group(1) for match in _BLOCK.finditer(content)]
    return [command_call("bash", command, f"action-{index}-{k}") for k, command in enumerate(commands)]


def _returncode(content: str, extra: dict[str, Any]) -> int | None:
    """The exit code of a command's output (`extra.returncode` or the rendered observation)."""
    if isinstance(extra.get("returncode"), int):
        return extra["returncode"]
    match = _RETURNCODE.search(content[:200])
    return int(match.group(1) or match.group(2)) if match else None


def _outcome(info: dict[str, Any] | None, messages: list[dict[str, Any]]) -> Outcome:
    """Outcome from `info`, or for a v1 list from whether the last command submitted."""
    if info is not None:
        return run_outcome(info.get("exit_status"), info.get("submission"), info.get("resolved"))
    commands = [c for m in messages if m.get("role") == "assistant" for c in _BLOCK.findall(text_of(m.get("content")))]
    submitted = bool(commands) and any(marker in commands[-1] for marker in SUBMIT_MARKERS) \
        and messages[-1].get("role") == "user"
    if submitted:
        return run_outcome("Submitted", text_of(messages[-1].get("content")))
    return run_outcome(None, None)
