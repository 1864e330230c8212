"""The LLM judge of a workflow descendant: compared with its ancestor, in a call of its own.

The deterministic judge (`taskforge.validators.workflow.descendant`) compares summaries;
this one reads what evolution changed (with a diff of every changed input) and
the descendant in full (statement, grading, reference workflow and deliverables,
inputs), and its verdict is kept in the descendant's provenance for
the `review` check (its `evolution_judge` part). A descendant whose reference run failed is left
to the descendant check (there is nothing for the model to add), and one
the judge cannot be asked about (no endpoint, failed call) is not judged.
"""

from __future__ import annotations

from taskforge.agents.artifact import built_by, with_provenance
from taskforge.agents.client import Agents
from taskforge.agents.judge import judge_evolution, judgement_record
from taskforge.schemas import Task


def judged(parent: Task, child: Task, agents: Agents) -> Task:
    """The descendant with the judge's verdict in its provenance, where the judge could be asked."""
    if not child.reference.get("run", {}).get("ok") or agents.skip_reason("judge"):
        return child
    reply = judge_evolution(agents, parent, child, built_by=built_by(child))
    return with_provenance(child, judgement=judgement_record(reply)) if reply.ok else child
