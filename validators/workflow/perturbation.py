"""Workflow perturbation check: the grader must score below 1 every deliverable that is wrong.

From the reference deliverables (as the reference workflow writes them when run again) it derives a suite of wrong submissions (each
the full reference with one deliverable damaged): a value changed beyond its
tolerance (once per CSV column or JSON field, so an ungraded column is caught),
a missing row, two columns swapped, a wrong unit (values x 1000) and a
truncated file. The task's grader program grades them all in one sandbox run.
"""

from __future__ import annotations

import csv
import io
import json
import re
from dataclasses import dataclass
from typing import Any, Callable, Iterator

from taskforge.graders.workflow.deliverables import parse_number, tolerance
from taskforge.schemas import Task, ValidationResult
from taskforge.schemas.workflow import WorkflowGrader
from taskforge.validators.workflow.grading import grade
from taskforge.validators.workflow.rederive import rederived_deliverables

KINDS = ("changed_value", "missing_row", "swapped_columns", "wrong_unit", "truncated_file")
UNIT_FACTOR = 1000
MIN_PER_DELIVERABLE = 3
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


@dataclass(frozen=True)
class Perturbation:
    """One damaged deliverable: what was done, where, and the damaged file text."""

    kind: str
    path: str
    target: str
    text: str

    @property
    def label(self) -> str:
        return f"{self.kind}:{self.path}:{self.target}" if self.target else f"{self.kind}:{self.path}"


def beyond_tolerance(value: float, rule: dict[str, Any]) -> float:
    """A value clearly outside the tolerance of `rule` around `value`."""
    return value + max(3 * tolerance(rule, value), 0.1 * abs(value), 1e-3)


def _number_text(value: float) -> str:
    return repr(round(value, 9))


def _changed(text: str, rule: dict[str, Any]) -> str:
    number = parse_number(text)
    if number is not None and rule.get("type", "number" if number is not None else "text") == "number":
        return _number_text(beyond_tolerance(number, rule))
    return f"{text}x"


def _csv(header: list[str], rows: list[list[str]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return out.getvalue()


def _truncated(text: str) -> str:
    return text[: len(text) // 2]


def csv_perturbations(text: str, spec: dict[str, Any]) -> Iterator[tuple[str, str, str]]:
    """(kind, target, damaged text) for a CSV deliverable."""
    lines = [line for line in csv.reader(io.StringIO(text)) if any(cell.strip() for cell in line)]
    if not lines:
        return
    header, rows = lines[0], [line + [""] * (len(lines[0]) - len(line)) for line in lines[1:]]
    rules = {name: {"type": "text"} for name in spec.get("key", [])} | spec.get("columns", {})
    middle = len(rows) // 2
    for col, name in enumerate(header):
        filled = [i for i, row in enumerate(rows) if row[col].strip()]
        if filled:
            i = filled[len(filled) // 2]
            damaged = [list(row) for row in rows]
            damaged[i][col] = _changed(rows[i][col], rules.get(name, {}))
            yield "changed_value", name, _csv(header, damaged)
    if rows:
        yield "missing_row", "", _csv(header, rows[:middle] + rows[middle + 1:])
    pair = next(((a, b) for a in range(len(header)) for b in range(a + 1, len(header))
                 if any(row[a] != row[b] for row in rows)), None)
    if pair:
        a, b = pair
        swapped = [[row[b] if c == a else row[a] if c == b else cell for c, cell in enumerate(row)] for row in rows]
        yield "swapped_columns", f"{header[a]}<->{header[b]}", _csv(header, swapped)
    numeric = [c for c, name in enumerate(header) if name not in spec.get("key", [])
               and any(parse_number(row[c]) for row in rows) and all(parse_number(row[c]) is not None or not row[c].strip() for row in rows)]
    if numeric:
        c = numeric[0]
        scaled = [[_number_text(parse_number(cell) * UNIT_FACTOR) if i == c and parse_number(cell) is not None else cell
                   for i, cell in enumerate(row)] for row in rows]
        yield "wrong_unit", header[c], _csv(header, scaled)
    yield "truncated_file", "", _truncated(text)


def _leaves(node: Any, prefix: str = "") -> Iterator[tuple[str, Any]]:
    """Dotted paths of scalar values and of lists of scalars in a JSON document."""
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _leaves(value, f"{prefix}{key}.")
    elif isinstance(node, list) and any(isinstance(v, (dict, list)) for v in node):
        for index, value in enumerate(node):
            yield from _leaves(value, f"{prefix}{index}.")
    else:
        yield prefix[:-1], node


def _set(document: Any, path: str, value: Any) -> Any:
    copy = json.loads(json.dumps(document))
    *parents, last = path.split(".")
    node = copy
    for part in parents:
        node = node[int(part)] if isinstance(node, list) else node[part]
    if isinstance(node, list):
        node[int(last)] = value
    else:
        node[last] = value
    return copy


def _delete(document: Any, path: str) -> Any:
    copy = json.loads(json.dumps(document))
    *parents, last = path.split(".")
    node = copy
    for part in parents:
        node = node[int(part)] if isinstance(node, list) else node[part]
    del node[int(last) if isinstance(node, list) else last]
    return copy


def _changed_json(value: Any, rule: dict[str, Any]) -> Any:
    if isinstance(value, bool):
        return not value
    if isinstance(value, (int, float)):
        return beyond_tolerance(float(value), rule)
    if isinstance(value, list):
        return [_changed_json(value[0], rule)] + value[1:] if value else ["x"]
    return f"{value}x"


def json_perturbations(text: str, spec: dict[str, Any]) -> Iterator[tuple[str, str, str]]:
    """(kind, target, damaged text) for a JSON deliverable."""
    document = json.loads(text)
    leaves = list(_leaves(document))
    rules = spec.get("fields", {})
    dump: Callable[[Any], str] = lambda d: json.dumps(d, indent=2, sort_keys=True) + "\n"
    for path, value in leaves:
        if path:
            yield "changed_value", path, dump(_set(document, path, _changed_json(value, rules.get(path, {}))))
    lists = [(path, value) for path, value in leaves if isinstance(value, list) and value]
    if lists:
        path, value = lists[0]
        yield "missing_row", path, dump(_set(document, path, value[:-1]))
    elif leaves and leaves[0][0]:
        yield "missing_row", leaves[0][0], dump(_delete(document, leaves[0][0]))
    pair = next(((a, b) for i, a in enumerate(leaves) for b in leaves[i + 1:] if a[1] != b[1] and a[0] and b[0]), None)
    if pair:
        (pa, va), (pb, vb) = pair
        yield "swapped_columns", f"{pa}<->{pb}", dump(_set(_set(document, pa, vb), pb, va))
    numeric = [(p, v) for p, v in leaves if isinstance(v, (int, float)) and not isinstance(v, bool) and v and p]
    if numeric:
        path, value = numeric[0]
        yield "wrong_unit", path, dump(_set(document, path, value * UNIT_FACTOR))
    yield "truncated_file", "", _truncated(text)


def text_perturbations(text: str, spec: dict[str, Any]) -> Iterator[tuple[str, str, str]]:
    """(kind, target, damaged text) for a text deliverable."""
    lines = text.split("\n")
    filled = [i for i, line in enumerate(lines) if line.strip()]
    if not filled:
        return
    i = filled[len(filled) // 2]
    yield "changed_value", f"line {i + 1}", "\n".join(lines[:i] + [lines[i] + "x"] + lines[i + 1:])
    yield "missing_row", f"line {i + 1}", "\n".join(lines[:i] + lines[i + 1:])
    pair = next(((a, b) for a, b in zip(filled, filled[1:]) if lines[a] != lines[b]), None)
    if pair:
        a, b = pair
        swapped = list(lines)
        swapped[a], swapped[b] = lines[b], lines[a]
        yield "swapped_columns", f"lines {a + 1}<->{b + 1}", "\n".join(swapped)
    numbered = next((j for j in filled if _NUMBER.search(lines[j]) and float(_NUMBER.search(lines[j]).group()) != 0), None)
    if numbered is not None:
        match = _NUMBER.search(lines[numbered])
        scaled = lines[numbered][:match.start()] + _number_text(float(match.group()) * UNIT_FACTOR) + lines[numbered][match.end():]
        yield "wrong_unit", f"line {numbered + 1}", "\n".join(lines[:numbered] + [scaled] + lines[numbered + 1:])
    yield "truncated_file", "", _truncated(text)


PERTURBERS = {"csv": csv_perturbations, "json": json_perturbations, "text": text_perturbations}


def perturbations(reference: dict[str, str], deliverables: list[dict[str, Any]]) -> list[Perturbation]:
    """The perturbation suite of a task's reference deliverables."""
    suite = []
    for spec in deliverables:
        text = reference.get(spec["path"])
        if text is None:
            continue
        for kind, target, damaged in PERTURBERS[spec["format"]](text, spec):
            if damaged != text:
                suite.append(Perturbation(kind=kind, path=spec["path"], target=target, text=damaged))
    return suite


class WorkflowPerturbationCheck:
    """Rejects a workflow task whose grader scores any perturbed deliverable 1, or that cannot be perturbed."""

    name = "workflow_perturbation"

    def applies_to(self, task: Task) -> bool:
        return task.family == "workflow"

    def run(self, task: Task) -> ValidationResult:
        reference, grader = rederived_deliverables(task), WorkflowGrader.of(task)
        suite = perturbations(reference, grader.specs())
        results = grade(task, {p.label: {**reference, p.path: p.text} for p in suite}) if suite else {}
        scores = {label: result["score"] for label, result in results.items()}
        accepted = sorted(label for label, score in scores.items() if score >= 1.0)
        thin = [spec.path for spec in grader.deliverables
                if sum(1 for p in suite if p.path == spec.path) < MIN_PER_DELIVERABLE]
        problems = [f"the grader scores 1.0 for {', '.join(accepted)}"] if accepted else []
        problems += [f"fewer than {MIN_PER_DELIVERABLE} perturbations apply to {', '.join(thin)}"] if thin else []
        return ValidationResult(
            check=self.name, passed=not problems, score=max(scores.values(), default=None),
            reason="; ".join(problems) or None,
            detail={"scores": scores, "kinds": sorted({p.kind for p in suite})},
        )
