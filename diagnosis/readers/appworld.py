"""AppWorld's multi-agent runs (MAST's AppWorld traces): a plain-text log of a supervisor agent and app agents.

The log opens with `**** Task i/n (<task id>) ****` and the task. Each `Response from <X> Agent` is that agent's
turn: the Python code it ran (its comments are its reasoning), an assistant step with the code as its tool call.
The code's output is the next `Code Execution Output` (the supervisor's) or `Message to <X> Agent` while X's code
waits for it (an app agent's, inside its `Entering … message loop`); a supervisor's `send_message` call is answered
by `Response from send_message API`. Any other `Message to <X> Agent` opens X's loop with the supervisor's
message (a user step); the copy of an output just shown and the `Reply from …` that repeats the API's response
are not steps (agents' names are matched without case: the log writes `spotify Agent` and `Spotify Agent`).
An output that starts `Execution failed` is an error. The closing `Evaluation` object is the
verdict: `success`, with the requirements that failed.
"""

from __future__ import annotations

import json
import re
from typing import Any, Iterator

from taskforge.diagnosis.readers.base import SourceFile
from taskforge.diagnosis.readers.text_log import body, head_text, log_episode, log_text, records, ungraded
from taskforge.schemas import Episode, InputError, Outcome

FORMAT = "appworld"
TASK = re.compile(r"^\s*\*{5,} Task \d+/\d+ \((?P<id>[^)]+)\)\s*\*{5,}\s*$", re.M)
MARKER = re.compile(r"^ *(?:Response from (?P<response>.+?)|Code Execution Output|Message to (?P<to>.+?)"
                    r"|Reply from .+? to .+?|Entering .+? message loop|Exiting (?P<exit>.+?) message loop"
                    r"|(?P<evaluation>Evaluation))[ \t]*$", re.M)
API_RESPONSE = "send_message API"
IN_FLIGHT = "# CallExtension"


def sniff(source: SourceFile) -> bool:
    """A task banner followed by an agent's response."""
    head = head_text(source)
    banner = TASK.search(head)
    return bool(banner) and "Response from " in head[banner.end():]


def read(source: SourceFile) -> Iterator[Episode | InputError]:
    """The log as one episode of its task."""
    text = log_text(source)
    banner = TASK.search(text)
    parts = records(text, MARKER)
    if banner is None or not parts:
        raise InputError(source.name, "AppWorld log without a task banner or agent turns")
    task = body(text[banner.end():parts[0][0].start()])
    steps: list[dict[str, Any]] = [dict(role="user", content=task)]
    outcome = ungraded()
    waiting: dict[str, str] = {}
    shown: dict[str, str] = {}
    for match, raw in parts:
        content = body(raw)
        line = match.group(0).strip()
        if match.group("evaluation"):
            outcome = _outcome(content)
        elif match.group("response") and match.group("response") != API_RESPONSE:
            speaker = match.group("response")
            call = {"id": f"code-{len(steps)}", "name": "python", "arguments": json.dumps({"code": content})}
            steps.append(dict(role="assistant", content=content, actor=speaker, tool_calls=[call]))
            waiting[speaker.lower()] = call["id"]
        elif line == "Code Execution Output" and content.startswith(IN_FLIGHT):
            continue
        elif line == "Code Execution Output" or match.group("response") == API_RESPONSE:
            _answer(steps, waiting, shown, _top(steps), content)
        elif match.group("to"):
            agent = match.group("to")
            if agent.lower() in waiting:
                _answer(steps, waiting, shown, agent, content)
            elif shown.get(agent.lower()) != content:
                steps.append(dict(role="user", content=content))
        elif match.group("exit"):
            waiting.pop(match.group("exit").lower(), None)
    return iter([log_episode(source, FORMAT, banner.group("id"), steps, outcome, {"question": task})])


def _top(steps: list[dict[str, Any]]) -> str:
    """The agent at the top level, whose code's output is `Code Execution Output`: the first to speak (the
    supervisor)."""
    return next(s["actor"] for s in steps if s["role"] == "assistant")


def _answer(steps: list[dict[str, Any]], waiting: dict[str, str], shown: dict[str, str], agent: str,
            content: str) -> None:
    """The output of `agent`'s waiting call as a tool step (an error when execution failed)."""
    call_id = waiting.pop(agent.lower(), None)
    if call_id is None:
        return
    failed = content.startswith("Execution failed")
    steps.append(dict(role="tool", content=content, tool_call_id=call_id, is_error=failed,
                      error=content.splitlines()[-1] if failed else None))
    shown[agent.lower()] = content


def _outcome(content: str) -> Outcome:
    """AppWorld's evaluation: success, the share of its tests passed, the requirements that failed."""
    report = json.loads(content)
    success = bool(report["success"])
    passed, failed = len(report.get("passes", [])), report.get("failures", [])
    total = report.get("num_tests") or passed + len(failed)
    detail = "; ".join(f["requirement"] for f in failed) or "every requirement passed"
    return Outcome(score=passed / total if total else float(success), success=success,
                   failure_origin="none" if success else "model", detail=f"AppWorld evaluation: {detail}")
