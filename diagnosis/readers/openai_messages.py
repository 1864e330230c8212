"""OpenAI chat-messages JSON lines: one episode per line, `messages` with tool calls.

A line holds `messages` (a message's `name` is the agent that spoke it) (or `segments`: a list of message lists, one per context
window of a compacted history), optional `id`/`episode_id`, `task_id`, `family`,
an outcome (`score` or `reward`, `success` or `resolved`, `failure_origin`), and
optional token-level fields (`prompt_ids`, `response_ids`, `loss_mask`,
`rollout_logprobs`, `tokenizer`). Outcome fields may also sit under `metadata`.
"""

from __future__ import annotations

from typing import Any, Iterator

from taskforge.diagnosis.readers.base import CUT, SourceFile, iter_jsonl, openai_tool_calls, text_of
from taskforge.schemas import Episode, InputError, Outcome, TokenRecord, content_id

FORMAT = "openai_messages"
_ROLES = {"system", "user", "assistant", "tool"}
_TOKEN_FIELDS = ("prompt_ids", "response_ids", "loss_mask", "rollout_logprobs")


def sniff(source: SourceFile) -> bool:
    record = source.parsed_head
    if not isinstance(record, dict):
        return False
    messages = record.get("messages") or record.get("segments")
    if messages is CUT:
        return True
    if isinstance(messages, list) and messages and isinstance(messages[0], list):
        messages = messages[0]
    return isinstance(messages, list) and bool(messages) and isinstance(messages[0], dict) and "role" in messages[0]


def read(source: SourceFile) -> Iterator[Episode | InputError]:
    yield from iter_jsonl(source, lambda record, line: _episode(record, line, source))


def _episode(record: dict[str, Any], line: int, source: SourceFile) -> Episode:
    windows = record.get("segments") or [record.get("messages")]
    if not all(isinstance(w, list) and w for w in windows):
        raise InputError(source.name, "no `messages` list (or `segments` of message lists)")
    steps: list[dict[str, Any]] = []
    segments: list[dict[str, int]] = []
    for seg_index, window in enumerate(windows):
        start = len(steps)
        for message in window:
            steps.append(_step(message, len(steps), seg_index))
        segments.append({"index": seg_index, "start_step": start, "end_step": len(steps) - 1})
    meta = record.get("metadata") if isinstance(record.get("metadata"), dict) else {}
    field = lambda name: record.get(name, meta.get(name))  # noqa: E731
    episode_id = str(field("episode_id") or field("id") or content_id(record, prefix="ep-"))
    return Episode.model_validate({
        "episode_id": episode_id,
        "task_id": str(field("task_id") or episode_id),
        "family": field("family") or "unknown",
        "source_format": FORMAT,
        "source_file": source.name,
        "steps": steps,
        "segments": segments,
        "outcome": _outcome(field, source),
        "tokens": _tokens(record),
        "metadata": {k: v for k, v in meta.items() if isinstance(v, (str, int, float, bool))},
    })


def _step(message: dict[str, Any], index: int, segment: int) -> dict[str, Any]:
    """One message as a step's fields (the episode validates them all at once)."""
    role = message.get("role")
    if role not in _ROLES:
        raise ValueError(f"message {index} has role {role!r}; expected one of {sorted(_ROLES)}")
    calls = openai_tool_calls(message.get("tool_calls"))
    error = message.get("error")
    return {"index": index, "segment": segment, "role": role, "content": text_of(message.get("content")),
            "tool_calls": calls, "tool_call_id": message.get("tool_call_id"),
            "is_error": bool(message.get("is_error") or error), "error": str(error) if error else None,
            "actor": str(message["name"]) if message.get("name") else None}


def _outcome(field: Any, source: SourceFile) -> Outcome:
    score = field("score") if field("score") is not None else field("reward")
    success = field("success") if field("success") is not None else field("resolved")
    if success is None and score is None:
        raise InputError(source.name, "no outcome: expected `score`/`reward` or `success`/`resolved`")
    if success is None:
        success = float(score) >= 1.0
    origin = field("failure_origin") or ("none" if success else "model")
    return Outcome(score=None if score is None else float(score), success=bool(success),
                   failure_origin=origin, detail=field("outcome_detail"))


def _tokens(record: dict[str, Any]) -> list[TokenRecord]:
    if not any(name in record for name in _TOKEN_FIELDS):
        return []
    return [TokenRecord(tokenizer=record.get("tokenizer"), **{name: record.get(name) or [] for name in _TOKEN_FIELDS})]
