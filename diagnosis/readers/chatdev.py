"""ChatDev's runs (MAST's ChatDev traces): the plain-text log of a software company of role-playing agents.

Every record starts `[<date> <time> <LEVEL>] `. `**[Preprocessing]**` gives the task (`**task_prompt**`) and the
project's name and timestamp (the task id). In each phase one role opens the chat (`<Role>: **[Start Chat]**`:
the phase's instruction, a user step) and the two roles take turns (`<Role>: **<A><->B on : <Phase>, turn
<n>**`: an assistant step of that role; the system prompt in brackets before the message is left out). ChatDev
writes the code of a turn to files (`**[Update Codes]**`: `<file> updated.` and the diff): a tool call of the
turn that wrote it, answered by that record. `**[Test Reports]**` is the output of ChatDev running the software,
a user step (an error when it shows a traceback). Framework notices (HTTP requests, token usage, phase tables,
seminar conclusions that repeat the last turn) are not steps. ChatDev records no verdict: ungraded.
"""

from __future__ import annotations

import json
import re
from typing import Any, Iterator

from taskforge.diagnosis.readers.base import SourceFile
from taskforge.diagnosis.readers.text_log import body, head_text, log_episode, log_text, records, ungraded
from taskforge.schemas import Episode, InputError

FORMAT = "chatdev"
RECORD = re.compile(r"^\[\d{4}-\d\d-\d\d [\d:]+ [A-Z]+\] ", re.M)
TURN = re.compile(r"^(?P<actor>[^:\n*]+): \*\*[^*\n]+<->[^*\n]+ on : \w+, turn \d+\*\*")
START = re.compile(r"^(?P<actor>[^:\n*]+): \*\*\[Start Chat\]\*\*")
SYSTEM_PROMPT = re.compile(r"^\[.*?\]\n\n", re.S)
FIELD = re.compile(r"^\*\*(?P<key>\w+)\*\*: (?P<value>.*)$", re.M)
UPDATED = re.compile(r"^(?P<file>\S+) updated\.")
TRACEBACK = re.compile(r"Traceback \(most recent call last\)|^\w*Error: ", re.M)


def sniff(source: SourceFile) -> bool:
    """A ChatDev log: its first record is the preprocessing that announces ChatDev."""
    head = head_text(source)
    return bool(RECORD.match(head)) and "**[Preprocessing]**" in head[:200] and "**ChatDev Starts**" in head


def read(source: SourceFile) -> Iterator[Episode | InputError]:
    """The run as one episode."""
    parts = records(log_text(source), RECORD)
    fields = {m.group("key"): m.group("value").strip() for m in FIELD.finditer(parts[0][1])} if parts else {}
    if "task_prompt" not in fields:
        raise InputError(source.name, "ChatDev log without the task (`**task_prompt**` in its preprocessing)")
    steps: list[dict[str, Any]] = [dict(role="user", content=fields["task_prompt"])]
    for _, text in parts[1:]:
        first, _, rest = text.partition("\n")
        turn, start = TURN.match(first), START.match(first)
        if turn or start:
            message = SYSTEM_PROMPT.sub("", body(rest), count=1).strip()
            steps.append(dict(role="assistant", content=message, actor=turn.group("actor").strip(), tool_calls=[])
                         if turn else dict(role="user", content=message))
        elif first.startswith("**[Update Codes]**"):
            _update(steps, body(rest))
        elif first.startswith("**[Test Reports]**"):
            report = body(rest)
            failed = bool(TRACEBACK.search(report))
            steps.append(dict(role="user", content=report, is_error=failed,
                              error=report.splitlines()[-1] if failed else None))
    task_id = f"{fields.get('project_name', 'chatdev')}-{fields.get('Timestamp', '')}".rstrip("-")
    return iter([log_episode(source, FORMAT, task_id, steps, ungraded(), {"question": fields["task_prompt"]})])


def _update(steps: list[dict[str, Any]], report: str) -> None:
    """A file written from the last turn's code: a call of that turn, answered by the update's report."""
    turn = next((s for s in reversed(steps) if s["role"] == "assistant"), None)
    written = UPDATED.match(report)
    if turn is None or written is None:
        return
    call = {"id": f"update-{len(steps)}", "name": "write_file",
            "arguments": json.dumps({"path": written.group("file")})}
    turn["tool_calls"].append(call)
    steps.append(dict(role="tool", content=report, tool_call_id=call["id"]))
