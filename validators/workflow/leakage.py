"""Leak finder of workflow tasks: can the solver read the reference off its workspace or its instructions?

Leaks it reports: hidden files (reference workflow, its helper, the grader
program, parameters, anything under outputs/) placed in the workspace or
pasted into it; a reference deliverable (as the reference workflow writes it when run again) contained in a public input or in the
prompt; and computed reference numbers (three or more significant digits,
found in no input file and not a parameter) stated in the prompt.
"""

from __future__ import annotations

import csv
import io
import json
import re

from taskforge.schemas import Task
from taskforge.schemas.workflow import OUTPUTS, WorkflowGrader, WorkflowPackage, WorkflowReference
from taskforge.validators.workflow.rederive import rerun

HIDDEN_NAMES = frozenset({"reference.py", "wfio.py", "grade.py", "params.json", "spec.json"})
MIN_CONTENT_CHARS = 40
MIN_SIGNIFICANT_DIGITS = 3
_NUMBER = re.compile(r"-?\d[\d,]*(?:\.\d+)?")


def _normal(text: str) -> str:
    return "\n".join(line.strip() for line in text.replace("\r\n", "\n").strip().split("\n"))


def _canonical(token: str) -> str | None:
    try:
        value = float(token.replace(",", ""))
    except ValueError:
        return None
    return repr(round(value, 6))


def significant_digits(token: str) -> int:
    """Significant digits of a number as written ('90774.60' -> 6, '100.0' -> 1, '0.05' -> 1)."""
    digits = re.sub(r"\D", "", token).lstrip("0").rstrip("0")
    return len(digits)


def numbers_in(text: str) -> set[str]:
    """Every number written in a text, in canonical form."""
    return {c for c in map(_canonical, _NUMBER.findall(text)) if c is not None}


def _json_numbers(node: object) -> list[float]:
    if isinstance(node, dict):
        return [n for value in node.values() for n in _json_numbers(value)]
    if isinstance(node, list):
        return [n for value in node for n in _json_numbers(value)]
    return [node] if isinstance(node, (int, float)) and not isinstance(node, bool) else []


def reference_numbers(path: str, text: str) -> set[str]:
    """Numbers of a reference deliverable with enough significant digits to identify a computed value."""
    if path.endswith(".json"):
        try:
            tokens = [repr(v) for v in _json_numbers(json.loads(text))]
        except ValueError:
            return set()
    elif path.endswith(".csv"):
        tokens = [cell.strip() for row in csv.reader(io.StringIO(text)) for cell in row]
        tokens = [t for t in tokens if _NUMBER.fullmatch(t)]
    else:
        tokens = _NUMBER.findall(text)
    return {c for t in tokens if significant_digits(t) >= MIN_SIGNIFICANT_DIGITS and (c := _canonical(t))}


def workflow_leaks(task: Task) -> list[str]:
    """Everything in the solver's view that gives the reference away."""
    package, hidden_part = WorkflowPackage.of(task), WorkflowReference.of(task)
    public = dict(package.inputs)
    prompt = "\n".join(m.content for m in task.prompt)
    reference = rerun(task).deliverables
    hidden = {**hidden_part.workflow, "grade.py": WorkflowGrader.of(task).program.source}
    leaks = [f"{path} is a hidden file in the workspace" for path in public
             if path.rsplit("/", 1)[-1] in HIDDEN_NAMES or path.startswith(f"{OUTPUTS}/") or f"/{OUTPUTS}/" in path]
    views = {**public, "the prompt": prompt}
    normal_views = {name: _normal(text) for name, text in views.items()}
    for name, text in hidden.items():
        body = _normal(text)
        leaks += [f"{name} is pasted into {where}" for where, view in normal_views.items()
                  if len(body) >= MIN_CONTENT_CHARS and body in view]
    for path, text in reference.items():
        body = _normal(text)
        leaks += [f"the reference {path} is contained in {where}" for where, view in normal_views.items()
                  if len(body) >= MIN_CONTENT_CHARS and body in view]
    in_inputs = set().union(*(numbers_in(t) for t in public.values())) if public else set()
    params = set().union(*(numbers_in(v) for v in package.params.values()))
    stated = numbers_in(prompt) - in_inputs - params
    for path, text in reference.items():
        computed = sorted(reference_numbers(path, text) & stated)
        if computed:
            leaks.append(f"the prompt states computed values of {path}: {', '.join(computed[:5])}")
    return leaks
