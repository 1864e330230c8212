"""Literature answers, re-derived: each kind's answer computed again from the collection snapshot and the stored
constraints, and compared with the reference the task stores (part of the `reference` question).

- find_papers: the gold set is every collection paper meeting every stored
  constraint (cites the anchor, mentions the term as a concept in its content:
  the term's forms derived again from the citing papers, `graders/literature/
  concepts.py`, published after the year); the prompt must state each
  constraint (the anchor's title as the snapshot has it, every form of the
  term, the year); find_papers_2hop the same with the papers cited alongside
  the anchor (`co_cited_with`: cited by a paper citing it, neither it nor a
  paper citing it, `graders/literature/citations.py`) in place of those
  citing it, the forms derived again from them;
- select_evidence: the supporting papers and passages are every candidate passage
  stating the claim's figure with both its terms (the claim must state them);
- fulltext_qa: the answer is the one option that fills the blank of the
  question's sentence as the paper's full text states it (when the question
  shows no blank: the one option the stored key sentence states, which must be
  a full-text sentence of the paper);
- described_finding: exactly one snapshot paper meets the stored description
  (`graders/literature/descriptions.py`), and it is the gold paper; the prompt
  states each constraint (papers by their snapshot titles) and the metric and
  setting asked; that paper states exactly one number for the metric and
  setting, and it is the reference's option;
- table_synthesis: every cell read off the snapshot (year, venue, first author;
  whether the paper cites the work the column names by title; whether its
  content mentions the term the column names, in a form the rows' papers give).
A kind without a derivation here fails: its reference cannot be checked.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Callable

from taskforge.graders.literature.citations import co_cited
from taskforge.graders.literature.concepts import concept_forms, content_text, mentions_concept
from taskforge.graders.literature.descriptions import described, stated_values
from taskforge.graders.literature.environment import environment_for
from taskforge.graders.literature.papers import ABSTRACT, Paper, PaperCollection, full_text, mentions, passages, supports
from taskforge.graders.literature.scorers import cell_value
from taskforge.graders.literature.shortcuts import column_term
from taskforge.schemas import Task, ValidationResult
from taskforge.schemas.literature import (DescribedFindingPayload, DescribedFindingReference, FindPapersPayload,
                                          FindPapersReference, FulltextQaPayload, FulltextQaReference,
                                          SelectEvidencePayload, SelectEvidenceReference, TableSynthesisPayload,
                                          TableSynthesisReference)

BLANK = "____"
_QUOTED_CLOZE = re.compile(r"“([^”]*____[^”]*)”")


def visible_text(task: Task) -> str:
    """Every message the solver sees, as one text."""
    return "\n".join(m.content for m in task.prompt)


def _set_differences(what: str, stored: set, derived: set) -> list[str]:
    problems = [f"{what} lists {item}, which the snapshot does not give" for item in sorted(stored - derived)]
    return problems + [f"{what} leaves out {item}, which the snapshot gives" for item in sorted(derived - stored)]


def cites(paper: Paper, anchor: str) -> bool:
    """Whether a paper cites the anchor (once is enough)."""
    return anchor in paper.references


RELATIONS = {"find_papers": "cites", "find_papers_2hop": "co_cited_with"}
"""The constraint relating a paper to the anchor, by kind: one citation hop, or two."""


def related(collection: PaperCollection, relation: dict[str, Any]) -> list[str]:
    """The ids of the collection papers in a relation to its anchor: citing it, or cited alongside it."""
    if relation["type"] == "cites":
        return [c for c in collection.cited_by.get(relation["paper_id"], ()) if c in collection.by_id]
    return list(co_cited(collection, relation["paper_id"]))


def meets(paper: Paper, constraint: dict[str, Any], forms: list[str], collection: PaperCollection) -> bool:
    """Whether a paper meets one find_papers constraint (a term mentioned in any of `forms`, as a concept in the
    paper's content); ValueError for a constraint type nothing derives."""
    kind = constraint.get("type")
    if kind == "cites":
        return cites(paper, constraint["paper_id"])
    if kind == "co_cited_with":
        return paper.paper_id in co_cited(collection, constraint["paper_id"])
    if kind == "mentions":
        return mentions_concept(content_text(paper), forms)
    if kind == "published_after":
        return paper.year is not None and paper.year > int(constraint["year"])
    raise ValueError(f"no derivation for the constraint type {kind!r}")


def _find_papers(task: Task, collection: PaperCollection) -> list[str]:
    payload, reference = FindPapersPayload.of(task), FindPapersReference.of(task)
    visible = visible_text(task)
    relations = [c for c in payload.constraints if c.get("type") in RELATIONS.values()]
    problems = [] if any(c["type"] == RELATIONS[task.kind] for c in relations) else [
        f"a {task.kind} task relates no paper to an anchor by {RELATIONS[task.kind]}"]
    texts = [content_text(collection.by_id[r]) for relation in relations for r in related(collection, relation)]
    forms = {c["term"]: concept_forms(c["term"], texts) for c in payload.constraints if c.get("type") == "mentions"}
    for constraint in payload.constraints:
        if constraint.get("type") in RELATIONS.values():
            anchor = collection.by_id.get(constraint["paper_id"])
            if anchor is None:
                problems.append(f"the anchor {constraint['paper_id']} is not in the snapshot")
            elif anchor.title not in visible:
                problems.append(f"the prompt does not name the anchor “{anchor.title}”")
        elif constraint.get("type") == "mentions":
            problems += [f"the prompt does not name the term's form {form}" for form in forms[constraint["term"]]
                         if not mentions(visible, form)]
        elif constraint.get("type") == "published_after" and str(constraint["year"]) not in visible:
            problems.append(f"the prompt does not state the year {constraint['year']}")
    gold = {p.paper_id for p in collection.papers
            if all(meets(p, c, forms.get(c.get("term"), []), collection) for c in payload.constraints)}
    problems += _set_differences("the gold set", set(reference.answer), gold)
    if set(reference.gold_ids) != set(reference.answer):
        problems.append("the reference's gold ids are not its answer")
    return problems


def _select_evidence(task: Task, collection: PaperCollection) -> list[str]:
    payload, reference = SelectEvidencePayload.of(task), SelectEvidenceReference.of(task)
    support = reference.support.model_dump()
    problems = [f"the claim does not state {item}" for item in [support["value"], *support["terms"]]
                if not mentions(payload.claim, item)]
    candidates = [collection.by_id.get(c.paper_id) for c in payload.candidates]
    problems += [f"candidate {c.paper_id} is not in the snapshot" for c, p in zip(payload.candidates, candidates)
                 if p is None]
    derived = {(p.paper_id, pid) for p in candidates if p for pid, text in passages(p).items() if supports(text, support)}
    stored = {(p["paper_id"], p["passage"]) for p in reference.answer.passages}
    problems += _set_differences("the evidence passages", stored, derived)
    papers = {paper_id for paper_id, _ in derived}
    problems += _set_differences("the supporting papers", set(reference.answer.papers), papers)
    return problems + _set_differences("the gold ids", set(reference.gold_ids), papers)


def _full_text_passages(paper: Paper) -> list[str]:
    return [text for pid, text in passages(paper).items() if not pid.startswith(f"{ABSTRACT}:")]


def _fulltext_qa(task: Task, collection: PaperCollection) -> list[str]:
    payload, reference = FulltextQaPayload.of(task), FulltextQaReference.of(task)
    visible = visible_text(task)
    named = [p for p in collection.papers if p.title in visible]
    paper = next((p for p in named if p.paper_id in reference.gold_ids), None)
    if paper is None:
        return [f"the prompt names no paper of the gold ids {reference.gold_ids} by its snapshot title"]
    texts = _full_text_passages(paper)
    options = {letter: value for letter, value in payload.options.items() if letter != payload.insufficient_option}
    cloze = _QUOTED_CLOZE.search(payload.question)
    if cloze:
        filled = {letter for letter, value in options.items()
                  if any(cloze[1].replace(BLANK, value, 1) in text for text in texts)}
        source = "fills the blank as the full text states it"
    else:
        if not any(reference.key_sentence in text for text in texts):
            return [f"the key sentence is not a full-text sentence of {paper.paper_id}"]
        filled = {letter for letter, value in options.items() if mentions(reference.key_sentence, value)}
        source = "is stated by the key sentence"
    if len(filled) != 1:
        return [f"{len(filled)} options ({', '.join(sorted(filled)) or 'none'}) {source}, not one"]
    (letter,) = filled
    problems = [] if letter == reference.answer else [
        f"option {letter} ({options[letter]}) {source}, the reference answers {reference.answer}"]
    if reference.answer_text != options[letter]:
        problems.append(f"the reference's answer text {reference.answer_text!r} is not {options[letter]!r}")
    return problems


def described_paper(payload: DescribedFindingPayload, collection: PaperCollection) -> tuple[Paper | None, str]:
    """The one snapshot paper meeting the stored description, or None and why not."""
    try:
        meeting = described(collection, payload.constraints)
    except (KeyError, ValueError) as error:
        return None, f"the description cannot be derived ({error})"
    if len(meeting) != 1:
        return None, f"{len(meeting)} papers of the snapshot meet the description, not one"
    return meeting[0], ""


def _unstated_constraints(payload: DescribedFindingPayload, collection: PaperCollection, visible: str) -> list[str]:
    """The constraints and asked words the prompt does not state."""
    problems = []
    for constraint in payload.constraints:
        named = collection.by_id.get(constraint.get("paper_id", ""))
        words = [named.title] if named else [str(v) for k, v in constraint.items() if k not in ("type", "paper_id")]
        if "paper_id" in constraint and named is None:
            problems.append(f"the described relation's paper {constraint['paper_id']} is not in the snapshot")
        problems += [f"the prompt does not state {word!r}" for word in words if word not in visible]
    return problems + [f"the prompt does not state {word!r}" for word in
                       [payload.asked["metric"], *payload.asked["setting"]] if word not in visible]


def _described_finding(task: Task, collection: PaperCollection) -> list[str]:
    payload, reference = DescribedFindingPayload.of(task), DescribedFindingReference.of(task)
    problems = _unstated_constraints(payload, collection, visible_text(task))
    paper, why = described_paper(payload, collection)
    if paper is None:
        return problems + [why]
    if reference.gold_ids != [paper.paper_id]:
        problems.append(f"the description gives {paper.paper_id}, the reference {reference.gold_ids}")
    values = stated_values(paper, payload.asked["metric"], payload.asked["setting"])
    if len(values) != 1:
        return problems + [f"{paper.paper_id} states {len(values)} numbers ({', '.join(sorted(values))}) for the "
                           f"metric and setting asked, not one"]
    (value,) = values
    right = [letter for letter, text in payload.options.items()
             if letter != payload.insufficient_option and cell_value(text) == cell_value(value)]
    if right != [reference.answer]:
        problems.append(f"the stated number {value} is option(s) {right}, the reference answers {reference.answer}")
    if cell_value(reference.answer_text) != cell_value(value):
        problems.append(f"the reference's answer text {reference.answer_text!r} is not the stated number {value}")
    return problems


def _cited_work(description: str, collection: PaperCollection) -> Paper | None:
    """The collection paper a column names by its title (the longest title the description contains)."""
    named = [p for p in collection.papers if p.title and p.title in description]
    return max(named, key=lambda p: len(p.title), default=None)


def _table_synthesis(task: Task, collection: PaperCollection) -> list[str]:
    payload, reference = TableSynthesisPayload.of(task), TableSynthesisReference.of(task)
    readers: dict[str, Callable[[Paper], Any]] = {
        "year": lambda p: p.year, "venue": lambda p: p.venue,
        "first_author": lambda p: p.authors[0] if p.authors else None}
    problems = []
    if "cites_work" in payload.columns:
        work = _cited_work(payload.columns["cites_work"], collection)
        if work is None:
            problems.append("the cites_work column names no paper of the snapshot by its title")
        else:
            readers["cites_work"] = lambda p: "yes" if cites(p, work.paper_id) else "no"
    if "mentions_term" in payload.columns:
        term = column_term(payload.columns["mentions_term"])
        if term is None:
            problems.append("the mentions_term column names no term this check can read")
        else:
            forms = concept_forms(term, [content_text(collection.by_id[r]) for r in payload.rows
                                         if r in collection.by_id])
            readers["mentions_term"] = lambda p: "yes" if mentions_concept(content_text(p), forms) else "no"
    problems += [f"no derivation for the column {column!r}" for column in payload.columns
                 if column not in readers and column not in ("cites_work", "mentions_term")]
    for row in payload.rows:
        paper = collection.by_id.get(row)
        if paper is None:
            problems.append(f"row {row} is not in the snapshot")
            continue
        stored = reference.answer.get(row, {})
        for column, read in readers.items():
            if column in payload.columns and cell_value(stored.get(column)) != cell_value(read(paper)):
                problems.append(f"cell {row}/{column} holds {stored.get(column)!r}, the snapshot gives {read(paper)!r}")
    return problems


DERIVATIONS: dict[str, Callable[[Task, PaperCollection], list[str]]] = {
    "find_papers": _find_papers, "select_evidence": _select_evidence, "fulltext_qa": _fulltext_qa,
    "table_synthesis": _table_synthesis, "described_finding": _described_finding, "find_papers_2hop": _find_papers}


class RederivedAnswer:
    """Fails a literature task whose stored answer is not what the collection snapshot and the stored constraints
    give (snapshots under `data_dir`)."""

    name = "rederived_answer"

    def __init__(self, data_dir: Path | None = None):
        self.data_dir = data_dir

    def applies_to(self, task: Task) -> bool:
        return task.family == "literature"

    def run(self, task: Task) -> ValidationResult:
        derive = DERIVATIONS.get(task.kind)
        if derive is None:
            problems = [f"no derivation of the {task.kind} answer: its reference cannot be checked"]
        else:
            problems = derive(task, environment_for(task.environment, self.data_dir).collection)
        return ValidationResult(check=self.name, passed=not problems, reason="; ".join(problems[:8]) or None,
                                detail={"problems": problems})
