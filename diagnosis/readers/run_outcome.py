"""How an agent run that ends in a submission (a patch, an answer) ended, from its exit status.

SWE-agent, mini-swe-agent and OpenHands record why a run stopped and what it
submitted, but not whether the submission was right: that verdict comes from a
later evaluation which only some traces carry. Exit statuses that mean the
harness broke (API, environment, timeouts) make the failure the infrastructure's;
the rest (cost, context, format, forfeit, step limits) are the model's.
"""

from __future__ import annotations

import re

from taskforge.schemas import Outcome

TIMEOUT_EXITS = {"exit_command_timeout", "exit_total_execution_time", "timeexceeded"}
INFRASTRUCTURE_EXITS = TIMEOUT_EXITS | {"exit_api", "exit_environment_error", "exit_error"}
MODEL_EXITS = {"submitted", "exit_cost", "exit_context", "exit_format", "exit_forfeit", "early_exit",
               "limitsexceeded", "formaterror", "repeatedformaterror", "userinterruption", "exit_command"}
_WRAPPED = re.compile(r"^submitted \((?P<reason>[^)]+)\)$")


def exit_reason(exit_status: str | None) -> str:
    """The reason behind an exit status, lower-cased: `submitted (exit_cost)` → `exit_cost`."""
    status = (exit_status or "").strip()
    match = _WRAPPED.match(status)
    return (match.group("reason") if match else status).lower()


def is_infrastructure_exit(exit_status: str | None) -> bool:
    """Whether the run stopped because the harness, API or environment failed (unknown exceptions included)."""
    reason = exit_reason(exit_status)
    return reason in INFRASTRUCTURE_EXITS or (bool(reason) and reason not in MODEL_EXITS)


def run_outcome(exit_status: str | None, submission: str | None, resolved: bool | None = None,
                note: str | None = None) -> Outcome:
    """The outcome of a run from its exit status, its submission and, when evaluated, the verdict.

    `note` (e.g. the error message a harness recorded) is appended to the detail.
    """
    status = exit_status or "unknown"
    if note:
        status = f"{status} [{note.strip().splitlines()[0][:200]}]"
    infrastructure = is_infrastructure_exit(exit_status)
    tag = " (timeout)" if exit_reason(exit_status) in TIMEOUT_EXITS else ""
    if resolved is not None:
        origin = "none" if resolved else ("infrastructure" if infrastructure else "model")
        return Outcome(score=1.0 if resolved else 0.0, success=bool(resolved), failure_origin=origin,
                       detail=f"{status}{tag}: evaluated, {'resolved' if resolved else 'not resolved'}")
    if (submission or "").strip():
        return Outcome(score=None, success=False, graded=False,
                       failure_origin="infrastructure" if infrastructure else "none",
                       detail=f"{status}{tag}: submitted, not evaluated")
    return Outcome(score=0.0, success=False, failure_origin="infrastructure" if infrastructure else "model",
                   detail=f"{status}{tag}: no submission")
