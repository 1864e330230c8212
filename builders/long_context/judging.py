"""The judge model in long-context evolution: a solver that estimates easiness, and the judge of each child.

`JudgeModelSolver` answers a candidate as its solver would (through the
agents layer); its score joins the shallow solvers' in the success estimate,
and the `shortcut` check keeps it as recorded. `judge_child` asks the judge to
compare a child with its parent; both are shown with their documents cut down
to the evidence passages the reference rests on (two full contexts of up to
128K tokens would not fit a judge's window), with their difficulty axes.
Where no endpoint is configured, the solver does not answer and no child is
judged: the shallow solvers and the answerability checks decide alone.
"""

from __future__ import annotations

import json
from typing import Any

from taskforge.agents.artifact import SourceText
from taskforge.agents.judge import judge_evolution, judgement_record
from taskforge.agents.session import current_agents
from taskforge.agents.solve import answer_task
from taskforge.builders.long_context.prompting import QUESTION_SEPARATOR
from taskforge.schemas import Message, Task


class JudgeModelSolver:
    """The judge model as one more solver of the success estimate (None when it cannot answer)."""

    name = "judge_model"

    def solve(self, task: Task) -> str | None:
        """The judge model's answer to the task, or None when the role is skipped or its call failed."""
        agents = current_agents()
        if agents.skip_reason("judge"):
            return None
        reply = answer_task(agents, task)
        return reply.value.answer if reply.ok else None


def evidence_view(task: Task) -> Task:
    """The task with its documents replaced by the evidence passages its reference rests on."""
    texts = {doc["doc_id"]: doc["text"] for doc in task.payload["documents"]}
    passages = [f"- [{span['doc_id']} {span['start']}:{span['end']}] {texts[span['doc_id']][span['start']:span['end']]}"
                for span in task.payload["evidence"]]
    shown = (f"(The {len(texts)} documents, {task.payload['context_tokens']} tokens in all, are cut here to the "
             f"evidence passages the reference rests on.)\n\n" + "\n".join(passages))
    user = Message(role="user", content=shown + QUESTION_SEPARATOR + task.payload["question"])
    prompt = [user if m.role == "user" else m for m in task.prompt]
    return task.model_copy(update={"prompt": prompt})


def judge_child(parent: Task, child: Task) -> dict[str, Any] | None:
    """The judge's verdict on a child against its parent, as kept in provenance; None when not judged."""
    agents = current_agents()
    if agents.skip_reason("judge"):
        return None
    axes = [SourceText(source_id=f"{name}: difficulty axes",
                       text=json.dumps(task.payload["difficulty"], sort_keys=True))
            for name, task in (("parent", parent), ("candidate", child))]
    reply = judge_evolution(agents, evidence_view(parent), evidence_view(child), sources=axes)
    return judgement_record(reply) if reply.ok else None
