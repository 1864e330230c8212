"""Natural questions: the builder agent rewrites a computed question; the reviewer checks it against its sources.

Every literature task is first generated deterministically: its gold answer
is computed from the collection and its question phrased by the templates.
Where an endpoint is configured, the builder agent rewrites that question in
natural words (`taskforge.agents.literature.rewrite_literature_question` with a
brief: the phrases the answer depends on kept, the answer left out), and the
reviewer, in a separate call that sees only the rewrite, the computed question,
the gold papers and the papers, checks that it asks exactly the computed question. A rewrite the reviewer
accepts replaces the templated question; one it rejects is not used, and the
task keeps its templated question (the computed answer is right either way,
so a doubtful phrasing costs the rewrite, not the task). A failed or skipped
call leaves the templated question too; every call is recorded. Without a
reviewer nothing is rewritten (an unreviewed rewrite could not be used).
"""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import Callable

from taskforge.agents.artifact import with_provenance
from taskforge.agents.client import Agents, Reply
from taskforge.agents.context import cut_middle
from taskforge.agents.literature import Paper as PaperText
from taskforge.agents.literature import QuestionBrief, review_question_rewrite, rewrite_literature_question
from taskforge.agents.verdicts import Review
from taskforge.builders.literature.cases import Case
from taskforge.graders.literature.environment import SearchEnvironment
from taskforge.graders.literature.papers import Paper
from taskforge.schemas import Task

PAPER_CHARS = 4000
"""How much of each paper the writer and the reviewer read (metadata, abstract, then the key passages; a longer
paper keeps its head and tail around a marker)."""
MAX_REFERENCES = 40
log = logging.getLogger("taskforge.builders.literature")


def paper_text(paper: Paper, passages: list[str]) -> str:
    """A paper as the writer and the reviewer read it: metadata, references, abstract, key passages."""
    meta = f"Year: {paper.year}. Venue: {paper.venue}. Authors: {', '.join(paper.authors)}."
    parts = [meta, f"References: {', '.join(paper.references[:MAX_REFERENCES])}", paper.abstract,
             *[p for p in passages if p and p != paper.title]]
    return cut_middle("\n\n".join(p for p in parts if p), PAPER_CHARS)


def source_papers(case: Case, env: SearchEnvironment) -> list[PaperText]:
    """The papers a case is built on (gold, anchor, distractors …), each with its key passages."""
    found = []
    for entry in case.reference["papers"]:
        paper = env.collection.by_id[entry["paper_id"]]
        passages = [k["text"] for k in case.reference.get("key_passages", []) if k["paper_id"] == paper.paper_id]
        found.append(PaperText(paper_id=paper.paper_id, title=paper.title, text=paper_text(paper, passages)))
    return found


def brief_for(case: Case) -> QuestionBrief:
    """What a rewrite of the case's question must keep and leave out, by kind."""
    facts, reference = case.facts, case.reference
    gold = list(reference["gold_ids"])
    keep: list[str] = []
    withhold: list[str] = []
    if case.kind in ("find_papers", "find_papers_2hop"):
        keep = [facts["anchor_title"], *facts["forms"], *([str(facts["after"])] if facts.get("after") else [])]
        withhold = gold + [p["title"] for p in reference["papers"] if p["role"] == "gold"]
    elif case.kind == "select_evidence":
        keep, withhold = [facts["value"], *facts["terms"]], gold
    elif case.kind == "fulltext_qa":
        keep, withhold = [facts["title"]], [reference["answer_text"]]
    elif case.kind == "described_finding":
        keep = [str(v) for c in facts["constraints"] for k, v in c.items() if k not in ("type", "paper_id")]
        keep += [facts["metric"], *facts["setting"]]
        withhold = gold + [p["title"] for p in reference["papers"] if p["role"] == "gold"] + [reference["answer_text"]]
    return QuestionBrief(asks=case.question, gold_paper_ids=gold, keep=keep, withhold=withhold)


def with_question(case: Case, question: str, writer: str) -> Case:
    """The case asking `question` instead (the listing and answer format that follow it are kept); a
    reference path that searched with the computed question searches with the new one."""
    field = "claim" if "claim" in case.payload else "question"
    path = [{**step, "arguments": {**step["arguments"], "query": question}}
            if step["tool"] == "search" and step["arguments"]["query"] == case.question else step
            for step in case.reference["tool_path"]]
    return replace(case, question=question, user=question + case.user[len(case.question):],
                   payload={**case.payload, field: question, "question_writer": writer},
                   reference={**case.reference, "tool_path": path})


def natural_task(case: Case, env: SearchEnvironment, make_task: Callable[[Case], Task], agents: Agents) -> Task:
    """The case's task, asking the builder's rewrite of its question where the reviewer accepts it."""
    task = make_task(case)
    if agents.skip_reason("builder") or agents.skip_reason("reviewer"):
        return task
    papers, brief = source_papers(case, env), brief_for(case)
    written = rewrite_literature_question(agents, papers, brief, subject=task.task_id)
    if not written.ok:
        return task
    writer = f"builder:{written.call.model}"
    candidate = make_task(with_question(case, written.value.question, writer))
    review = review_question_rewrite(agents, written.value.question, papers, brief, subject=candidate.task_id,
                                     built_by=[written.call.call_id])
    if not review.ok or not review.value.accepted:
        log.info("rewritten question of %s not used: %s", task.task_id, _why(review))
        return task
    return with_provenance(candidate, built_by=[written.call.call_id], reviewed_by=[review.call.call_id])


def _why(review: Reply[Review]) -> str:
    """Why a review did not accept a rewrite, in one line."""
    return review.value.rejection() if review.ok else (review.reason or review.status)
