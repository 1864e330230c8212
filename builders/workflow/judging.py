"""The LLM judge of a workflow descendant: compared with its ancestor, in a call of its own.

The deterministic judge (`taskforge.validators.workflow.judge`) compares summaries;
this one reads both tasks (statement, reference deliverables, workflow) and
their input files, and its verdict is kept in the descendant's provenance for
the `review` check (its `evolution_judge` part). A descendant whose reference run failed is left
to the descendant check (there is nothing for the model to add), and one
the judge cannot be asked about (no endpoint, failed call) is not judged.
"""

from __future__ import annotations

from taskforge.agents.artifact import SourceText, built_by, with_provenance
from taskforge.agents.client import Agents
from taskforge.agents.judge import judge_evolution, judgement_record
from taskforge.schemas import Task

INPUT_CHARS = 20_000
"""How much of each input file the judge reads."""


def input_sources(parent: Task, child: Task) -> list[SourceText]:
    """The input files of both tasks: once where they agree, else the parent's and the candidate's."""
    before, after = parent.payload.get("inputs", {}), child.payload.get("inputs", {})
    sources = []
    for path in sorted(set(before) | set(after)):
        if before.get(path) == after.get(path):
            sources.append(SourceText(source_id=f"{path} (parent and candidate)", text=after[path][:INPUT_CHARS]))
            continue
        sources += [SourceText(source_id=f"{who}: {path}", text=files[path][:INPUT_CHARS])
                    for who, files in (("parent", before), ("candidate", after)) if path in files]
    return sources


def judged(parent: Task, child: Task, agents: Agents) -> Task:
    """The descendant with the judge's verdict in its provenance, where the judge could be asked."""
    if not child.reference.get("run", {}).get("ok") or agents.skip_reason("judge"):
        return child
    reply = judge_evolution(agents, parent, child, sources=input_sources(parent, child), built_by=built_by(child))
    return with_provenance(child, judgement=judgement_record(reply)) if reply.ok else child
