"""Shortcut solvers of workflow tasks: cheap submissions that do not do the work, for the `shortcut` check to score
with the task's own grader.

- `copied_inputs`: the input files copied into outputs/, each deliverable filled
  with the input of its file name, else the first input of its format (any
  input when none has it);
- `constant_deliverables`: well-formed deliverables (the reference's header, key
  columns and rows, its JSON shape, its number of lines) whose every other value is
  one constant: zero / empty (`zero`), or the most common value of its column or
  field (`mode`, which finds a column that holds one value throughout); `blank`
  (a value nothing holds) measures what the kept keys and shape alone earn, the
  credit the constant shortcuts are scored beyond;
- the ancestor's reference for a descendant needs no solver: it is submitted as it is.

A submission is a mapping of deliverable paths (`outputs/...`) to file text.
"""

from __future__ import annotations

import csv
import io
import json
from collections import Counter
from typing import Any, Literal

from taskforge.graders.workflow.deliverables import parse_number, read_csv, text_lines
from taskforge.schemas.workflow import OUTPUTS

Constant = Literal["zero", "mode", "blank"]
BLANK = "\u2205"
"""The `blank` constant: a value no deliverable holds, so that only the kept keys and shape can earn credit."""
FORMAT_SUFFIXES = {"csv": (".csv",), "json": (".json", ".jsonl"), "text": (".txt", ".log", ".md", "")}


def copied_inputs(inputs: dict[str, str], deliverables: list[dict[str, Any]]) -> dict[str, str]:
    """Every input file under outputs/ by its name, and each deliverable holding the input of its name, else an
    input of its format."""
    submission = {f"{OUTPUTS}/{path.rsplit('/', 1)[-1]}": text for path, text in inputs.items()}
    for spec in deliverables:
        if spec["path"] in submission:
            continue
        suffixes = FORMAT_SUFFIXES[spec["format"]]
        same = [text for path, text in inputs.items() if any(path.endswith(s) for s in suffixes if s)]
        chosen = same or list(inputs.values())
        if chosen:
            submission[spec["path"]] = chosen[0]
    return submission


def _constant(values: list[Any], how: Constant) -> Any:
    """The one value a column or field is filled with."""
    if how == "blank":
        return BLANK
    if how == "mode":
        present = [v for v in values if v not in ("", None)]
        return Counter(present).most_common(1)[0][0] if present else ""
    numeric = [v for v in values if parse_number(v) is not None]
    return 0 if numeric and len(numeric) >= len(values) / 2 else ""


def _constant_csv(text: str, spec: dict[str, Any], how: Constant) -> str:
    header, rows = read_csv(text)
    keys = set(spec.get("key", []))
    fill = {name: _constant([row[name] for row in rows], how) for name in header if name not in keys}
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    writer.writerows([[row[name] if name in keys else fill[name] for name in header] for row in rows])
    return out.getvalue()


def _leaves(node: Any) -> list[Any]:
    if isinstance(node, dict):
        return [leaf for value in node.values() for leaf in _leaves(value)]
    if isinstance(node, list) and any(isinstance(v, (dict, list)) for v in node):
        return [leaf for value in node for leaf in _leaves(value)]
    return [node]


def _filled(node: Any, value: Any) -> Any:
    """A JSON document of the same shape whose every scalar (and list of scalars) is `value`."""
    if isinstance(node, dict):
        return {key: _filled(item, value) for key, item in node.items()}
    if isinstance(node, list) and any(isinstance(v, (dict, list)) for v in node):
        return [_filled(item, value) for item in node]
    if isinstance(node, list):
        return [value] if node else []
    return value


def _constant_json(text: str, how: Constant) -> str:
    document = json.loads(text)
    scalars = [leaf for leaf in _leaves(document) if not isinstance(leaf, list)]
    value = _constant(scalars, how)
    return json.dumps(_filled(document, value), indent=2, sort_keys=True) + "\n"


def _constant_text(text: str, how: Constant) -> str:
    lines = text_lines(text)
    line = Counter(lines).most_common(1)[0][0] if how == "mode" and lines else ""
    return "\n".join(line for _ in lines) + "\n"


def constant_deliverables(reference: dict[str, str], deliverables: list[dict[str, Any]], how: Constant
                          ) -> dict[str, str]:
    """Each deliverable in the reference's shape with one constant in place of every computed value."""
    makers = {"csv": lambda text, spec: _constant_csv(text, spec, how),
              "json": lambda text, spec: _constant_json(text, how),
              "text": lambda text, spec: _constant_text(text, how)}
    return {spec["path"]: makers[spec["format"]](reference[spec["path"]], spec)
            for spec in deliverables if spec["path"] in reference}
