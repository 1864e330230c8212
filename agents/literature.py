"""Builder hook for the literature family: questions, ideal answers and key passages written from papers.

Every reply is held to the papers it was given: gold paper ids must be among
them and every key passage must be quoted verbatim from its paper; a question
that states its own answer is sent back. Given a `QuestionBrief`, the builder
rewrites a question computed from the collection instead: the rewrite must
keep its gold papers (so the computed answer stays right), state the phrases
the answer depends on, and leave out what would give the answer away.
"""

from __future__ import annotations

import re
from typing import Literal, Sequence

from pydantic import BaseModel, Field

from taskforge.agents.client import Agents, Reply

QuestionKind = Literal["find_papers", "select_evidence", "fulltext_qa", "table_synthesis"]
SYSTEM = (
    "You write research questions for training literature-search agents. Each question must be answerable from "
    "the given papers and need them: name the papers that answer it (gold paper ids) and quote, verbatim, the "
    "passages that support the answer. Do not put the answer in the question."
)
_KIND_GUIDE = {
    "find_papers": "Ask for the papers that report a specific finding; the ideal answer lists them.",
    "select_evidence": "Ask a question whose answer rests on a few specific passages among many.",
    "fulltext_qa": "Ask a question answered by details in the body of one paper, not its abstract.",
    "table_synthesis": "Ask for a comparison that needs values from several papers put side by side.",
}


class Paper(BaseModel):
    """A paper as the question writer reads it."""

    paper_id: str
    title: str
    text: str


class KeyPassage(BaseModel):
    """A verbatim passage of one paper that supports an answer."""

    paper_id: str
    text: str


class LiteratureQuestion(BaseModel):
    """One literature task's question, ideal answer, gold papers and key passages."""

    question: str
    ideal_answer: str
    gold_paper_ids: list[str] = Field(min_length=1)
    key_passages: list[KeyPassage] = Field(min_length=1)


class LiteratureQuestions(BaseModel):
    """The questions written from one set of papers."""

    questions: list[LiteratureQuestion] = Field(min_length=1)


def _normalised(text: str) -> str:
    """Text compared without case and with runs of whitespace as one space."""
    return re.sub(r"\s+", " ", text).strip().lower()


def question_problems(questions: LiteratureQuestions, papers: Sequence[Paper], count: int) -> list[str]:
    """Why a set of written questions does not hold to its papers (empty when it does)."""
    texts = {p.paper_id: _normalised(p.text) for p in papers}
    problems = [f"{len(questions.questions)} questions were written, at most {count} were asked for"] \
        if len(questions.questions) > count else []
    for n, q in enumerate(questions.questions, start=1):
        problems += [f"question {n}: unknown gold paper id {pid!r}" for pid in q.gold_paper_ids if pid not in texts]
        for passage in q.key_passages:
            if passage.paper_id not in q.gold_paper_ids:
                problems.append(f"question {n}: a key passage comes from {passage.paper_id!r}, not a gold paper")
            elif _normalised(passage.text) not in texts.get(passage.paper_id, ""):
                problems.append(f"question {n}: passage {passage.text[:60]!r} is not verbatim in {passage.paper_id}")
        if _normalised(q.ideal_answer) and _normalised(q.ideal_answer) in _normalised(q.question):
            problems.append(f"question {n}: the question states its own answer")
    return problems


class QuestionBrief(BaseModel):
    """A question computed from the collection, to be rewritten in natural words without changing its answer."""

    asks: str = Field(description="the computed question; the rewrite must ask exactly this")
    gold_paper_ids: list[str] = Field(min_length=1, description="the papers that answer it")
    keep: list[str] = Field(default_factory=list, description="phrases the rewrite must state verbatim")
    withhold: list[str] = Field(default_factory=list, description="strings the rewrite must not contain")


def brief_problems(questions: LiteratureQuestions, brief: QuestionBrief) -> list[str]:
    """Why rewritten questions do not keep to their brief (empty when they do)."""
    problems = []
    for n, q in enumerate(questions.questions, start=1):
        if sorted(set(q.gold_paper_ids)) != sorted(set(brief.gold_paper_ids)):
            problems.append(f"question {n}: its gold papers must stay {sorted(set(brief.gold_paper_ids))}")
        text = _normalised(q.question)
        problems += [f"question {n}: it must state {phrase!r} verbatim" for phrase in brief.keep
                     if _normalised(phrase) not in text]
        problems += [f"question {n}: it must not contain {word!r}" for word in brief.withhold
                     if _normalised(word) in text]
    return problems


def _brief_text(brief: QuestionBrief) -> str:
    """The rewriting instructions of a brief."""
    lines = ["Rewrite this question in natural words, as a researcher would ask it. It must ask exactly the same "
             f"thing, so that its answer stays the same (gold papers: {', '.join(brief.gold_paper_ids)}):",
             f"\n{brief.asks}\n"]
    if brief.keep:
        lines.append("State these phrases verbatim: " + "; ".join(f"“{p}”" for p in brief.keep) + ".")
    if brief.withhold:
        lines.append("Never write any of: " + "; ".join(f"“{w}”" for w in brief.withhold) + ".")
    return "\n".join(lines)


def write_literature_questions(agents: Agents, papers: Sequence[Paper], *, kind: QuestionKind, count: int,
                               subject: str, brief: QuestionBrief | None = None) -> Reply[LiteratureQuestions]:
    """Ask the builder for up to `count` questions of `kind` from `papers`; `subject` names the collection
    (or the task, when rewriting). With a `brief`, the builder rewrites that computed question instead.

    On `skipped` or `failed` the literature builder keeps its programmatic questions.
    """
    listing = "\n\n".join(f"## [{p.paper_id}] {p.title}\n\n{p.text}" for p in papers)
    task = _brief_text(brief) if brief else f"Write up to {count} question(s). {_KIND_GUIDE[kind]}"
    user = f"{task}\n\n# Papers\n\n{listing}"

    def check(reply: LiteratureQuestions) -> None:
        """The questions must hold to the papers they were written from (and to their brief)."""
        problems = question_problems(reply, papers, count) + (brief_problems(reply, brief) if brief else [])
        if problems:
            raise ValueError("; ".join(problems))

    return agents.ask("builder", SYSTEM, user, LiteratureQuestions, purpose="literature_questions",
                      family="literature", subject=subject, check=check)
