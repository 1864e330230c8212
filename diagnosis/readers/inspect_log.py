"""Inspect AI evaluation logs (`.eval` zip archives and `.json` logs), read with `inspect_ai`'s own reader.

`inspect_ai` is imported only when such a file is read (it is large). Its reader
resolves attachments (`attachment://` references) and the pooled message/event
data of newer logs, and streams the samples of an `.eval` archive one at a time.
One sample (and epoch) is one episode; its messages are the steps. Compaction
events split the history into segments: a segment starts at the first message
no model call had seen before the compaction.

Outcome: the first scorer's value as a float (Inspect's `value_to_float`: C=1,
I=0, P=0.5 …), success at full marks. A sample error is the infrastructure's; a
time or working-time limit counts as a timeout (infrastructure), the other
limits (messages, tokens, context, cost) as the model's. A sample without scores
and without an error is read ungraded.
"""

from __future__ import annotations

import zipfile
from typing import Any, Iterator, get_args

from taskforge.diagnosis.readers.base import SourceFile, json_arguments, segments_from_starts
from taskforge.schemas import Episode, InputError, Outcome, Step, ToolCall
from taskforge.schemas.episode import Family

FORMAT = "inspect"
ZIP_MAGIC = b"PK\x03\x04"
_ARCHIVE_MEMBERS = {"header.json", "_journal/start.json"}
TIMEOUT_LIMITS = {"time", "working"}
FAMILIES = set(get_args(Family))


def sniff(source: SourceFile) -> bool:
    """An `.eval` archive (zip with Inspect's members; a broken one named `.eval`) or a JSON log (`version`, `eval`)."""
    head = source.head()
    if head.startswith(ZIP_MAGIC):
        try:
            with zipfile.ZipFile(source.path) as archive:
                return bool(_ARCHIVE_MEMBERS & set(archive.namelist()))
        except zipfile.BadZipFile:
            return source.path.suffix == ".eval"
    record = source.parsed_head
    return isinstance(record, dict) and {"version", "eval"} <= record.keys()


def read(source: SourceFile) -> Iterator[Episode | InputError]:
    """Every sample of the log as an episode; an unreadable log raises an InputError naming it."""
    try:
        header, samples = _samples(source)
        count = 0
        for sample in samples:
            count += 1
            yield _episode(sample, header, source)
    except (ValueError, KeyError, IndexError, RuntimeError, OSError, zipfile.BadZipFile) as exc:
        problem = str(exc).replace(str(source.path), source.name).strip().splitlines()
        raise InputError(source.name, f"unreadable Inspect log ({type(exc).__name__}: {problem[0] if problem else ''})")
    if count == 0 and header.status == "success":
        raise InputError(source.name, "Inspect log of a finished eval with no samples logged (run with samples "
                                      "logged, e.g. without --no-log-samples, to diagnose it)")
    if count == 0:
        message = header.error.message if header.error else "no error recorded"
        raise InputError(source.name, f"Inspect log with status {header.status} and no samples ({message})")


def _samples(source: SourceFile) -> tuple[Any, Iterator[Any]]:
    """The log header and its samples: an `.eval` archive streams them one by one, a `.json` log is read whole."""
    from inspect_ai.log import read_eval_log, read_eval_log_sample, read_eval_log_sample_summaries

    path = str(source.path)
    if not source.head().startswith(ZIP_MAGIC):
        log = read_eval_log(path, resolve_attachments=True, format="json")
        return log, iter(log.samples or [])
    header = read_eval_log(path, header_only=True, format="eval")
    summaries = read_eval_log_sample_summaries(path, format="eval")
    return header, (read_eval_log_sample(path, id=s.id, epoch=s.epoch, resolve_attachments=True, format="eval")
                    for s in summaries)


def _episode(sample: Any, header: Any, source: SourceFile) -> Episode:
    """One sample (one epoch) as an Episode."""
    steps = [_step(message, index) for index, message in enumerate(sample.messages)]
    family = (sample.metadata or {}).get("family") or (header.eval.metadata or {}).get("family")
    metadata = {"task": header.eval.task, "model": header.eval.model, "epoch": sample.epoch}
    return Episode(
        episode_id=f"{header.eval.eval_id}/{sample.id}/{sample.epoch}",
        task_id=f"{header.eval.task}/{sample.id}",
        family=family if family in FAMILIES else "unknown",
        source_format=FORMAT, source_file=source.name, steps=steps,
        segments=segments_from_starts(_compaction_starts(sample), len(steps)),
        outcome=_outcome(sample), metadata=metadata,
    )


def _step(message: Any, index: int) -> Step:
    """One Inspect chat message as a step (tool errors keep their type)."""
    calls = [ToolCall(id=call.id, name=call.function, arguments=json_arguments(call.arguments))
             for call in getattr(message, "tool_calls", None) or []]
    error = getattr(message, "error", None)
    return Step(index=index, role=message.role, content=message.text, tool_calls=calls,
                tool_call_id=getattr(message, "tool_call_id", None), is_error=error is not None,
                error=f"{error.type}: {error.message}" if error is not None else None)


def _compaction_starts(sample: Any) -> list[int]:
    """Where each compacted context window starts, in message indices."""
    position = {message.id: index for index, message in enumerate(sample.messages) if message.id}
    seen, starts = -1, []
    for event in sample.events:
        if event.event == "model":
            ids = [m.id for m in event.input] + ([event.output.message.id] if event.output.choices else [])
            seen = max([seen, *(position.get(i, -1) for i in ids)])
        elif event.event == "compaction" and 0 <= seen < len(sample.messages) - 1:
            starts.append(seen + 1)
    return starts


def _outcome(sample: Any) -> Outcome:
    """The sample's outcome from its error, first score and limit (see the module docstring)."""
    from inspect_ai.scorer import value_to_float

    limit = sample.limit.type if sample.limit else None
    if sample.error is not None:
        return Outcome(success=False, failure_origin="infrastructure",
                       detail=f"sample error: {sample.error.message.strip().splitlines()[0][:200]}")
    if not sample.scores:
        if limit:
            return _failed(None, limit)
        return Outcome(success=False, graded=False, detail="no score recorded")
    name, score = next(iter(sample.scores.items()))
    values = score.value if isinstance(score.value, (dict, list)) else None
    to_float = value_to_float()
    if isinstance(values, dict):
        values = list(values.values())
    value = sum(to_float(v) for v in values) / len(values) if values else to_float(score.value)
    if value >= 1.0:
        return Outcome(score=value, success=True, detail=f"{name}={score.value}")
    return _failed(value, limit, f"{name}={score.value}")


def _failed(value: float | None, limit: str | None, scored: str = "no score") -> Outcome:
    """A failed outcome; a time or working-time limit makes it the infrastructure's."""
    if limit in TIMEOUT_LIMITS:
        return Outcome(score=value, success=False, failure_origin="infrastructure",
                       detail=f"{scored}; {limit} limit reached (timeout)")
    detail = f"{scored}; {limit} limit reached" if limit else scored
    return Outcome(score=value, success=False, failure_origin="model", detail=detail)
