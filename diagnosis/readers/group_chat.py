"""Multi-agent group-chat transcripts (AG2/AutoGen, CaptainAgent, Magentic-One style): named agents take turns.

A file is one JSON object with a `history` (or `chat_history`/`messages`/`trajectory`) list
of `{"content", "role", "name"}` messages where agents speak under their own
names, or a bare JSON list of such messages; a message's content may be a list
of lines (MAST's AG2 traces). Every named agent is an actor: its turns are
assistant steps carrying the agent's name. The code executor
(`Computer_terminal`, an `…executor`, or any turn that starts with
`exitcode:`) answers the code blocks of the turn before it: those blocks become
that turn's tool calls and the executor's reply their observation (an error when
the exit code is not 0 or the reply shows a traceback). An AG2 user proxy
(`mathproxyagent`) is the executor only when the turn before it holds code; its
other turns (the task, "Continue…") are its own. Step indices are the message
indices of the file.

Outcome: `is_correct` (or `success`/`resolved`, or MAST's `other_data.correct`)
when the file carries one, else ungraded. The question and the expected answer
(`question` or MAST's `problem_statement`, `ground_truth` or `other_data.answer`)
go to the episode's metadata, so a diagnoser can compare the final answer with it.
Annotation fields a labelled set may carry (who erred, at which step; MAST's
`note`) are not read: they are the labels diagnoses are measured against.
"""

from __future__ import annotations

import json
import re
from typing import Any, Iterator

from taskforge.diagnosis.readers.base import CUT, SourceFile, load_json, segments_from_starts, text_of
from taskforge.schemas import Episode, InputError, Outcome

FORMAT = "group_chat"
HISTORY_KEYS = ("history", "chat_history", "messages", "trajectory")
EXECUTOR = re.compile(r"terminal|executor|code_?exec|computer", re.I)
PROXY = re.compile(r"proxy", re.I)
EXIT_CODE = re.compile(r"^\s*exitcode:\s*(-?\d+)")
TRACEBACK = re.compile(r"^Error:|Traceback \(most recent call last\)", re.M)
CODE_BLOCK = re.compile(r"```(python|py|sh|bash|shell)?[^\n]*\n(.*?)```", re.DOTALL)
CUT_HISTORY_KEYS = ("history", "chat_history", "trajectory")
"""History keys recognised even when their first message runs past the head (then named turns must show)."""
OUTCOME_KEYS = ("is_correct", "success", "resolved", "correct")


def sniff(source: SourceFile) -> bool:
    """A JSON object whose history holds named messages, or a JSON list of named messages."""
    raw = source.head()
    head = source.parsed_head
    if isinstance(head, dict):
        if any(head.get(k) is CUT for k in CUT_HISTORY_KEYS):
            return b'"name"' in raw and b'"role"' in raw
        messages = next((head[k] for k in HISTORY_KEYS if isinstance(head.get(k), list)), None)
    else:
        messages = head
    return isinstance(messages, list) and bool(messages) and _named(messages[0])


def _named(message: Any) -> bool:
    return isinstance(message, dict) and "content" in message and isinstance(message.get("name"), str)


def read(source: SourceFile) -> Iterator[Episode | InputError]:
    """The transcript as one episode."""
    data, digest = load_json(source)
    record = data if isinstance(data, dict) else {}
    messages = next((record[k] for k in HISTORY_KEYS if isinstance(record.get(k), list)), data)
    if not isinstance(messages, list) or not all(isinstance(m, dict) for m in messages):
        raise InputError(source.name, "not a group-chat transcript (no list of messages)")
    stem = source.name.rsplit("/", 1)[-1].split(".", 1)[0]
    task_id = str(record.get("question_ID") or record.get("task_id") or stem)
    other = record.get("other_data") if isinstance(record.get("other_data"), dict) else {}
    given = {"question": record.get("question") or text_of(record.get("problem_statement")) or None,
             "expected_answer": record.get("ground_truth", other.get("answer")), "level": record.get("level")}
    metadata = {key: str(value) for key, value in given.items() if value not in (None, "")}
    steps = steps_from_messages(messages)
    yield Episode(episode_id=f"{task_id}@{digest}", task_id=task_id, family="unknown", source_format=FORMAT,
                  source_file=source.name, steps=steps, segments=segments_from_starts([], len(steps)),
                  outcome=_outcome({**other, **record}), metadata=metadata)


def is_executor(message: dict[str, Any], before: dict[str, Any] | None) -> bool:
    """Whether a message is the code executor's reply rather than an agent's turn (a user proxy's only when the turn
    before it holds code)."""
    name = str(message.get("name") or "")
    if PROXY.search(name):
        return before is not None and bool(CODE_BLOCK.search(text_of(before.get("content"))))
    return bool(EXECUTOR.search(name)) or bool(EXIT_CODE.match(text_of(message.get("content"))))


def steps_from_messages(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Steps with actors: agents' turns (their executed code blocks as calls) and the executor's replies."""
    steps: list[dict[str, Any]] = []
    executors = [is_executor(message, messages[index - 1] if index else None) for index, message in enumerate(messages)]
    for index, message in enumerate(messages):
        content = text_of(message.get("content"))
        name = message.get("name")
        actor = str(name) if name else None
        if executors[index]:
            code = EXIT_CODE.match(content)
            failed = (bool(code and code.group(1) != "0") or "execution failed" in content[:200]
                      or not code and bool(TRACEBACK.search(content)))
            call_id = steps[-1]["tool_calls"][0]["id"] if steps and steps[-1].get("tool_calls") else None
            steps.append(dict(index=index, role="tool", content=content, tool_call_id=call_id, actor=actor,
                              is_error=failed, error=f"exit code {code.group(1)}" if failed and code else None))
            continue
        executed = index + 1 < len(messages) and executors[index + 1]
        calls = [dict(id=f"code-{index}-{k}", name=match.group(1) or "python",
                      arguments=json.dumps({"code": match.group(2)}))
                 for k, match in enumerate(CODE_BLOCK.finditer(content))] if executed else []
        role = message.get("role")
        if not actor and role in ("system", "user"):
            steps.append(dict(index=index, role=role, content=content))
        else:
            steps.append(dict(index=index, role="assistant", content=content, tool_calls=calls, actor=actor))
    return steps


def _outcome(record: dict[str, Any]) -> Outcome:
    """Graded by the file's own correctness field, else ungraded."""
    verdict = next((record[k] for k in OUTCOME_KEYS if isinstance(record.get(k), bool)), None)
    if verdict is None:
        return Outcome(success=False, graded=False, detail="no verdict recorded")
    return Outcome(score=1.0 if verdict else 0.0, success=verdict, failure_origin="none" if verdict else "model",
                   detail="correct" if verdict else "incorrect final answer")
