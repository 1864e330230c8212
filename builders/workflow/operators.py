"""Deterministic evolution operators: each varies a workflow package along one axis.

An operator says whether it applies to a package and, given a seeded random
generator, returns the varied package. Operators never touch the reference
workflow: the varied package is certified by running that workflow again.
"""

from __future__ import annotations

import csv
import io
import json
import random
from dataclasses import dataclass
from typing import Callable

from taskforge.schemas.workflow import INPUTS, DeliverableSpec, WorkflowPackage, table_rows


@dataclass(frozen=True)
class Operator:
    """A named variation along one axis; a `lead` operator is tried before the randomly chosen ones."""

    name: str
    axis: str
    applies: Callable[[WorkflowPackage], bool]
    apply: Callable[[WorkflowPackage, random.Random], WorkflowPackage]
    lead: bool = False


def table_header(package: WorkflowPackage, name: str) -> list[str]:
    """The column names of an input table in file order."""
    first = package.tables[name].files(name)[0]
    text = package.inputs[first]
    if package.tables[name].layout == "jsonl":
        return list(json.loads(text.splitlines()[0]))
    return next(csv.reader(io.StringIO(text)))


def csv_text(header: list[str], rows: list[dict[str, str]]) -> str:
    """Rows as CSV text under `header`."""
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=header, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()


def with_table(package: WorkflowPackage, name: str, header: list[str], rows: list[dict[str, str]],
               layout: str | None = None, parts: int | None = None) -> WorkflowPackage:
    """The package with one table's rows (and optionally its layout) replaced, its files rewritten."""
    old = package.tables[name]
    spec = old.model_copy(update={"layout": layout or old.layout, "parts": parts or old.parts})
    inputs = {p: t for p, t in package.inputs.items() if p not in old.files(name)}
    files = spec.files(name)
    if spec.layout == "jsonl":
        inputs[files[0]] = "".join(json.dumps({c: row[c] for c in header}) + "\n" for row in rows)
    else:
        size = -(-len(rows) // len(files))
        for index, path in enumerate(files):
            inputs[path] = csv_text(header, rows[index * size:(index + 1) * size])
    return package.model_copy(update={"tables": {**package.tables, name: spec}, "inputs": dict(sorted(inputs.items()))})


def _dropped(count: int, share: float, rng: random.Random) -> int:
    """How many of `count` units to drop for a drop share: between half the share and the share, at least one."""
    if share <= 0 or count < 4:
        return 0
    return max(1, int(count * share * rng.uniform(0.5, 1.0)))


def _jittered(text: str, factor: float, places: int) -> str:
    try:
        value = float(text.strip().replace(",", ""))
    except ValueError:
        return text
    return f"{value * factor:.{places}f}"


def _resample_table(package: WorkflowPackage, name: str, rng: random.Random) -> WorkflowPackage:
    spec = package.tables[name]
    rows = table_rows(package, name)
    group_of = [row[spec.group_by] if spec.group_by else str(i) for i, row in enumerate(rows)]
    groups = list(dict.fromkeys(group_of))
    gone = set(rng.sample(groups, _dropped(len(groups), spec.drop, rng)))
    memo: dict[tuple[str, str], str] = {}
    kept = []
    for group, row in zip(group_of, rows):
        if group in gone:
            continue
        row = dict(row)
        for column, jitter in spec.jitter.items():
            original = row[column].strip()
            if (group, original) not in memo:
                memo[(group, original)] = _jittered(original, 1 + rng.uniform(-jitter.rel, jitter.rel), jitter.places)
            row[column] = memo[(group, original)]
        kept.append(row)
    return with_table(package, name, table_header(package, name), kept)


def _thin_file(package: WorkflowPackage, name: str, rng: random.Random) -> WorkflowPackage:
    spec = package.files[name]
    path = f"{INPUTS}/{name}"
    separator = "\n\n" if spec.unit == "block" else "\n"
    text = package.inputs[path]
    units = text.rstrip("\n").split(separator)
    candidates = [i for i in range(spec.keep_first, len(units) - spec.keep_last) if units[i].strip()]
    gone = set(rng.sample(candidates, _dropped(len(candidates), spec.drop, rng)))
    thinned = separator.join(u for i, u in enumerate(units) if i not in gone) + "\n"
    return package.model_copy(update={"inputs": {**package.inputs, path: thinned}})


def _varies_data(package: WorkflowPackage) -> bool:
    return any(t.drop or t.jitter for t in package.tables.values()) or any(f.drop for f in package.files.values())


def resample_data(package: WorkflowPackage, rng: random.Random) -> WorkflowPackage:
    """Drop a share of rows (or row groups, or text lines/blocks) and jitter declared numeric columns."""
    for name, spec in package.tables.items():
        if spec.drop or spec.jitter:
            package = _resample_table(package, name, rng)
    for name, spec in package.files.items():
        if spec.drop:
            package = _thin_file(package, name, rng)
    return package


def _open_variants(package: WorkflowPackage, axis: str) -> list[int]:
    return [i for i, v in enumerate(package.variants)
            if v.axis == axis and any(package.params.get(k) != value for k, value in v.params.items())]


def retarget(axis: str) -> Callable[[WorkflowPackage, random.Random], WorkflowPackage]:
    """Apply one of the package's variants of `axis`; the values it replaces become a variant in its place."""
    def apply(package: WorkflowPackage, rng: random.Random) -> WorkflowPackage:
        index = rng.choice(_open_variants(package, axis))
        chosen = package.variants[index]
        undo = chosen.model_copy(update={"params": {k: package.params[k] for k in chosen.params}})
        variants = [undo if i == index else v for i, v in enumerate(package.variants)]
        return package.model_copy(update={"params": {**package.params, **chosen.params}, "variants": variants})
    return apply


def reshape_deliverables(package: WorkflowPackage, rng: random.Random) -> WorkflowPackage:
    """Require one more of the deliverables the reference workflow also writes."""
    optional = list(package.optional_deliverables)
    added = optional.pop(rng.randrange(len(optional)))
    return package.model_copy(update={"deliverables": [*package.deliverables, added], "optional_deliverables": optional})


def _relayout_candidates(package: WorkflowPackage) -> list[str]:
    return [name for name, spec in package.tables.items()
            if spec.layout == "csv" and len(table_rows(package, name)) >= 6]


def relayout_table(package: WorkflowPackage, rng: random.Random) -> WorkflowPackage:
    """Split one CSV table into parts, or convert it to JSON lines: the workflow must read a new layout."""
    name = rng.choice(_relayout_candidates(package))
    rows = table_rows(package, name)
    if rng.random() < 0.5:
        return with_table(package, name, table_header(package, name), rows, layout="parts", parts=rng.choice([2, 3]))
    return with_table(package, name, table_header(package, name), rows, layout="jsonl")


TOLERANCE_FLOORS = {"abs": 1e-4, "rel": 1e-5}
"""Tolerances are never halved below these: a correct answer's float noise must still pass."""


def _halvable(rule: dict) -> list[str]:
    return [k for k, floor in TOLERANCE_FLOORS.items() if rule.get("type") == "number" and rule.get(k, 0) > floor]


def _numeric_rules(package: WorkflowPackage) -> bool:
    return any(_halvable(rule) for d in package.deliverables for rule in [*d.columns.values(), *d.fields.values()])


def _tightens(package: WorkflowPackage) -> bool:
    unordered = any(d.format == "csv" and d.key and not d.ordered for d in package.deliverables)
    return _numeric_rules(package) or unordered or len(package.deliverables) > 1


def _halved(rules: dict[str, dict]) -> dict[str, dict]:
    return {name: {**rule, **{k: max(rule[k] / 2, TOLERANCE_FLOORS[k]) for k in _halvable(rule)}}
            for name, rule in rules.items()}


def tighten_grading(package: WorkflowPackage, rng: random.Random) -> WorkflowPackage:
    """Halve numeric tolerances (down to a floor), grade the instructed row order of one keyed CSV, re-weight deliverables."""
    unordered = [i for i, d in enumerate(package.deliverables) if d.format == "csv" and d.key and not d.ordered]
    ordered_now = rng.choice(unordered) if unordered else None
    heavier = rng.randrange(len(package.deliverables))

    def tightened(index: int | None, spec: DeliverableSpec) -> DeliverableSpec:
        update = {"columns": _halved(spec.columns), "fields": _halved(spec.fields)}
        if index is not None and index == ordered_now:
            update["ordered"] = True
        if index is not None and index == heavier and len(package.deliverables) > 1:
            update["weight"] = spec.weight + 1
        return spec.model_copy(update=update)

    return package.model_copy(update={
        "deliverables": [tightened(i, d) for i, d in enumerate(package.deliverables)],
        "optional_deliverables": [tightened(None, d) for d in package.optional_deliverables],
    })


OPERATORS: tuple[Operator, ...] = (
    Operator("resample_data", "data", _varies_data, resample_data),
    Operator("retarget_object", "object", lambda p: bool(_open_variants(p, "object")), retarget("object")),
    Operator("change_operations", "operations", lambda p: bool(_open_variants(p, "operations")), retarget("operations")),
    Operator("reshape_deliverables", "deliverables", lambda p: bool(p.optional_deliverables), reshape_deliverables),
    Operator("relayout_table", "dependencies", lambda p: bool(_relayout_candidates(p)), relayout_table),
    Operator("tighten_grading", "grading", _tightens, tighten_grading),
)
"""Every operator, in the order they are applied when several are chosen."""
