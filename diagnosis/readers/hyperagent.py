"""HyperAgent's runs on SWE-bench (MAST's HyperAgent traces): a JSON object whose `trajectory` is the run's log,
one line per item, every record starting `HyperAgent_<instance> - <LEVEL> - `.

The planner (`Planner's Response: …`) hands a subgoal to an intern (`Intern Name: <intern>` / `Subgoal: …`): a
tool call named after the intern, answered by the intern's report (`Navigator->Planner: …`), a tool step. The
intern's own turns (`Inner-Navigator-Assistant's Response: …`) are assistant steps of that intern (`Navigator`)
whose code blocks are its actions; their outputs are not in the log. `Initialized HyperAgent instance` starts the
run; when the run starts again it opens a new segment. `problem_statement` is the question. No verdict is
recorded (`other_data.patch` is SWE-bench's reference patch, not the run's): ungraded. MAST's `note` (the
annotators') is never read.
"""

from __future__ import annotations

import json
import re
from typing import Any, Iterator

from taskforge.diagnosis.readers.base import CUT, SourceFile, load_json, text_of
from taskforge.diagnosis.readers.text_log import log_episode, records, ungraded
from taskforge.schemas import Episode, InputError

FORMAT = "hyperagent"
RECORD = re.compile(r"^HyperAgent_\S+ - [A-Z]+ - ", re.M)
TURN = re.compile(r"^(?:Inner-(?P<inner>\w+)-Assistant|(?P<planner>Planner))'s Response:\s*")
REPORT = re.compile(r"^(?P<intern>\w+)->Planner:\s*")
START = "Initialized HyperAgent instance"
DELEGATION = re.compile(r"^Intern Name:\s*(?P<intern>.+?)\s*\nSubgoal:\s*(?P<subgoal>.*)", re.M | re.S)
CODE_BLOCK = re.compile(r"```(python|py|bash|sh)?[^\n]*\n(.*?)```", re.S)


def sniff(source: SourceFile) -> bool:
    """A JSON object whose trajectory is HyperAgent's log."""
    head = source.parsed_head
    if not isinstance(head, dict) or "trajectory" not in head:
        return False
    trajectory = head["trajectory"]
    if trajectory is CUT:
        return b'"HyperAgent_' in source.head()
    return isinstance(trajectory, list) and bool(trajectory) and str(trajectory[0]).startswith("HyperAgent_")


def read(source: SourceFile) -> Iterator[Episode | InputError]:
    """The run as one episode of family `swe`."""
    record = load_json(source).data
    lines = record.get("trajectory")
    if not isinstance(lines, list):
        raise InputError(source.name, "HyperAgent record without its trajectory lines")
    question = text_of(record.get("problem_statement"))
    steps: list[dict[str, Any]] = [dict(role="user", content=question)]
    restarts: list[int] = []
    delegated: str | None = None
    for match, text in records("\n".join(map(str, lines)), RECORD):
        text = text.strip()
        turn, report = TURN.match(text), REPORT.match(text)
        if text.startswith(START):
            restarts.append(len(steps))
        elif turn and turn.group("planner"):
            content = text[turn.end():]
            handed = DELEGATION.search(content)
            calls = [{"id": f"intern-{len(steps)}", "name": handed.group("intern"),
                      "arguments": json.dumps({"subgoal": handed.group("subgoal").strip()})}] if handed else []
            delegated = calls[0]["id"] if calls else None
            steps.append(dict(role="assistant", content=content, actor="Planner", tool_calls=calls))
        elif turn:
            content = text[turn.end():]
            action = content.split("Action:", 1)[1] if "Action:" in content else ""
            blocks = CODE_BLOCK.findall(action)
            calls = [{"id": f"code-{len(steps)}-{k}", "name": language or "python",
                      "arguments": json.dumps({"code": code})} for k, (language, code) in enumerate(blocks)]
            steps.append(dict(role="assistant", content=content, actor=turn.group("inner"), tool_calls=calls))
        elif report:
            steps.append(dict(role="tool", content=text[report.end():], tool_call_id=delegated,
                              actor=report.group("intern")))
            delegated = None
    task_id = str(record.get("instance_id") or source.name)
    return iter([log_episode(source, FORMAT, task_id, steps, ungraded(), {"question": question}, family="swe",
                             restarts=restarts[1:])])
