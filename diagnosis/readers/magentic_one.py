"""Magentic-One's console logs (MAST's GAIA traces of Magentic-One, run by AutoGen's testbed): each message is
printed under `---------- <agent> ----------`; what comes before the first is the testbed's setup output.

`user` poses the task (a user step). The orchestrator and the agents speak as assistant steps named by the agent.
A web or file surfer's message says what it did in its first paragraph (`I typed '…' into the browser search
bar.`, `I clicked '…'.`) and shows the page after it: that first paragraph is the agent's action, a tool call
named after it, and the rest its observation; a surfer's message of one paragraph is its answer. The computer
terminal's messages are the output of the code blocks of the turn before (a tool step, an error when it shows a
traceback). The testbed's closing lines (`… !#!#`) are not steps. `FINAL ANSWER: …` is the answer; the log holds
no verdict: ungraded.
"""

from __future__ import annotations

import json
import re
from typing import Any, Iterator

from taskforge.diagnosis.readers.base import SourceFile
from taskforge.diagnosis.readers.group_chat import CODE_BLOCK, EXECUTOR, TRACEBACK
from taskforge.diagnosis.readers.text_log import head_text, log_episode, log_text, records, ungraded
from taskforge.schemas import Episode, InputError

FORMAT = "magentic_one"
SPEAKER = re.compile(r"^---------- (?P<agent>\S+) ----------$", re.M)
ORCHESTRATOR = "MagenticOneOrchestrator"
SURFER = re.compile(r"surfer", re.I)
TESTBED = re.compile(r"^[A-Z][A-Z_.]* [A-Z]+(?::.*)? !#!#$", re.M)


def sniff(source: SourceFile) -> bool:
    """A console log in which the orchestrator speaks."""
    head = head_text(source)
    return f"---------- {ORCHESTRATOR} ----------" in head and bool(SPEAKER.search(head))


def read(source: SourceFile) -> Iterator[Episode | InputError]:
    """The run as one episode."""
    steps: list[dict[str, Any]] = []
    for match, text in records(TESTBED.sub("", log_text(source)), SPEAKER):
        agent, content = match.group("agent"), text.strip("\n")
        if agent == "user":
            steps.append(dict(role="user", content=content.strip()))
        elif EXECUTOR.search(agent):
            caller = steps[-1] if steps and steps[-1].get("tool_calls") else None
            failed = bool(TRACEBACK.search(content))
            steps.append(dict(role="tool", content=content.strip(), actor=agent, is_error=failed,
                              tool_call_id=caller["tool_calls"][0]["id"] if caller else None))
        elif SURFER.search(agent) and "\n\n" in content.strip():
            action, observation = content.strip().split("\n\n", 1)
            call = {"id": f"action-{len(steps)}", "name": agent, "arguments": json.dumps({"action": action})}
            steps.append(dict(role="assistant", content=action, actor=agent, tool_calls=[call]))
            steps.append(dict(role="tool", content=observation.strip(), tool_call_id=call["id"]))
        else:
            steps.append(dict(role="assistant", content=content.strip(), actor=agent,
                              tool_calls=_code(content, len(steps))))
    if not steps or steps[0]["role"] != "user":
        raise InputError(source.name, "Magentic-One log without the user's task")
    stem = source.name.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    return iter([log_episode(source, FORMAT, stem, steps, ungraded(), {"question": steps[0]["content"]})])


def _code(content: str, index: int) -> list[dict[str, str]]:
    """The code blocks of a turn, as the calls the computer terminal answers."""
    return [{"id": f"code-{index}-{k}", "name": m.group(1) or "python", "arguments": json.dumps({"code": m.group(2)})}
            for k, m in enumerate(CODE_BLOCK.finditer(content))]
