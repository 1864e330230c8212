"""Episodes read from evaluation traces: the steps an agent took and how the episode ended."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from taskforge.schemas.base import JsonDict, Record

Family = Literal["literature", "swe", "mle", "long_context", "workflow", "unknown"]
Role = Literal["system", "user", "assistant", "tool"]
FailureOrigin = Literal["none", "model", "infrastructure"]


class ToolCall(Record):
    """A tool call the model made; arguments are kept as the JSON string it emitted."""

    id: str = ""
    name: str
    arguments: str = "{}"


class Step(Record):
    """One message of an episode, in order, with the segment it belongs to."""

    index: int
    segment: int = 0
    role: Role
    content: str = ""
    tool_calls: list[ToolCall] = Field(default_factory=list)
    tool_call_id: str | None = None
    is_error: bool = False
    error: str | None = None
    actor: str | None = None
    """Who acted: the agent's name in a multi-agent transcript (e.g. `Excel_Expert`, `Computer_terminal`)."""


class Segment(Record):
    """A contiguous run of steps; a compacted history keeps each context window as a segment."""

    index: int
    start_step: int
    end_step: int
    summary: str | None = None


class HarnessTests(Record):
    """What an evaluation harness reported about the tests that decide a task (SWE-bench's `tests_status`):
    the tests the fix had to make pass (`fail_to_pass`) and those it had to keep passing (`pass_to_pass`),
    each split into those that passed and those that failed after the patch."""

    fail_to_pass_failed: list[str] = Field(default_factory=list)
    fail_to_pass_passed: list[str] = Field(default_factory=list)
    pass_to_pass_failed: list[str] = Field(default_factory=list)
    pass_to_pass_passed: list[str] = Field(default_factory=list)
    patch_applied: bool | None = None
    """False when the harness could not apply the submitted patch (then no test ran)."""

    @property
    def failing(self) -> list[str]:
        """Every test that failed after the patch."""
        return [*self.fail_to_pass_failed, *self.pass_to_pass_failed]


class Outcome(Record):
    """How an episode ended: its score, success, and whose failure it was.

    `graded` is False when the trace holds no verdict (e.g. a patch was submitted
    but never evaluated): such an episode is read and stored, but neither counted
    as a success nor diagnosed as a capability failure; `failure_origin` is then
    "none" unless the run itself broke. `tests` holds the harness's per-test
    results when the verdict came with them.
    """

    score: float | None = None
    success: bool
    failure_origin: FailureOrigin = "none"
    detail: str | None = None
    graded: bool = True
    tests: HarnessTests | None = None


class TokenRecord(Record):
    """Token-level fields a trace carried, passed through untouched to the trainer."""

    tokenizer: str | None = None
    prompt_ids: list[int] = Field(default_factory=list)
    response_ids: list[int] = Field(default_factory=list)
    loss_mask: list[int] = Field(default_factory=list)
    rollout_logprobs: list[float] = Field(default_factory=list)


class Episode(Record):
    """One evaluated attempt at one task, as read from any trace format."""

    episode_id: str
    task_id: str
    family: Family = "unknown"
    source_format: str
    source_file: str
    steps: list[Step]
    segments: list[Segment]
    outcome: Outcome
    tokens: list[TokenRecord] = Field(default_factory=list)
    metadata: JsonDict = Field(default_factory=dict)
