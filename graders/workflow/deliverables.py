"""Grader of workflow deliverables: compares submitted files with the hidden reference files.

This module is also the grader program of built workflow tasks: it imports only
the standard library, so its source travels with each task (`grader["program"]`)
and runs inside the sandbox as `python3 grade.py SPEC REFERENCE_DIR OUT SUBMISSION_DIR...`.

A deliverable spec names a file under `outputs/`, its format and weight:
- `csv`: rows matched by `key` columns (in the same position when `ordered`,
  by position alone without a key); every column in `columns` but the key ones
  compared as `number` (within `abs` + `rel` × |reference|) or `text` (exact
  after stripping; `casefold` to ignore case); the keys themselves earn nothing;
- `json`: dotted `fields` paths compared as `number`, `text`, `list` (ordered)
  or `set` (Jaccard similarity);
- `text`: lines compared in order (trailing spaces and blank lines ignored).
The score is the weighted mean of deliverable scores in [0, 1]; a missing or
unreadable deliverable scores 0 and never raises.

A submission seen by the in-process scorer is a JSON object mapping deliverable
paths (e.g. `outputs/summary.csv`) to file text: the files an agent left in its
workspace's `outputs/` folder. The untouched workspace submits `{}`.
"""

from __future__ import annotations

import csv
import difflib
import io
import json
import math
import os
import sys
from typing import Any

OUTPUTS = "outputs"
NAME = "workflow.deliverables"


def read_tree(root: str) -> dict[str, str]:
    """Every file under `root` as {relative posix path: text}; undecodable bytes are replaced."""
    files: dict[str, str] = {}
    for folder, _, names in os.walk(root):
        for name in names:
            path = os.path.join(folder, name)
            with open(path, "rb") as handle:
                data = handle.read()
            files[os.path.relpath(path, root).replace(os.sep, "/")] = data.decode("utf-8", errors="replace")
    return dict(sorted(files.items()))


def write_tree(root: str, files: dict[str, str]) -> None:
    """Write {relative path: text} under `root`, creating folders; paths may not leave `root`."""
    base = os.path.realpath(root)
    for relative, text in files.items():
        target = os.path.realpath(os.path.join(base, relative))
        if not target.startswith(base + os.sep):
            raise ValueError(f"{relative}: path leaves the folder it is written to")
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)


def parse_number(text: Any) -> float | None:
    """A finite number from a cell or JSON value ('1,234.5' allowed), else None."""
    if isinstance(text, bool) or text is None:
        return None
    if isinstance(text, (int, float)):
        value = float(text)
    else:
        try:
            value = float(str(text).strip().replace(",", ""))
        except ValueError:
            return None
    return value if math.isfinite(value) else None


def tolerance(rule: dict[str, Any], reference: float) -> float:
    """How far a number may be from the reference value under a rule."""
    return float(rule.get("abs", 0.0)) + float(rule.get("rel", 0.0)) * abs(reference)


def value_matches(submitted: Any, expected: Any, rule: dict[str, Any]) -> bool:
    """Whether one submitted value matches the reference value under its rule."""
    kind = rule.get("type", "text")
    if kind == "number":
        got, want = parse_number(submitted), parse_number(expected)
        if want is None:
            return _canon(submitted) == _canon(expected)
        return got is not None and abs(got - want) <= tolerance(rule, want) + 1e-12
    got, want = _canon(submitted), _canon(expected)
    if rule.get("casefold"):
        return got.casefold() == want.casefold()
    return got == want


def _canon(value: Any) -> str:
    """A scalar as comparable text: numbers in a fixed form, strings stripped."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(round(float(value), 9))
    if value is None:
        return ""
    return str(value).strip()


def read_csv(text: str) -> tuple[list[str], list[dict[str, str]]]:
    """Header and rows of CSV text; ragged rows are padded or cut to the header."""
    lines = list(csv.reader(io.StringIO(text.lstrip("\ufeff"))))
    lines = [line for line in lines if any(cell.strip() for cell in line)]
    if not lines:
        return [], []
    header = [name.strip() for name in lines[0]]
    rows = [dict(zip(header, [cell.strip() for cell in line] + [""] * (len(header) - len(line)))) for line in lines[1:]]
    return header, rows


def matched_rows(want_rows: list[dict[str, str]], got_rows: list[dict[str, str]], key: list[str],
                 ordered: bool) -> list[tuple[dict[str, str], dict[str, str]]]:
    """Pairs of reference and submitted rows with the same key: anywhere (the first submitted row with that key),
    or in the same position when `ordered` or without a key."""
    def key_of(row: dict[str, str]) -> tuple[str, ...]:
        return tuple(_canon(row.get(name, "")) for name in key)

    if ordered or not key:
        return [(want, got) for want, got in zip(want_rows, got_rows) if key_of(want) == key_of(got)]
    by_key: dict[tuple[str, ...], dict[str, str]] = {}
    for row in got_rows:
        by_key.setdefault(key_of(row), row)
    return [(row, by_key[k]) for row in want_rows if (k := key_of(row)) in by_key]


def score_csv(submitted: str, expected: str, spec: dict[str, Any]) -> dict[str, Any]:
    """Cell accuracy of the scored columns over the union of reference and submitted rows, per column; the key
    columns only match rows, so a missing row loses its cells and an extra row dilutes every column."""
    _, want_rows = read_csv(expected)
    header, got_rows = read_csv(submitted)
    key = list(spec.get("key", []))
    rules = {name: rule for name, rule in dict(spec.get("columns", {})).items() if name not in key}
    pairs = matched_rows(want_rows, got_rows, key, bool(spec.get("ordered")))
    denominator = max(len(want_rows), len(got_rows))
    hits = {name: 0 for name in rules}
    for want, got in pairs:
        for name, rule in rules.items():
            hits[name] += name in header and value_matches(got.get(name, ""), want.get(name, ""), rule)
    cells = sum(hits.values())
    if denominator == 0:
        score = 1.0 if rules and (set(key) | set(rules)) <= set(header) else 0.0
    else:
        score = cells / (denominator * len(rules)) if rules else 0.0
    return {"score": round(score, 6), "rows_expected": len(want_rows), "rows_submitted": len(got_rows),
            "rows_matched": len(pairs),
            "columns": {name: round(hit / denominator, 6) if denominator else 0.0 for name, hit in hits.items()},
            "missing_columns": sorted((set(key) | set(rules)) - set(header))}


_MISSING = object()


def lookup(document: Any, path: str) -> Any:
    """The value at a dotted path (`a.b.0`) of a JSON document, or a sentinel when absent."""
    node = document
    for part in path.split("."):
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return _MISSING
    return node


def field_score(got: Any, want: Any, rule: dict[str, Any]) -> float:
    """One JSON field's score: 1/0 for scalars, order-sensitive for lists, Jaccard for sets."""
    if got is _MISSING:
        return 0.0
    kind = rule.get("type", "text")
    if kind in ("list", "set"):
        if not isinstance(got, list) or not isinstance(want, list):
            return 0.0
        got_items, want_items = [_canon(x) for x in got], [_canon(x) for x in want]
        if kind == "list":
            return 1.0 if got_items == want_items else 0.0
        union = set(got_items) | set(want_items)
        return len(set(got_items) & set(want_items)) / len(union) if union else 1.0
    if isinstance(got, (list, dict)):
        return 0.0
    return 1.0 if value_matches(got, want, rule) else 0.0


def score_json(submitted: str, expected: str, spec: dict[str, Any]) -> dict[str, Any]:
    """Mean field score over the spec's fields; unparsable JSON scores 0."""
    want_doc = json.loads(expected)
    try:
        got_doc = json.loads(submitted)
    except ValueError:
        return {"score": 0.0, "error": "not valid JSON"}
    fields = dict(spec.get("fields", {}))
    scores = {path: round(field_score(lookup(got_doc, path), lookup(want_doc, path), rule), 6)
              for path, rule in fields.items()}
    return {"score": round(sum(scores.values()) / len(scores), 6) if scores else 0.0, "fields": scores}


def text_lines(text: str) -> list[str]:
    """Lines with trailing spaces removed and trailing blank lines dropped."""
    lines = [line.rstrip() for line in text.replace("\r\n", "\n").split("\n")]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def score_text(submitted: str, expected: str, spec: dict[str, Any]) -> dict[str, Any]:
    """The share of reference lines found in order, over the longer of the two texts."""
    want, got = text_lines(expected), text_lines(submitted)
    matcher = difflib.SequenceMatcher(None, want, got, autojunk=False)
    matched = sum(block.size for block in matcher.get_matching_blocks())
    longest = max(len(want), len(got))
    return {"score": round(matched / longest, 6) if longest else 0.0, "lines_expected": len(want),
            "lines_submitted": len(got), "lines_matched": matched}


SCORERS = {"csv": score_csv, "json": score_json, "text": score_text}


def score_deliverable(submission: dict[str, str], reference: dict[str, str], spec: dict[str, Any]) -> dict[str, Any]:
    """One deliverable's score and detail; a missing file or a scorer error scores 0."""
    path = spec["path"]
    if path not in submission:
        return {"score": 0.0, "error": "missing"}
    try:
        return SCORERS[spec["format"]](submission[path], reference[path], spec)
    except (ValueError, KeyError, TypeError, csv.Error) as exc:
        return {"score": 0.0, "error": f"{type(exc).__name__}: {exc}"}


def grade(submission: dict[str, str], reference: dict[str, str], deliverables: list[dict[str, Any]]) -> dict[str, Any]:
    """The weighted score of a submission over every deliverable, with per-deliverable components."""
    components = {spec["path"]: score_deliverable(submission, reference, spec) for spec in deliverables}
    weights = {spec["path"]: float(spec.get("weight", 1.0)) for spec in deliverables}
    total = sum(weights.values())
    score = sum(weights[p] * components[p]["score"] for p in components) / total if total > 0 else 0.0
    return {"score": round(min(1.0, max(0.0, score)), 6), "components": components}


class WorkflowDeliverables:
    """The in-process scorer of workflow tasks (a trainer's reward): submissions are JSON mappings of files."""

    name = NAME

    def score(self, submission: str, reference: dict[str, Any], grader: dict[str, Any]) -> float:
        try:
            files = json.loads(submission) if submission.strip() else {}
        except ValueError:
            return 0.0
        if not isinstance(files, dict):
            return 0.0
        files = {str(k): v for k, v in files.items() if isinstance(v, str)}
        return grade(files, reference["deliverables"], grader["deliverables"])["score"]

    def reference_submission(self, reference: dict[str, Any], grader: dict[str, Any]) -> str:
        return json.dumps(reference["deliverables"], sort_keys=True)

    def noop_submissions(self, grader: dict[str, Any]) -> list[str]:
        return ["{}", ""]


def main(argv: list[str]) -> int:
    """Grade submission folders against a reference folder; write one result per submission to OUT."""
    if len(argv) < 4:
        print("usage: grade.py SPEC REFERENCE_DIR OUT SUBMISSION_DIR...", file=sys.stderr)
        return 2
    spec_path, reference_dir, out_path, *submission_dirs = argv
    with open(spec_path, encoding="utf-8") as handle:
        deliverables = json.load(handle)["deliverables"]
    reference = read_tree(reference_dir)
    results = {}
    for folder in submission_dirs:
        submission = read_tree(folder) if os.path.isdir(folder) else {}
        results[os.path.basename(os.path.normpath(folder))] = grade(submission, reference, deliverables)
    with open(out_path, "w", encoding="utf-8") as handle:
        json.dump(results, handle, sort_keys=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
