"""OpenHands (V0) event streams: a JSON list of serialised events, or evaluation output lines.

An event is an action (`{"action": "run", "args": {...}, "source": "agent"}`) or
an observation (`{"observation": "run", "content": ..., "extras": {...}, "cause": id}`),
optionally with `tool_call_metadata` (`function_name`, `tool_call_id`). A JSON list
of events (a saved trajectory) is one episode; a JSON-lines file of evaluation
outputs (`instance_id`, `history`, `test_result`, `error`, optional `report`) has one
episode per line.

Agent actions become assistant steps with one tool call, observations tool steps,
messages user/assistant steps, the system action a system step. A condensation
(action `condensation`, or the older observation `condense`) starts a new segment
and carries its summary; bookkeeping events (agent state changes, recalls, nulls)
are not steps.
"""

from __future__ import annotations

import json
import re
from typing import Any, Iterator

from taskforge.diagnosis.readers.base import SourceFile, iter_jsonl, load_json, segments_from_starts
from taskforge.diagnosis.readers.run_outcome import run_outcome
from taskforge.schemas import Episode, InputError, Outcome, content_id

FORMAT = "openhands"
BOOKKEEPING_ACTIONS = {"change_agent_state", "null", "recall", "condensation_request", "pause", "resume", "stop",
                       "start"}
BOOKKEEPING_OBSERVATIONS = {"agent_state_changed", "null", "recall", "user_rejected"}
WAITING_STATES = {"awaiting_user_input", "awaiting_user_confirmation", "paused"}
"""Last agent states of a GUI-mode run that handed the turn to the user: not a failure, not graded."""
CONDENSATIONS = {("action", "condensation"), ("observation", "condense")}
_ARGUMENT_NOISE = {"thought", "impl_source", "translated_ipython_code", "security_risk", "confirmation_state",
                   "hidden", "is_static", "blocking", "cwd", "is_input", "image_urls", "wait_for_response",
                   "include_extra", "kernel_init_code"}
_MODEL_ERRORS = re.compile(r"maximum iteration|max_iterations|budget|stuck in a loop|StuckInLoop|context ?window",
                           re.IGNORECASE)


def sniff(source: SourceFile) -> bool:
    """A JSON list of events, or JSON lines with `instance_id` and `history`/`test_result`."""
    head = source.parsed_head
    if isinstance(head, list):
        first = head[0] if head else None
        return isinstance(first, dict) and "source" in first and ("action" in first or "observation" in first)
    return isinstance(head, dict) and "instance_id" in head and bool({"history", "test_result"} & head.keys())


def read(source: SourceFile) -> Iterator[Episode | InputError]:
    """An event list as one episode, or one episode per evaluation-output line."""
    if isinstance(source.parsed_head, list):
        events, digest = load_json(source)
        yield _episode(events, source, episode_id=f"{_stem(source.name)}@{digest}", task_id=_stem(source.name),
                       outcome=_stream_outcome(events), family="unknown")
    else:
        yield from iter_jsonl(source, lambda record, line: _eval_output(record, source))


def _stem(name: str) -> str:
    """A file's name without folders and suffixes: the task it is named after."""
    return name.rsplit("/", 1)[-1].split(".", 1)[0]


def _eval_output(record: dict[str, Any], source: SourceFile) -> Episode:
    """One evaluation-output line as an episode, with the evaluation verdict when present."""
    history = record.get("history")
    if not isinstance(history, list):
        raise InputError(source.name, "evaluation output without a `history` list of events")
    instance = str(record["instance_id"])
    test_result = record.get("test_result") if isinstance(record.get("test_result"), dict) else {}
    report = record.get("report") or test_result.get("report") or {}
    resolved = report.get("resolved") if isinstance(report, dict) else None
    error = str(record.get("error") or "")
    outcome = run_outcome(_error_exit(error) if error else "submitted", test_result.get("git_patch"), resolved,
                          note=error or None)
    family = "swe" if "git_patch" in test_result else "unknown"
    episode = _episode(history, source, episode_id=f"{instance}@{content_id(record, length=12)}", task_id=instance,
                       outcome=outcome, family=family)
    return episode.model_copy(update={"metadata": {"submission": str(test_result.get("git_patch") or "")}})


def _error_exit(error: str) -> str:
    """The exit status an OpenHands error amounts to: budget and loop errors are the model's, the rest the harness's."""
    return "exit_forfeit" if _MODEL_ERRORS.search(error) else "exit_error"


def _stream_outcome(events: list[dict[str, Any]]) -> Outcome:
    """The outcome a bare event stream records: its last agent state (no evaluation verdict)."""
    states = [e for e in events if e.get("observation") == "agent_state_changed"]
    extras = states[-1].get("extras", {}) if states else {}
    if extras.get("agent_state") == "error":
        reason = str(extras.get("reason") or "agent error")
        return run_outcome(_error_exit(reason), None, note=reason)
    if any(e.get("action") == "finish" for e in events):
        return Outcome(success=False, graded=False, detail="finished: not evaluated")
    if extras.get("agent_state") in WAITING_STATES:
        return Outcome(success=False, graded=False,
                       detail=f"{extras['agent_state']}: the run waits for the user; not finished, not evaluated")
    return run_outcome(None, None, note="ended without finishing")


def _episode(events: list[dict[str, Any]], source: SourceFile, *, episode_id: str, task_id: str,
             outcome: Outcome, family: str) -> Episode:
    """Events as steps and segments (a condensation starts a new segment)."""
    steps: list[dict[str, Any]] = []
    starts: list[int] = []
    summaries: dict[int, str] = {}
    for number, event in enumerate(events):
        if "action" not in event and "observation" not in event:
            raise ValueError(f"event {number} is neither an action nor an observation")
        kind = ("action", event["action"]) if "action" in event else ("observation", event["observation"])
        if kind in CONDENSATIONS:
            starts.append(len(steps))
            summary = (event.get("args") or {}).get("summary") or event.get("content")
            if summary:
                summaries[len(steps)] = str(summary)
        elif kind[1] not in (BOOKKEEPING_ACTIONS if kind[0] == "action" else BOOKKEEPING_OBSERVATIONS):
            steps.append(_step(event, kind, len(steps)))
    return Episode(episode_id=episode_id, task_id=task_id, family=family, source_format=FORMAT,
                   source_file=source.name, steps=steps,
                   segments=segments_from_starts(starts, len(steps), summaries), outcome=outcome)


def _step(event: dict[str, Any], kind: tuple[str, str], index: int) -> dict[str, Any]:
    """One event as a step: system, message, tool call or observation."""
    args = event.get("args") or {}
    meta = event.get("tool_call_metadata") or {}
    if kind == ("action", "system"):
        return dict(index=index, role="system", content=str(args.get("content", "")))
    if kind == ("action", "message"):
        role = "user" if event.get("source") == "user" else "assistant"
        return dict(index=index, role=role, content=str(args.get("content", event.get("message", ""))))
    if kind[0] == "action":
        call = dict(id=str(meta.get("tool_call_id") or f"event-{event.get('id')}"),
                    name=str(meta.get("function_name") or kind[1]),
                    arguments=json.dumps({k: v for k, v in args.items() if k not in _ARGUMENT_NOISE},
                                         sort_keys=True, default=str))
        return dict(index=index, role="assistant", content=str(args.get("thought") or ""), tool_calls=[call])
    error = _observation_error(event, kind[1])
    return dict(index=index, role="tool", content=str(event.get("content", "")),
                tool_call_id=str(meta.get("tool_call_id") or f"event-{event.get('cause')}"),
                is_error=error is not None, error=error)


def _observation_error(event: dict[str, Any], observation: str) -> str | None:
    """The error an observation reports: an error observation, or a command's non-zero exit code."""
    if observation == "error":
        return "error: " + (str(event.get("content", "")).strip().splitlines() or [""])[0][:200]
    exit_code = ((event.get("extras") or {}).get("metadata") or {}).get("exit_code")
    if observation == "run" and isinstance(exit_code, int) and exit_code not in (0, -1):
        return f"exit code {exit_code}"
    return None
