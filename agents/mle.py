"""MLE hooks: the builder writes a competition description from the data facts; the reviewer checks it.

The writer gets the facts the template is written from (files and sizes,
columns, target, metric, submission format, notes) and must state the
phrases a participant cannot do without, verbatim. The reviewer, in a call of
its own, sees the description and the facts only, never the writer's
messages, and rejects a description the facts contradict or do not support.
"""

from __future__ import annotations

import json
from typing import Any, Collection, Sequence

from pydantic import BaseModel, Field

from taskforge.agents.client import Agents, Reply
from taskforge.agents.separation import certify
from taskforge.agents.verdicts import SEVERITY, Review, review_model

WRITER_SYSTEM = (
    "You write the description of a machine-learning competition for its participants, in Markdown, from the facts "
    "of its dataset and split. Say what to predict, describe the files and columns, explain the evaluation metric "
    "and the submission format. State only what the facts support: no invented columns, sizes or results, and "
    "nothing about the hidden test labels."
)
REVIEWER_SYSTEM = (
    "You review the description of a machine-learning competition that someone else wrote from the facts of its "
    "dataset. Check every statement against the facts: sizes, columns, target and classes, the metric and whether "
    "lower is better, the submission format. A statement the facts contradict or do not support, a missing piece "
    "a participant needs (what to predict, the files, the metric, the submission format), or anything revealed "
    f"about the hidden test labels is a blocking issue; wording and style are minor. {SEVERITY}"
)


class CompetitionDescription(BaseModel):
    """A competition description written by the builder."""

    markdown: str = Field(min_length=1, description="the whole description, in Markdown")


DescriptionReview = review_model("DescriptionReview", "The reviewer's verdict on a competition description.", {
    "consistent": "every statement agrees with the facts",
    "complete": "it states what to predict, the files, the metric and the submission format",
    "labels_hidden": "it reveals nothing about the hidden test labels",
})


def _facts_text(facts: dict[str, Any]) -> str:
    """The facts as the writer and the reviewer read them."""
    return json.dumps(facts, indent=1, sort_keys=True, ensure_ascii=False, default=str)


def write_mle_description(agents: Agents, facts: dict[str, Any], *, must_state: Sequence[str],
                          subject: str) -> Reply[CompetitionDescription]:
    """Ask the builder for a description of the competition `subject` that states every phrase of
    `must_state` verbatim. On `skipped` or `failed` the MLE builder keeps its templated description."""
    user = (f"# Facts\n\n```json\n{_facts_text(facts)}\n```\n\nState each of these verbatim somewhere in the "
            "description: " + "; ".join(f"`{p}`" for p in must_state) + ".")

    def check(reply: CompetitionDescription) -> None:
        """The description must state what a participant cannot do without."""
        missing = [p for p in must_state if p not in reply.markdown]
        if missing:
            raise ValueError("the description must state verbatim: " + "; ".join(repr(p) for p in missing))

    return agents.ask("builder", WRITER_SYSTEM, user, CompetitionDescription, purpose="mle_description",
                      family="mle", subject=subject, check=check)


def review_mle_description(agents: Agents, description: str, facts: dict[str, Any], *, subject: str,
                           built_by: Collection[str] = ()) -> Reply[Review]:
    """Ask the reviewer whether `description` holds to `facts`; `built_by` lists the call ids that wrote
    it, and a review from one of them is refused (`RoleSeparationError`)."""
    user = f"# Description\n\n{description}\n\n# Facts\n\n```json\n{_facts_text(facts)}\n```"
    return certify(agents, "reviewer", REVIEWER_SYSTEM, user, DescriptionReview, purpose="review", family="mle",
                   subject=subject, built_by=built_by)
