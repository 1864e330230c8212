"""Verdicts: what a certifying role answers, reasoning first, cross-checked against its own parts.

Every review is one model made by `review_model`: `analysis` (the reviewer's
reasoning, written before anything it decides), one boolean per thing to
verify, the issues found (each `blocking` or `minor`), and the verdict last.
The parts must agree, or the reply is sent back for repair: a reject names
at least one blocking issue (a minor issue never rejects), an accept has no
blocking issue and every check true.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field, create_model, model_validator

SEVERITY = ("List every problem in `issues`, each `blocking` (the work must not be used as it is) or `minor` (worth "
            "fixing, not a reason to reject); reject exactly when a blocking issue is listed. Write your analysis "
            "first, then the checks, the issues and the verdict.")
"""What every review prompt says about the verdict's parts."""
ANALYSIS = Field(description="your reasoning, written first: go through each point to verify against the material "
                             "shown, quoting what decides it")


class ReviewIssue(BaseModel):
    """One problem a reviewer found."""

    severity: Literal["blocking", "minor"] = Field(
        description="blocking: the work must not be used as it is; minor: worth fixing, not a reason to reject")
    problem: str = Field(min_length=1, description="what is wrong, in one sentence, citing the material")


class Review(BaseModel):
    """The base of every review: the checks, issues and verdict of a `review_model` must agree."""

    @property
    def checks(self) -> dict[str, bool]:
        """Each check of this review and its answer."""
        return {name: value for name, value in self.__dict__.items() if isinstance(value, bool)}

    @property
    def blocking(self) -> list[str]:
        """The blocking issues, one sentence each."""
        return [issue.problem for issue in getattr(self, "issues") if issue.severity == "blocking"]

    @property
    def accepted(self) -> bool:
        """Whether the reviewer accepts the work."""
        return getattr(self, "verdict") == "accept"

    def rejection(self) -> str:
        """Why the reviewer rejects the work (its blocking issues), in one line."""
        return "; ".join(self.blocking)

    @model_validator(mode="after")
    def _parts_agree(self) -> "Review":
        """The verdict must follow from the checks and the issues."""
        failed = [name for name, value in self.checks.items() if not value]
        if not self.accepted and not self.blocking:
            raise ValueError("a reject must name at least one blocking issue (minor issues never reject: "
                             "accept with them, or mark the problem that rejects as blocking)")
        if self.accepted and self.blocking:
            raise ValueError("an accept cannot have blocking issues: reject, or mark them minor")
        if self.accepted and failed:
            raise ValueError(f"an accept needs every check true, but {', '.join(failed)} is false: reject with a "
                             "blocking issue for each failed check, or correct the check")
        return self


def review_model(name: str, doc: str, checks: dict[str, str]) -> type[Review]:
    """A review model named `name`: `analysis`, then one boolean per entry of `checks` (name → what it verifies),
    then `issues`, then `verdict`, in that order."""
    fields: dict[str, Any] = {"analysis": (str, ANALYSIS)}
    fields |= {check: (bool, Field(description=what)) for check, what in checks.items()}
    fields["issues"] = (list[ReviewIssue], Field(description="every problem found (an empty list when there is "
                                                             "none)"))
    fields["verdict"] = (Literal["accept", "reject"], Field(description="reject exactly when a blocking issue "
                                                                        "is listed"))
    return create_model(name, __base__=Review, __doc__=doc, **fields)
