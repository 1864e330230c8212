"""What a check is: one contract, applied to the tasks it concerns, returning one result; and the two
results that say a check did not judge a task (not applicable, or skipped), each with why."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from taskforge.schemas import (NOT_APPLICABLE, SKIPPED, InfrastructureError, Task, TaskforgeError,
                               ValidationResult)
from taskforge.schemas.locations import Location

if TYPE_CHECKING:
    from taskforge.agents.client import Agents


class Check(Protocol):
    """A validator with one contract (no-op, reference, leakage …), or one part of a family's strategy."""

    name: str

    def applies_to(self, task: Task) -> bool: ...

    def run(self, task: Task) -> ValidationResult: ...


@dataclass(frozen=True)
class CheckContext:
    """What checks may read besides the task: the data dir (collection snapshots, registered evaluation
    sets) and the LLM roles of the run (None: no endpoint in this run)."""

    data_dir: Location | None = None
    agents: Agents | None = None


def timed(check: Check, task: Task) -> ValidationResult:
    """Run a check and record how long it took."""
    started = time.perf_counter()
    result = check.run(task)
    return result.model_copy(update={"duration_s": round(time.perf_counter() - started, 6)})


def guarded(check: Check, task: Task) -> ValidationResult:
    """Run a check, timed; a check that crashes fails with the error.

    An infrastructure failure (a sandbox engine gone …) is not the task's fault: it is raised, for the
    batch to be retried, never turned into a failure.
    """
    try:
        return timed(check, task)
    except InfrastructureError:
        raise
    except (TaskforgeError, KeyError, TypeError, ValueError) as exc:
        return ValidationResult(check=check.name, passed=False,
                                reason=f"check failed to run: {type(exc).__name__}: {exc}")


def not_applicable(check: str, why: str) -> ValidationResult:
    """A passing result that says the check does not apply (`why`: "not applicable to …: …"), never a silent
    pass."""
    return ValidationResult(check=check, passed=True, reason=why, detail={NOT_APPLICABLE: why})


def skipped(check: str, why: str) -> ValidationResult:
    """A passing result that says the check could not run here (`why`: "skipped: …")."""
    return ValidationResult(check=check, passed=True, reason=why, detail={SKIPPED: why})
