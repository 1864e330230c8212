"""The judge model in long-context evolution: a solver that estimates easiness, and the judge of each child.

`JudgeModelSolver` answers a candidate as its solver would (through the
agents layer); its score joins the shallow solvers' in the success estimate,
and the `shortcut` check keeps it as recorded. A candidate longer than the
judge's window is sent as a view: every document cut to windows around the
facts it states (evidence and near-miss distractors alike, unmarked), the
question kept; the call records the view, and a candidate that fits in no view
is recorded as too long. `judge_child` asks the judge to compare a child with
its parent; it reads both tasks' questions, answers, evidence passages and
near-miss distractors (`taskforge.agents.material`), with their difficulty axes.
Where no endpoint is configured, the solver does not answer and no child is
judged: the shallow solvers and the answerability checks decide alone.
"""

from __future__ import annotations

from typing import Any, Callable

from taskforge.agents.judge import judge_evolution, judgement_record
from taskforge.agents.session import current_agents
from taskforge.agents.solve import answer_task
from taskforge.graders.long_context.prompting import user_message
from taskforge.schemas import Task
from taskforge.schemas.tokens import count_tokens

SOLVER_VIEW = "each document cut to windows around the facts it states (evidence and distractors, unmarked), " \
              "the question kept"
GAP = " […] "


class JudgeModelSolver:
    """The judge model as one more solver of the success estimate (None when it cannot answer)."""

    name = "judge_model"

    def solve(self, task: Task) -> str | None:
        """The judge model's answer to the task, or None when the role is skipped or its call failed."""
        agents = current_agents()
        if agents.skip_reason("judge"):
            return None
        reply = answer_task(agents, task, view=SOLVER_VIEW, cut=fact_windows(task))
        return reply.value.answer if reply.ok else None


def _widened(text: str, start: int, end: int, margin: int) -> tuple[int, int]:
    """A span widened by up to `margin` characters each side, ending at word boundaries."""
    low, high = max(start - margin, 0), min(end + margin, len(text))
    if low > 0:
        space = text.find(" ", low, start)
        low = space + 1 if space >= 0 else start
    if high < len(text):
        space = text.rfind(" ", end, high)
        high = space if space >= 0 else end
    return low, high


def _windows(text: str, spans: list[tuple[int, int]], margin: int) -> str:
    """The parts of `text` within `margin` characters of a span, merged where they touch, joined by `GAP`."""
    merged: list[list[int]] = []
    for start, end in sorted(spans):
        low, high = _widened(text, start, end, margin)
        if merged and low <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], high)
        else:
            merged.append([low, high])
    if not merged:
        return GAP.strip()
    lead = "" if merged[0][0] == 0 else GAP.lstrip()
    tail = "" if merged[-1][1] == len(text) else GAP.rstrip()
    return lead + GAP.join(text[low:high] for low, high in merged) + tail


def fact_windows(task: Task) -> Callable[[int], str]:
    """The solver's user turn in about `tokens` tokens: every document cut to windows around the facts it
    states (the hidden reference locates them), as wide as the budget allows, then the question."""
    documents, question = task.payload["documents"], task.payload["question"]
    spans: dict[str, list[tuple[int, int]]] = {}
    for fact in task.reference.get("facts", []):
        spans.setdefault(fact["doc_id"], []).append((fact["start"], fact["end"]))
    count = max(sum(map(len, spans.values())), 1)

    def cut(tokens: int) -> str:
        full = user_message(documents, question)
        room = tokens * len(full) / max(count_tokens(full), 1) - len(question) - sum(len(d["title"]) + 16 for d in documents)
        room -= sum(end - start for doc in spans.values() for start, end in doc) + len(GAP) * count
        margin = max(int(room / (2 * count)), 0)
        shown = [{**doc, "text": _windows(doc["text"], spans.get(doc["doc_id"], []), margin)} for doc in documents]
        return user_message(shown, question)

    return cut


def judge_child(parent: Task, child: Task) -> dict[str, Any] | None:
    """The judge's verdict on a child against its parent, as kept in provenance; None when not judged."""
    agents = current_agents()
    if agents.skip_reason("judge"):
        return None
    reply = judge_evolution(agents, parent, child)
    return judgement_record(reply) if reply.ok else None
