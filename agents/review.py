"""The reviewer: does a built task hold up? (A second opinion after the deterministic checks.)

Each reviewed family has its own prompt saying what to verify and its own
material to verify it with (`taskforge.agents.material`): a long-context
reviewer reads the quoted evidence and the near-miss facts beside it, a
workflow reviewer reads the reference workflow's code and the grader's
tolerances. (What the builder writes for the other families is reviewed
where it is written: `literature`, `mle` and `swe` in this package.)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Collection

from taskforge.agents import material
from taskforge.agents.client import Agents, Reply
from taskforge.agents.context import Fit
from taskforge.agents.separation import certify
from taskforge.agents.verdicts import SEVERITY, Review, review_model
from taskforge.schemas import Task, TaskforgeError

LONG_CONTEXT_SYSTEM = (
    "You review a long-context question-answering task that someone else built: a question over a collection of "
    "documents, with a hidden reference answer. You are shown the question, the reference answer, the evidence "
    "passages the answer rests on (quoted, with their place), the other facts the documents state — near-miss "
    "distractors among them, written to resemble the evidence — and the documents themselves. Verify that the "
    "evidence passages establish the reference answer exactly as the question asks for it; that no distractor, "
    "nor anything else in the documents, makes another answer defensible (a distractor that states the asked "
    "fact about the asked item would); and that the question does not state or give away its answer. "
    f"{SEVERITY}"
)
WORKFLOW_SYSTEM = (
    "You review a professional workflow task that someone else built: instructions and input files for a "
    "solver, a hidden reference workflow whose outputs are the reference deliverables, and a grader that "
    "compares each deliverable with the reference within stated tolerances. Your main job: verify that the "
    "instructions and the input files determine every value the reference computes, to within the grader's "
    "tolerances. Read the reference workflow's code and look for every choice it makes that the instructions do "
    "not state — rounding and when it happens, filters, tie-breaking, units, how missing or malformed values are "
    "treated, inclusive or exclusive bounds, row order where rows are compared in order — and decide whether a "
    "careful analyst following the instructions would compute a value outside the tolerance. Verify too that "
    "every graded deliverable's file name, format and columns or fields are stated, and that nothing the solver "
    f"sees states the reference values. {SEVERITY}"
)

LongContextReview = review_model("LongContextReview", "The reviewer's verdict on a long-context task.", {
    "answer_supported": "the quoted evidence passages establish the reference answer, exactly as asked",
    "unambiguous": "no near-miss distractor nor anything else in the documents makes another answer defensible",
    "answer_hidden": "the question does not state or give away the answer",
})
WorkflowReview = review_model("WorkflowReview", "The reviewer's verdict on a workflow task.", {
    "values_determined": "the instructions and input files determine every value the reference computes, within "
                         "the grader's tolerances",
    "deliverables_specified": "every graded deliverable's file name, format and columns or fields are stated",
    "answer_hidden": "nothing the solver sees states the reference values",
})


@dataclass(frozen=True)
class ReviewSpec:
    """How one family is reviewed: the prompt, the verdict's schema, and the material shown."""

    system: str
    model: type[Review]
    material: Callable[[Task], Fit]


SPECS: dict[str, ReviewSpec] = {
    "long_context": ReviewSpec(LONG_CONTEXT_SYSTEM, LongContextReview, material.long_context_review),
    "workflow": ReviewSpec(WORKFLOW_SYSTEM, WorkflowReview, material.workflow_review),
}
"""The families whose built tasks the reviewer checks, each with its prompt, verdict and material."""


def review_task(agents: Agents, task: Task, *, built_by: Collection[str] = ()) -> Reply[Review]:
    """Ask the reviewer about a built task, with its family's prompt and material. `built_by` lists the call
    ids of the LLM calls that built the task: a review from one of them is refused (`RoleSeparationError`)."""
    spec = SPECS.get(task.family)
    if spec is None:
        raise TaskforgeError(f"no reviewer prompt for {task.family} tasks (reviewed: {', '.join(SPECS)})")
    return certify(agents, "reviewer", spec.system, spec.material(task), spec.model, purpose="review",
                   family=task.family, subject=task.task_id, built_by=built_by)
