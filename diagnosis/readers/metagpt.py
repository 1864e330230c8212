"""MetaGPT's coder/tester/reviewer team (MAST's MetaGPT traces), in the two shapes MAST kept.

- A run record: a JSON object with `run_id`, `prompt` (the task) and `content`, MetaGPT's log of the run, where
  each `<Name>(<Role>): to do <Action>` line starts a role's turn and the code block after it is what the role
  wrote (the reviewer's review is not in the log: its turns are empty).
- A communication log (`=== MetaGPT Agent Communication Log …`): `FROM: Human` gives the task (`CONTENT:`), and
  each `NEW MESSAGES:` block is one role's message (`<Role>: …`).

Each role's turn is an assistant step named by its role (`SimpleCoder`); nothing runs the code the roles write,
so no step has a tool call. Neither shape records a verdict: ungraded.
"""

from __future__ import annotations

import re
from typing import Any, Iterator

from taskforge.diagnosis.readers.base import SourceFile, load_json
from taskforge.diagnosis.readers.text_log import body, head_text, log_episode, log_text, records, ungraded
from taskforge.schemas import Episode, InputError

FORMAT = "metagpt"
TURN = re.compile(r"^\d{4}-\d\d-\d\d [\d:.]+ \| \w+ +\| \S+ - (?P<name>\w+)\((?P<role>\w+)\): "
                  r"to do (?P<action>\w+)(?:\(\w+\))?", re.M)
COMMUNICATION_LOG = re.compile(r"^=== MetaGPT Agent Communication Log", re.M)
MESSAGE = re.compile(r"^\[[\d\- :]+\] (?:FROM: (?P<sender>\S+) TO: .*|NEW MESSAGES:)$", re.M)
SEPARATOR = re.compile(r"^-{20,}$|^=== Communication Log Ended.*$", re.M)


def sniff(source: SourceFile) -> bool:
    """A run record whose log has a role's turn, or a communication log."""
    head = source.parsed_head
    if isinstance(head, dict) and "run_id" in head and isinstance(head.get("content"), str):
        return bool(TURN.search(head["content"]))
    return bool(COMMUNICATION_LOG.search(head_text(source)[:1000]))


def read(source: SourceFile) -> Iterator[Episode | InputError]:
    """The run as one episode."""
    if COMMUNICATION_LOG.search(head_text(source)[:1000]):
        return iter([_communication_log(source)])
    record = load_json(source).data
    task = str(record["prompt"])
    steps: list[dict[str, Any]] = [dict(role="user", content=task)]
    for match, text in records(record["content"], TURN):
        steps.append(dict(role="assistant", content=body(text), actor=match.group("role")))
    task_id = f"metagpt-run-{record['run_id']}"
    return iter([log_episode(source, FORMAT, task_id, steps, ungraded(), {"question": task})])


def _communication_log(source: SourceFile) -> Episode:
    """A communication log: the human's task, then one step per message."""
    steps: list[dict[str, Any]] = []
    for match, text in records(log_text(source), MESSAGE):
        content = body(SEPARATOR.split(text, 1)[0])
        if match.group("sender"):
            task = content.split("CONTENT:", 1)[-1].strip()
            steps.append(dict(role="user", content=task))
            continue
        role, _, said = content.partition(":")
        if not said or not role.isidentifier():
            raise InputError(source.name, f"a MetaGPT message without its role: {content[:60]!r}")
        steps.append(dict(role="assistant", content=said.strip(), actor=role))
    if not steps or steps[0]["role"] != "user":
        raise InputError(source.name, "a MetaGPT communication log without the human's task")
    stem = source.name.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    return log_episode(source, FORMAT, stem, steps, ungraded(), {"question": steps[0]["content"]})
