"""Separation of roles: what builds a task never certifies it.

Reviewers and judges are handed the built artifact and its sources only (see
`taskforge.agents.material`); their functions take no conversation. Because the role is
part of every request's content address, a reviewer's request can never replay
a builder's answer. `ensure_independent` is the last guard: a certifying reply
must come from a certifying role and from a call other than the ones that built
the task. Every reviewer and judge call goes through `certify`, which applies it.
"""

from __future__ import annotations

from typing import Collection, TypeVar

from pydantic import BaseModel

from taskforge.agents.client import Agents, Reply
from taskforge.agents.context import Fit
from taskforge.schemas import LLMCall, TaskforgeError

M = TypeVar("M", bound=BaseModel)

CERTIFYING_ROLES = frozenset({"reviewer", "judge"})


class RoleSeparationError(TaskforgeError):
    """A certification came from the builder or from the very call that built the task."""


def ensure_independent(call: LLMCall, built_by: Collection[str]) -> None:
    """Refuse a certification made by a non-certifying role or by one of the build calls `built_by`."""
    if call.role not in CERTIFYING_ROLES:
        raise RoleSeparationError(f"a {call.role} call cannot certify a task; "
                                  f"only {', '.join(sorted(CERTIFYING_ROLES))} can")
    if call.call_id in set(built_by):
        raise RoleSeparationError(f"call {call.call_id} built this task and cannot also certify it")


def certify(agents: Agents, role: str, system: str, user: str | Fit, model: type[M], *, purpose: str, family: str,
            subject: str, built_by: Collection[str]) -> Reply[M]:
    """Ask a certifying `role` (see `Agents.ask`), refusing a reply that came from one of the calls `built_by`."""
    reply = agents.ask(role, system, user, model, purpose=purpose, family=family, subject=subject)
    if reply.call is not None:
        ensure_independent(reply.call, built_by)
    return reply
