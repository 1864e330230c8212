"""Literature hooks: the builder rewrites a computed question in natural words; the reviewer checks the rewrite.

Every literature question is computed from the collection first, so its
answer (the gold papers) is fixed; the builder is asked only for the words.
It is told what the question must keep (phrases stated verbatim) and what it
must never write (the gold papers' ids and titles, the answer), and returns
the question alone: it is never asked to name the gold papers, so nothing it
is asked for conflicts with what it must leave out. A rewrite that drops a
phrase or writes a withheld one is sent back. The reviewer, in a call of its
own, checks the one thing the builder cannot check for itself: does the
rewrite ask exactly what the computed question asks?
"""

from __future__ import annotations

import re
from typing import Collection, Sequence

from pydantic import BaseModel, Field

from taskforge.agents.client import Agents, Reply
from taskforge.agents.context import Part
from taskforge.agents.material import parts_fit
from taskforge.agents.separation import certify
from taskforge.agents.verdicts import SEVERITY, Review, review_model

WRITER_SYSTEM = (
    "You rewrite literature-search questions. Each question was computed from a paper collection, and its answer "
    "— the set of papers that answer it — is fixed. Rewrite it in natural words, as a researcher would ask it, so "
    "that it still asks exactly the same thing: the same papers, and only they, must answer it. Keep every "
    "condition (topic, anchor paper, period, the value asked about), state verbatim each phrase you are given to "
    "keep, and never write anything you are told to leave out: those name the answer."
)
REVIEWER_SYSTEM = (
    "You review a rewritten literature-search question. The original question was computed from a paper "
    "collection and its answer — the gold papers — is fixed; someone else rewrote it in natural words. Your main "
    "job: verify that the rewrite asks exactly what the computed question asks, so that the gold papers, and only "
    "they, answer it. Look for a condition added, dropped, loosened or tightened (topic, anchor paper, period, "
    "value), a changed scope (one paper or several, all or some), and wording that another paper shown would "
    "also satisfy. Verify too that the rewrite does not name or hint at the gold papers or the answer, and that "
    f"a researcher can tell what is asked without seeing the computed question. {SEVERITY}"
)


class Paper(BaseModel):
    """A paper as the writer and the reviewer read it."""

    paper_id: str
    title: str
    text: str


class QuestionBrief(BaseModel):
    """A question computed from the collection, to be rewritten in natural words without changing its answer."""

    asks: str = Field(description="the computed question; the rewrite must ask exactly this")
    gold_paper_ids: list[str] = Field(min_length=1, description="the papers that answer it")
    keep: list[str] = Field(default_factory=list, description="phrases the rewrite must state verbatim")
    withhold: list[str] = Field(default_factory=list, description="strings the rewrite must not contain")


class QuestionRewrite(BaseModel):
    """A computed question in natural words."""

    question: str = Field(min_length=1, description="the rewritten question, as the researcher would ask it")


RewriteReview = review_model("RewriteReview", "The reviewer's verdict on a rewritten literature question.", {
    "same_question": "the rewrite asks exactly what the computed question asks: the gold papers, and only they, "
                     "answer it",
    "answer_hidden": "the rewrite does not name or hint at the gold papers or the answer",
    "clear": "a researcher can tell what is asked without seeing the computed question",
})


def _normalised(text: str) -> str:
    """Text compared without case and with runs of whitespace as one space."""
    return re.sub(r"\s+", " ", text).strip().lower()


def rewrite_problems(rewrite: QuestionRewrite, brief: QuestionBrief) -> list[str]:
    """Why a rewrite does not keep to its brief (empty when it does)."""
    text = _normalised(rewrite.question)
    problems = [f"it must state {phrase!r} verbatim" for phrase in brief.keep if _normalised(phrase) not in text]
    problems += [f"it must not contain {word!r}" for word in brief.withhold if _normalised(word) in text]
    return problems


def _papers(papers: Sequence[Paper], gold: Collection[str]) -> list[Part]:
    """A heading and one part per paper, the gold ones marked."""
    return [Part("# Papers", keep=True),
            *(Part(f"## [{p.paper_id}] {p.title}{' (answers the question)' if p.paper_id in gold else ''}\n\n"
                   f"{p.text}") for p in papers)]


def rewrite_literature_question(agents: Agents, papers: Sequence[Paper], brief: QuestionBrief, *,
                                subject: str) -> Reply[QuestionRewrite]:
    """Ask the builder to rewrite the computed question of `brief` (about `papers`) in natural words; `subject`
    is the task. On `skipped` or `failed` the literature builder keeps its templated question."""
    rules = [f"# The computed question\n\n{brief.asks}"]
    if brief.keep:
        rules.append("# State each of these verbatim\n\n" + "\n".join(f"- “{p}”" for p in brief.keep))
    if brief.withhold:
        rules.append("# Never write any of these (they name the answer)\n\n"
                     + "\n".join(f"- “{w}”" for w in brief.withhold))
    shown = parts_fit([*(Part(r, keep=True) for r in rules), *_papers(papers, brief.gold_paper_ids)],
                      view="each paper cut to its head and tail; the question and its rules kept")

    def check(reply: QuestionRewrite) -> None:
        """The rewrite must keep to its brief."""
        problems = rewrite_problems(reply, brief)
        if problems:
            raise ValueError("; ".join(problems))

    return agents.ask("builder", WRITER_SYSTEM, shown, QuestionRewrite, purpose="literature_questions",
                      family="literature", subject=subject, check=check)


def review_question_rewrite(agents: Agents, rewrite: str, papers: Sequence[Paper], brief: QuestionBrief, *,
                            subject: str, built_by: Collection[str] = ()) -> Reply[Review]:
    """Ask the reviewer whether `rewrite` asks exactly the computed question of `brief`; `built_by` lists the
    call ids that wrote it, and a review from one of them is refused (`RoleSeparationError`)."""
    shown = parts_fit([Part(f"# The rewritten question (what the solver will read)\n\n{rewrite}", keep=True),
                       Part(f"# The computed question (the fixed answer answers exactly this)\n\n{brief.asks}",
                            keep=True),
                       Part("# The gold papers (the answer)\n\n" + "\n".join(f"- {p}" for p in brief.gold_paper_ids),
                            keep=True),
                       *_papers(papers, brief.gold_paper_ids)],
                      view="each paper cut to its head and tail; both questions and the gold papers kept")
    return certify(agents, "reviewer", REVIEWER_SYSTEM, shown, RewriteReview, purpose="review", family="literature",
                   subject=subject, built_by=built_by)
