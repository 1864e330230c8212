"""Reading the graded part of a model's reply, however the model wraps it, and stating what is graded.

Models wrap answers: a ```json fence, a sentence before and after, bold
markers. Each reader takes the part of a reply its family's scorer grades and
leaves out the wrapping; what it cannot find reads as an empty answer (which
scores 0, as doing nothing does). Each reader also says, in one sentence, what
reply is graded, for prompts whose task does not state it itself (a workspace
task answered in one reply).

- `TextAnswer` (long-context, literature): fences and bold markers dropped, so
  the scorer finds the final 'Answer: …' line or the last JSON object; a JSON
  object `{"answer": …}` stands for that line when the reply has none.
- `FilesReply` (workflow): the last JSON object of the reply (deliverable path → file text).
- `CsvReply` (MLE): the submission CSV: the last fenced block that starts with the
  submission header, else the lines from the header's last occurrence to the first blank line.
- `DiffReply` (SWE): a unified diff: the last fenced block holding one, else the
  diff lines from the first diff header on.
"""

from __future__ import annotations

import json
import re
from typing import Any, Protocol

from taskforge.graders.literature.scorers import last_json_object
from taskforge.graders.mle.grading import prediction_columns

_FENCE = re.compile(r"^[ \t]*(```|~~~)[ \t]*([\w+.-]*)[ \t]*$")
_ANSWER_MARKER = re.compile(r"answer\s*:", re.IGNORECASE)
_DIFF_START = re.compile(r"^(diff --git |--- (a/|/dev/null))")
_DIFF_LINE = re.compile(r"^(diff |index |--- |\+\+\+ |@@|[+\- \\]|new file mode|deleted file mode|old mode|new mode|"
                        r"similarity index|dissimilarity index|rename from|rename to|copy from|copy to|Binary files)")


class ReplyReader(Protocol):
    """Takes the graded part out of a reply, and states the reply a task's grader grades."""

    def read(self, reply: str, grader: dict[str, Any]) -> str: ...

    def reply_format(self, grader: dict[str, Any]) -> str | None: ...


def fenced_blocks(reply: str) -> list[tuple[str, str]]:
    """The fenced code blocks of a reply as (language tag, body), in order; an unclosed fence runs to the end."""
    blocks, language, body, inside = [], "", [], False
    for line in reply.splitlines():
        fence = _FENCE.match(line)
        if fence and not inside:
            language, body, inside = fence[2].lower(), [], True
        elif fence and inside and not fence[2]:
            blocks.append((language, "\n".join(body)))
            inside = False
        elif inside:
            body.append(line)
    if inside:
        blocks.append((language, "\n".join(body)))
    return blocks


def unfenced(reply: str) -> str:
    """The reply with its fence lines removed (the blocks' content stays in place)."""
    return "\n".join(line for line in reply.splitlines() if not _FENCE.match(line))


def _answer_line(value: Any) -> str:
    """An `{"answer": …}` value written as the text after 'Answer:'."""
    if isinstance(value, list):
        return ", ".join(_answer_line(item) for item in value)
    if isinstance(value, dict):
        return "; ".join(f"{key}: {_answer_line(item)}" for key, item in value.items())
    return str(value)


class TextAnswer:
    """A final 'Answer: …' line or a JSON object, stated by the task's own prompt."""

    def read(self, reply: str, grader: dict[str, Any]) -> str:
        text = unfenced(reply).replace("**", "")
        if not _ANSWER_MARKER.search(text):
            found = last_json_object(text)
            if found is not None and set(found) == {"answer"}:
                return f"{text}\nAnswer: {_answer_line(found['answer'])}"
        return text

    def reply_format(self, grader: dict[str, Any]) -> str | None:
        return None


class FilesReply:
    """The files a workflow delivers, as one JSON object mapping each deliverable's path to the file's text."""

    def read(self, reply: str, grader: dict[str, Any]) -> str:
        found = last_json_object(reply)
        return json.dumps(found, sort_keys=True) if found is not None else ""

    def reply_format(self, grader: dict[str, Any]) -> str:
        paths = ", ".join(f'"{spec["path"]}": "<the complete text of the file>"' for spec in grader["deliverables"])
        return ("Graded reply: end your reply with one JSON object mapping each deliverable's path to the complete "
                f"text of that file, {{{paths}}}. A ```json fence around it and sentences before it are fine; only "
                "the last JSON object of the reply is graded.")


class CsvReply:
    """An MLE submission: the text of the submission CSV (the header is the grader's id and prediction columns)."""

    def _header(self, grader: dict[str, Any]) -> str:
        return ",".join([grader["id_column"], *prediction_columns(grader)])

    def read(self, reply: str, grader: dict[str, Any]) -> str:
        header = self._header(grader)
        for _, body in reversed(fenced_blocks(reply)):
            if body.lstrip().startswith(header):
                return body.strip() + "\n"
        lines = reply.splitlines()
        starts = [k for k, line in enumerate(lines) if line.strip().replace(" ", "") == header]
        if not starts:
            return reply
        block = []
        for line in lines[starts[-1]:]:
            if not line.strip() or _FENCE.match(line):
                break
            block.append(line.strip())
        return "\n".join(block) + "\n"

    def reply_format(self, grader: dict[str, Any]) -> str:
        return (f"Graded reply: end your reply with the complete text of your submission CSV: the header "
                f"`{self._header(grader)}`, then one row per test id. A ```csv fence around it and sentences "
                "before it are fine; only the CSV is graded.")


class DiffReply:
    """A SWE submission: a unified diff against the base commit."""

    def read(self, reply: str, grader: dict[str, Any]) -> str:
        for language, body in reversed(fenced_blocks(reply)):
            if language in ("diff", "patch") or any(_DIFF_START.match(line) for line in body.splitlines()):
                return diff_lines(body)
        return diff_lines(reply)

    def reply_format(self, grader: dict[str, Any]) -> str:
        return ("Graded reply: end your reply with your change as one unified diff against the base commit (the "
                "output of `git diff`). A ```diff fence around it and sentences before it are fine; only the diff "
                "is graded, by applying it and running the hidden tests.")


def diff_lines(text: str) -> str:
    """The unified diff in `text`: from its first diff header to the first line no diff holds, with a final newline
    (empty when there is no diff)."""
    lines = text.splitlines()
    start = next((k for k, line in enumerate(lines) if _DIFF_START.match(line)), None)
    if start is None:
        return ""
    kept = []
    for line in lines[start:]:
        if line and not _DIFF_LINE.match(line):
            break
        kept.append(line)
    while kept and not kept[-1]:
        kept.pop()
    return "\n".join(kept) + "\n"
