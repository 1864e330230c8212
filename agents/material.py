"""What a reviewer or judge is shown to verify a task of each family, arranged so that an over-long input is cut
where it can be (documents, input files) and never where it cannot (the question, the answer, the rules).

Each function returns a `Fit`: the whole material, and the view the client
sends when the whole does not fit the role's window. What makes the task
hard is quoted, not left to be found: a long-context task's evidence passages
and the near-miss facts beside them, a workflow's reference computations and
the grader's tolerances, an evolution's changes.
"""

from __future__ import annotations

import difflib
import json
from typing import Any, Sequence

from taskforge.agents.context import Fit, Part, fit_parts
from taskforge.schemas import Task

MAX_DIFF_LINES = 400


def parts_fit(parts: Sequence[Part], view: str) -> Fit:
    """The parts joined as one input, cut by `fit_parts` when it does not fit."""
    return Fit(full="\n\n".join(p.text for p in parts), view=view, cut=lambda tokens: fit_parts(parts, tokens))


def solver_sees(task: Task) -> str:
    """The task's messages as its solver sees them."""
    return "\n\n".join(f"[{m.role}]\n{m.content}" for m in task.prompt)


def _quote(documents: dict[str, str], span: dict[str, Any]) -> str:
    """One located passage, with where it is: `[doc-4 401:471] "…"`."""
    text = documents[span["doc_id"]][span["start"]:span["end"]]
    return f"- [{span['doc_id']} {span['start']}:{span['end']}] \"{text}\""


def long_context_passages(task: Task) -> tuple[list[str], list[str]]:
    """The quoted evidence passages of a long-context task, and the other facts its documents state (the
    near-miss distractors among them), each with its place."""
    documents = {doc["doc_id"]: doc["text"] for doc in task.payload["documents"]}
    used = {e["fact_id"] for e in task.payload["evidence"]}
    evidence = [_quote(documents, e) for e in task.payload["evidence"]]
    others = [_quote(documents, f) for f in task.reference.get("facts", []) if f["fact_id"] not in used]
    return evidence, others


def _long_context_core(task: Task, heading: str) -> list[str]:
    """The question, the reference answer, the evidence and the near-miss facts of a long-context task."""
    evidence, others = long_context_passages(task)
    return [f"## {heading}: question ({task.payload['category']}, answer type {task.payload['answer_type']})\n\n"
            f"{task.payload['question']}",
            f"## {heading}: reference answer (hidden from the solver)\n\n{task.reference.get('answer_text')}",
            f"## {heading}: evidence passages the reference rests on\n\n" + "\n".join(evidence),
            f"## {heading}: other facts the documents state, near-miss distractors among them (they must not "
            "change the answer)\n\n" + ("\n".join(others) or "(none)")]


def long_context_review(task: Task) -> Fit:
    """A long-context task for review: question, answer, quoted evidence and distractors, then the documents."""
    documents = [Part(f"### {doc['title']} [{doc['doc_id']}]\n\n{doc['text']}") for doc in task.payload["documents"]]
    return parts_fit([*(Part(text, keep=True) for text in _long_context_core(task, "Task")),
                      Part(f"## The documents the solver reads ({task.payload['context_tokens']} tokens)", keep=True),
                      *documents],
                     view="each document cut to its head and tail; the question, answer, evidence and distractor "
                          "passages quoted in full")


def long_context_judge(parent: Task, candidate: Task) -> str:
    """A parent and its evolved candidate, each as question, answer, quoted evidence and distractors, with
    the difficulty axes of both (the documents themselves are not shown: two full contexts rarely fit)."""
    axes = {name: task.payload["difficulty"] for name, task in (("parent", parent), ("candidate", candidate))}
    changed = candidate.payload.get("evolution", {}).get("changed_axes", [])
    return "\n\n".join([*_long_context_core(parent, "Parent"), *_long_context_core(candidate, "Candidate"),
                        f"## Difficulty axes (the candidate stepped up: {', '.join(changed) or 'not recorded'})\n\n"
                        f"```json\n{json.dumps(axes, indent=1, sort_keys=True)}\n```"])


def _grading_lines(grader: dict[str, Any]) -> list[str]:
    """The workflow grader's rules, one line per deliverable: how rows match and each value's tolerance."""
    lines = []
    for spec in grader.get("deliverables", []):
        rules = {**spec.get("columns", {}), **spec.get("fields", {})}
        match = (f"rows matched by key {', '.join(spec['key'])}" if spec.get("key") else
                 "rows compared in order" if spec["format"] == "csv" else "")
        values = "; ".join(f"{name}: {_tolerance(rule)}" for name, rule in rules.items()) or "compared as text"
        lines.append(f"- `{spec['path']}` ({spec['format']}{', ' + match if match else ''}): {values}")
    return lines


def _tolerance(rule: dict[str, Any]) -> str:
    """One value's grading rule in words."""
    kind = rule.get("type", "text")
    if kind != "number":
        return kind
    bounds = []
    if rule.get("abs"):
        bounds.append(f"±{rule['abs']:g}")
    if rule.get("rel"):
        bounds.append(f"±{rule['rel']:g} × |reference|")
    return f"number within {' + '.join(bounds)}" if bounds else "number, exact"


def _files(files: dict[str, str], title: str) -> list[Part]:
    """A heading and one part per file, each cut by whole lines."""
    return [Part(f"## {title}", keep=True),
            *(Part(f"### `{path}`\n\n```\n{text.rstrip()}\n```", unit="lines") for path, text in sorted(files.items()))]


def workflow_review(task: Task) -> Fit:
    """A workflow task for review: the statement, the grading rules, the reference workflow's code and
    outputs, and the input files (cut by lines when too long)."""
    workflow = task.reference.get("workflow", {})
    main = {path: code for path, code in workflow.items() if path == "reference.py"}
    helpers = {path: code for path, code in workflow.items() if path != "reference.py"}
    return parts_fit([
        Part(f"## The task as the solver sees it\n\n{solver_sees(task)}", keep=True),
        Part("## How the grader compares each deliverable with the reference\n\n"
             + "\n".join(_grading_lines(task.grader)), keep=True),
        Part("## The reference workflow (hidden: it computes the reference deliverables)\n\n"
             + "\n\n".join(f"### `{p}`\n\n```python\n{c.rstrip()}\n```" for p, c in main.items()), keep=True),
        *_files(task.reference.get("deliverables", {}), "The reference deliverables (hidden)"),
        *_files(task.payload.get("inputs", {}), "The input files the solver reads"),
        *_files(helpers, "Helpers the reference workflow imports"),
    ], view="input files, reference deliverables and helpers cut to their first and last lines")


def _diff(before: str, after: str, path: str) -> str:
    """A unified diff of one file, at most `MAX_DIFF_LINES` lines (then the count of lines left out)."""
    lines = list(difflib.unified_diff(before.splitlines(), after.splitlines(), f"parent/{path}",
                                      f"candidate/{path}", lineterm="", n=1))
    if len(lines) > MAX_DIFF_LINES:
        lines = [*lines[:MAX_DIFF_LINES], f"[… {len(lines) - MAX_DIFF_LINES} more diff lines …]"]
    return "\n".join(lines)


def workflow_judge(parent: Task, candidate: Task) -> Fit:
    """A workflow parent and its descendant: what evolution changed (operators, axes, parameters, inputs added
    or removed, a diff of each input both have that changed), the parent's statement, and the descendant in
    full (statement, grading, reference workflow and deliverables, inputs)."""
    before, after = parent.payload.get("inputs", {}), candidate.payload.get("inputs", {})
    evolution = candidate.payload.get("evolution") or {}
    params = {k: (parent.payload.get("params", {}).get(k), v) for k, v in candidate.payload.get("params", {}).items()
              if parent.payload.get("params", {}).get(k) != v}
    changes = [f"- operators: {', '.join(evolution.get('operators', [])) or 'not recorded'}",
               f"- axes: {', '.join(evolution.get('axes', [])) or 'not recorded'}",
               *(f"- parameter `{k}`: {old!r} → {new!r}" for k, (old, new) in sorted(params.items())),
               *(f"- input `{p}`: {'added' if p not in before else 'removed' if p not in after else 'changed'}"
                 for p in sorted(set(before) | set(after)) if before.get(p) != after.get(p))]
    diffs = [Part(f"### `{p}`\n\n```diff\n{_diff(before[p], after[p], p)}\n```", unit="lines")
             for p in sorted(set(before) & set(after)) if before[p] != after[p]]
    review = workflow_review(candidate)
    return Fit(
        full="\n\n".join([f"## Parent task as its solver sees it\n\n{solver_sees(parent)}",
                          "## What evolution changed\n\n" + "\n".join(changes),
                          "## Diff of the inputs both tasks have (an added input is shown with the candidate's)",
                          *([d.text for d in diffs] or ["(none changed)"]), "# The candidate", review.full]),
        view="diffs, input files and reference deliverables cut to their first and last lines",
        cut=lambda tokens: _cut_judge(parent, changes, diffs, review, tokens))


def _cut_judge(parent: Task, changes: list[str], diffs: list[Part], review: Fit, tokens: int) -> str:
    """The workflow judge's material in about `tokens` tokens: half for the evolution, half for the candidate."""
    head = fit_parts([Part(f"## Parent task as its solver sees it\n\n{solver_sees(parent)}", keep=True),
                      Part("## What evolution changed\n\n" + "\n".join(changes), keep=True),
                      Part("## Diff of the inputs both tasks have (an added input is shown with the candidate's)",
                           keep=True), *diffs], tokens // 2)
    return "\n\n".join([head, "# The candidate", review.cut(tokens // 2)])
