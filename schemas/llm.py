"""One call to an LLM role, as recorded for accounting: tokens, cost, status, against a stage and family."""

from __future__ import annotations

from typing import Literal

from taskforge.schemas.base import Record

CallStatus = Literal["ok", "invalid", "error", "too_long"]
"""`too_long`: the input did not fit the role's context window, even cut to the view made for the role."""


class LLMCall(Record):
    """What one role call cost and how it ended; never holds a key, header or endpoint URL.

    `call_id` is the content address of the call's first request (role, model,
    messages, schema, sampling parameters), so the same question asked twice
    has one id. Tokens and cost count what was billed: responses replayed
    from the cache add none. `view` names what was sent when the full input
    did not fit the role's window (None: the full input).
    """

    call_id: str
    cycle_id: str
    stage: str
    family: str
    subject: str
    purpose: str
    role: str
    model: str
    status: CallStatus
    requests: int
    replayed: int
    repairs: int
    tokens_in: int
    tokens_out: int
    cost_usd: float | None
    duration_s: float
    error: str | None = None
    view: str | None = None
