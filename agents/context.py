"""Context budgets: how many tokens an input takes, and views of an over-long input cut to fit a role's window.

Inputs are counted with the project's tokenizer (Qwen3.6, offline). A text of
no more UTF-8 bytes than the budget always fits (a byte-level BPE token is at
least one byte), so short inputs are never tokenized. An input that may not
fit is given as a `Fit`: its full text, and how to cut it to a token budget
(`cut`), under a name that says what the cut keeps (`view`). The client sends
the full text when it fits and the cut view when it does not, records which,
and records "too long for the window" when even the view does not fit.

`fit_parts` is the usual cut: some parts are kept whole (headings, the
question, the answer), the others share what is left of the budget, each
long one keeping its head and tail around a marker that says what was cut
("[… 356 of 396 lines cut …]").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Literal, Sequence

from taskforge.schemas.tokens import count_tokens

MESSAGE_OVERHEAD_TOKENS = 8
"""What the chat template adds around each message (role markers, separators)."""
HEAD_SHARE = 0.6
"""The share of a cut part's room given to its head (the rest goes to its tail)."""
MIN_PART_CHARS = 200


def token_count(text: str, budget: int | None = None) -> int:
    """The tokens `text` takes; with a `budget`, a text of at most `budget` bytes is not tokenized (its byte
    count, an upper bound, is returned)."""
    size = len(text.encode("utf-8"))
    if budget is not None and size <= budget:
        return size
    return count_tokens(text)


def messages_tokens(messages: Sequence[str], budget: int | None = None) -> int:
    """The tokens a conversation of `messages` takes, template overhead included (see `token_count`)."""
    overhead = MESSAGE_OVERHEAD_TOKENS * (len(messages) + 1)
    room = None if budget is None else budget - overhead
    return overhead + token_count("".join(messages), room)


@dataclass(frozen=True)
class Fit:
    """An input that may be cut: `full` when it fits, else `cut(tokens)`, at most about `tokens` tokens,
    which keeps what `view` says (e.g. "head and tail of each step, the question kept")."""

    full: str
    view: str
    cut: Callable[[int], str]


@dataclass(frozen=True)
class Part:
    """One part of an input: kept whole (`keep`), or cut in the middle by characters or by whole lines."""

    text: str
    keep: bool = False
    unit: Literal["chars", "lines"] = "chars"


def cut_middle(text: str, max_chars: int, unit: Literal["chars", "lines"] = "chars") -> str:
    """`text` in about `max_chars` characters: its head and tail around a marker saying what was cut. By lines,
    whole lines are kept (the first line, a table's header, always)."""
    if len(text) <= max_chars:
        return text
    if unit == "lines":
        return _cut_lines(text, max_chars)
    head_chars = int(max_chars * HEAD_SHARE)
    tail_chars = max(max_chars - head_chars, 0)
    head = text[:head_chars]
    head = head[: head.rfind(" ")] if " " in head[head_chars // 2:] else head
    tail = text[len(text) - tail_chars:] if tail_chars else ""
    tail = tail[tail.find(" ") + 1:] if " " in tail[: tail_chars // 2] else tail
    cut = len(text) - len(head) - len(tail)
    return f"{head}\n[… {cut:,} of {len(text):,} characters cut …]\n{tail}"


def _cut_lines(text: str, max_chars: int) -> str:
    """Whole lines from the head and the tail around a marker counting the lines cut."""
    lines = text.splitlines()
    front, back = 1, len(lines)
    room = max_chars * HEAD_SHARE - len(lines[0])
    while front < back and len(lines[front]) < room:
        room -= len(lines[front]) + 1
        front += 1
    room = max_chars * (1 - HEAD_SHARE)
    while back > front and len(lines[back - 1]) < room:
        room -= len(lines[back - 1]) + 1
        back -= 1
    if back == front:
        return text
    return "\n".join([*lines[:front], f"[… {back - front:,} of {len(lines):,} lines cut …]", *lines[back:]])


def fit_parts(parts: Sequence[Part], tokens: int, joiner: str = "\n\n") -> str:
    """The parts joined, those not kept cut so the whole takes about `tokens` tokens: every cut part gets the
    same room (short ones stay whole and leave theirs to the others)."""
    full = joiner.join(p.text for p in parts)
    chars_per_token = len(full) / max(count_tokens(full), 1)
    room = int(tokens * chars_per_token) - sum(len(p.text) for p in parts if p.keep) - len(joiner) * len(parts)
    lengths = sorted(len(p.text) for p in parts if not p.keep)
    cap = _water_level(lengths, max(room, 0))
    return joiner.join(p.text if p.keep else cut_middle(p.text, max(cap, MIN_PART_CHARS), p.unit) for p in parts)


def _water_level(lengths: list[int], room: int) -> int:
    """The largest cap such that the lengths, each capped, add up to at most `room` (lengths sorted)."""
    left = len(lengths)
    for length in lengths:
        share = room // left
        if length > share:
            return share
        room -= length
        left -= 1
    return max(lengths, default=0)
