"""OpenTelemetry span trees with OpenInference attributes (smolagents runs exported by Phoenix/Patronus, as in TRAIL).

A file is one JSON object `{"trace_id", "spans": [...]}`; every span has a `span_id`, a `span_name`, its
`span_attributes` (OpenInference keys: `openinference.span.kind`, `input.value`, `output.value`,
`llm.output_messages.0.message.content`, `tool.name` …), a `status_code` / `status_message`, and its
`child_spans`. Spans are read depth first, children in time order; only spans with an OpenInference kind become
steps:
- the first AGENT span's task (`input.value`'s `task`) is the user step that poses the task;
- an LLM span is an assistant step taken by the agent of the nearest AGENT span above it (`CodeAgent.run`,
  `ToolCallingAgent.run`); its code blocks are `python_interpreter` calls, its OpenAI-style
  `llm.output_messages.0.message.tool_calls.N` attributes its tool calls;
- a TOOL span answers the latest call of its tool (or adds that call to the latest assistant step) with its output;
- a CHAIN span (an agent's `Step N`) with an output or an error status ends with a tool step: the execution log
  of the step's code, or the error that stopped it, answering that agent's latest turn;
- an error that refused the action for its form (smolagents' "Error in code parsing", code without the expected
  code block, a tool called with arguments it does not take) is marked `format error` (as mini-swe-agent's refused
  turns are); any other error keeps its message.

`metadata.span_ids` lists each step's span id, so a span-level annotation (TRAIL's `location`) names the steps it
covers. The trace holds no verdict: episodes are ungraded. Annotation files (TRAIL's `errors`) are never read.
"""

from __future__ import annotations

import json
import re
from typing import Any, Iterator

from taskforge.diagnosis.readers.base import SourceFile, json_arguments, load_json, segments_from_starts
from taskforge.schemas import Episode, InputError, Outcome

FORMAT = "openinference"
KIND = "openinference.span.kind"
OUTPUT_MESSAGE = "llm.output_messages.0.message."
CALL = re.compile(re.escape(OUTPUT_MESSAGE) + r"tool_calls\.(\d+)\.tool_call\.(id|function\.name|function\.arguments)$")
CODE_BLOCK = re.compile(r"```(?:py|python)?[^\n]*\n(.*?)```", re.DOTALL)
PYTHON = "python_interpreter"
REFUSAL = re.compile(r"Error in code parsing|Code parsing failed|Your code snippet is invalid|"
                     r"Error when executing tool \w+ with arguments[^\n]*\n?[^\n]*unexpected keyword argument")
"""smolagents' answers to an action of the wrong form: code it could not parse or find, a tool called with an
argument it does not take."""


def sniff(source: SourceFile) -> bool:
    """A JSON object with a `spans` list whose spans carry span ids and span attributes."""
    head = source.parsed_head
    if not isinstance(head, dict) or "spans" not in head:
        return False
    raw = source.head()
    return b'"span_id"' in raw and b'"span_attributes"' in raw and b'"child_spans"' in raw


def read(source: SourceFile) -> Iterator[Episode | InputError]:
    """The span tree as one episode."""
    data, digest = load_json(source)
    if not isinstance(data, dict) or not isinstance(data.get("spans"), list):
        raise InputError(source.name, "not an OpenInference span tree (no list of spans)")
    steps: list[dict[str, Any]] = []
    span_ids: list[str] = []
    for span in sorted(data["spans"], key=_time):
        _walk(span, None, steps, span_ids)
    if not steps:
        raise InputError(source.name, "no span with an OpenInference kind (no agent, model or tool span)")
    for index, step in enumerate(steps):
        step["index"] = index
    task_id = str(data.get("trace_id") or source.name.rsplit("/", 1)[-1].split(".", 1)[0])
    yield Episode(episode_id=f"{task_id}@{digest}", task_id=task_id, family="unknown", source_format=FORMAT,
                  source_file=source.name, steps=steps, segments=segments_from_starts([], len(steps)),
                  outcome=Outcome(success=False, graded=False, detail="no verdict recorded"),
                  metadata={"span_ids": span_ids})


def _time(span: dict[str, Any]) -> str:
    return str(span.get("timestamp") or "")


def _walk(span: dict[str, Any], agent: str | None, steps: list[dict[str, Any]], span_ids: list[str]) -> None:
    """Steps of one span and its children, in order."""
    attributes = span.get("span_attributes") or {}
    kind = attributes.get(KIND)
    span_id = str(span.get("span_id", ""))

    def add(step: dict[str, Any]) -> None:
        steps.append(step)
        span_ids.append(span_id)

    if kind == "AGENT":
        if not steps:
            add(dict(role="user", content=_task(attributes.get("input.value"))))
        agent = str(span.get("span_name") or "agent")
    elif kind == "LLM":
        content = str(attributes.get(OUTPUT_MESSAGE + "content") or "")
        calls = _message_calls(attributes, span_id) + [
            dict(id=f"{span_id}-code-{k}", name=PYTHON, arguments=json.dumps({"code": code}))
            for k, code in enumerate(CODE_BLOCK.findall(content))]
        add(dict(role="assistant", content=content, tool_calls=calls, actor=agent))
    elif kind == "TOOL":
        add(_tool_step(span, attributes, steps))
    for child in sorted(span.get("child_spans") or [], key=_time):
        _walk(child, agent, steps, span_ids)
    if kind == "CHAIN" and (attributes.get("output.value") is not None or span.get("status_code") == "Error"):
        add(_step_result(span, attributes, steps, agent))


def _task(value: Any) -> str:
    """The task an agent was given (`input.value` is a JSON object with a `task`, or plain text)."""
    try:
        parsed = json.loads(value) if isinstance(value, str) else value
    except json.JSONDecodeError:
        return str(value)
    return str(parsed.get("task", value)) if isinstance(parsed, dict) else str(value or "")


def _message_calls(attributes: dict[str, Any], span_id: str) -> list[dict[str, str]]:
    """The OpenAI-style tool calls an LLM span's output message carries as flattened attributes."""
    fields: dict[int, dict[str, str]] = {}
    for key, value in attributes.items():
        match = CALL.match(key)
        if match:
            fields.setdefault(int(match.group(1)), {})[match.group(2)] = value
    return [dict(id=str(f.get("id") or f"{span_id}-call-{n}"), name=str(f.get("function.name") or "tool"),
                 arguments=json_arguments(f.get("function.arguments", "{}"))) for n, f in sorted(fields.items())]


def _tool_step(span: dict[str, Any], attributes: dict[str, Any], steps: list[dict[str, Any]]) -> dict[str, Any]:
    """A tool span's output, answering the latest call of that tool (added to the latest assistant turn when the
    turn's text did not show it, as when code calls a tool)."""
    name = str(attributes.get("tool.name") or span.get("span_name") or "tool")
    turn = next((s for s in reversed(steps) if s["role"] == "assistant"), None)
    answered = {s.get("tool_call_id") for s in steps if s["role"] == "tool"}
    call = next((c for c in reversed(turn["tool_calls"]) if c["name"] == name and c["id"] not in answered),
                None) if turn else None
    if call is None and turn is not None:
        call = dict(id=f"{span.get('span_id')}-tool", name=name,
                    arguments=json_arguments(attributes.get("input.value", "{}")))
        turn["tool_calls"].append(call)
    return _result(span, attributes, call["id"] if call else None)


def _step_result(span: dict[str, Any], attributes: dict[str, Any], steps: list[dict[str, Any]],
                 agent: str | None) -> dict[str, Any]:
    """An agent step's outcome: the execution log of its code, or the error that stopped it; it answers the latest
    turn of the same agent (a managed agent's turns may come between), its code if it ran any, else its last call."""
    turn = next((s for s in reversed(steps) if s["role"] == "assistant" and s.get("actor") == agent), None)
    calls = turn["tool_calls"] if turn else []
    call = next((c for c in calls if c["name"] == PYTHON), calls[-1] if calls else None)
    return _result(span, attributes, call["id"] if call else None)


def _result(span: dict[str, Any], attributes: dict[str, Any], call_id: str | None) -> dict[str, Any]:
    failed = span.get("status_code") == "Error"
    message = str(span.get("status_message") or "")
    output = attributes.get("output.value")
    content = message if failed and message else str(output if output is not None else "")
    error = None
    if failed:
        error = f"format error: {message}"[:200] if REFUSAL.search(content) else message[:200]
    return dict(role="tool", content=content, tool_call_id=call_id, is_error=failed, error=error)
