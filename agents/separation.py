"""Separation of roles: what builds a task never certifies it.

Reviewers and judges are handed the built artifact and its sources only (see
`taskforge.agents.artifact`); their functions take no conversation. Because the role is
part of every request's content address, a reviewer's request can never replay
a builder's answer. `ensure_independent` is the last guard: a certifying reply
must come from a certifying role and from a call other than the ones that built
the task.
"""

from __future__ import annotations

from typing import Collection

from taskforge.schemas import LLMCall, TaskforgeError

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
