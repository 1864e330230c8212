"""Helpers shared by reference workflows: read input tables however they are laid out, write deliverables.

This module runs inside the sandbox next to a task's `reference.py` (standard
library only). Input tables are read by name, so a workflow keeps working when
evolution splits a table into parts (`name.part1.csv`, `name.part2.csv` …) or
converts it to JSON lines (`name.jsonl`, every value a string).
"""

from __future__ import annotations

import csv
import glob
import json
import os
from decimal import ROUND_HALF_UP, Decimal
from typing import Any, Iterable

INPUTS = "inputs"
OUTPUTS = "outputs"
PARAMS = "params.json"


def part_name(stem: str, index: int) -> str:
    """The file name of part `index` (from 1) of a table split into parts."""
    return f"{stem}.part{index}.csv"


def params() -> dict[str, Any]:
    """The task's parameters (the values its instructions state)."""
    with open(PARAMS, encoding="utf-8") as handle:
        return json.load(handle)


def table(stem: str) -> list[dict[str, str]]:
    """The rows of input table `stem`: one CSV, its parts in order, or JSON lines."""
    whole = os.path.join(INPUTS, f"{stem}.csv")
    parts = sorted(glob.glob(os.path.join(INPUTS, f"{stem}.part*.csv")),
                   key=lambda p: int(p.rsplit(".part", 1)[1].split(".")[0]))
    lines = os.path.join(INPUTS, f"{stem}.jsonl")
    if os.path.exists(lines):
        with open(lines, encoding="utf-8") as handle:
            return [json.loads(line) for line in handle if line.strip()]
    rows: list[dict[str, str]] = []
    for path in [whole] if os.path.exists(whole) else parts:
        with open(path, encoding="utf-8", newline="") as handle:
            rows.extend(csv.DictReader(handle))
    if not rows and not parts and not os.path.exists(whole):
        raise FileNotFoundError(f"no input table named {stem!r} under {INPUTS}/")
    return rows


def text(name: str) -> str:
    """The text of an input file."""
    with open(os.path.join(INPUTS, name), encoding="utf-8") as handle:
        return handle.read()


def _target(name: str) -> str:
    os.makedirs(OUTPUTS, exist_ok=True)
    return os.path.join(OUTPUTS, name)


def write_csv(name: str, columns: list[str], rows: Iterable[dict[str, Any]]) -> None:
    """Write a deliverable CSV with exactly these columns."""
    with open(_target(name), "w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=columns, lineterminator="\n")
        writer.writeheader()
        for row in rows:
            writer.writerow({c: row[c] for c in columns})


def write_json(name: str, document: Any) -> None:
    """Write a deliverable JSON document (sorted keys, indented)."""
    with open(_target(name), "w", encoding="utf-8") as handle:
        json.dump(document, handle, indent=2, sort_keys=True)
        handle.write("\n")


def write_text(name: str, content: str) -> None:
    """Write a deliverable text file."""
    with open(_target(name), "w", encoding="utf-8") as handle:
        handle.write(content)


def dec(value: str | int | float) -> Decimal:
    """An exact decimal from a cell."""
    return Decimal(str(value).strip() or "0")


def rounded(value: Decimal | float, places: int = 2) -> Decimal:
    """A value rounded half up to `places` decimals."""
    return Decimal(str(value)).quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)


def fmt(value: Decimal | float, places: int = 2) -> str:
    """A value as text with exactly `places` decimals, rounded half up."""
    return f"{rounded(value, places):.{places}f}"
