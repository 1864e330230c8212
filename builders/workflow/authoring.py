"""The builder agent as an evolution operator: new rows written for one input table (the data axis).

Where the builder role can run, `RecordAuthor.operator()` leads the
deterministic operators: it asks the builder for new rows of one of the
tables evolution may vary (those with a drop share or jittered columns; the
largest) and appends them. A reply whose rows do not fit the table (other columns, a
non-number in a numeric column, a copied row, a reused group) is repaired or
fails; a failed or skipped call leaves the package unchanged, so the
deterministic operators vary it instead. The ids of the calls whose rows were
used are kept in `calls`, for the descendant's provenance.
"""

from __future__ import annotations

import random

from taskforge.agents.client import Agents
from taskforge.agents.workflow import NewRows, write_rows
from taskforge.builders.workflow.operators import Operator, csv_text, table_header, with_table
from taskforge.graders.workflow.deliverables import parse_number
from taskforge.schemas.workflow import WorkflowPackage, table_rows

NAME = "author_records"
MAX_NEW_ROWS = 8
SHOWN_ROWS = 40


def authored_tables(package: WorkflowPackage) -> list[str]:
    """The tables the builder may extend: those evolution is allowed to vary."""
    return [name for name, spec in package.tables.items() if spec.drop or spec.jitter]


def row_problems(new: list[dict[str, str]], header: list[str], rows: list[dict[str, str]], count: int,
                 group_by: str | None) -> list[str]:
    """Why new rows do not fit a table (empty when they do)."""
    numeric = [c for c in header if rows and all(parse_number(r[c]) is not None for r in rows if r[c].strip())]
    known = {tuple(r[c] for c in header) for r in rows}
    groups = {r[group_by] for r in rows} if group_by else set()
    problems = [f"{len(new)} rows were written, at most {count} were asked for"] if len(new) > count else []
    for n, row in enumerate(new, start=1):
        if sorted(row) != sorted(header):
            problems.append(f"row {n} has columns {sorted(row)}, the table has {sorted(header)}")
            continue
        problems += [f"row {n}: {c} = {row[c]!r} is not a number" for c in numeric
                     if row[c].strip() and parse_number(row[c]) is None]
        if tuple(row[c] for c in header) in known:
            problems.append(f"row {n} copies an existing row")
        if group_by and row[group_by] in groups:
            problems.append(f"row {n} reuses the existing {group_by} {row[group_by]!r}; new rows form new groups")
    return problems


class RecordAuthor:
    """An evolution operator along the data axis backed by the builder role of `agents`."""

    def __init__(self, agents: Agents):
        self.agents = agents
        self.calls: list[str] = []

    def operator(self) -> Operator:
        """This author as an operator that leads the deterministic ones."""
        return Operator(NAME, "data", self.applies, self.apply, lead=True)

    def applies(self, package: WorkflowPackage) -> bool:
        """Whether the builder role can run and the package has a table evolution may vary."""
        return self.agents.skip_reason("builder") is None and bool(authored_tables(package))

    def apply(self, package: WorkflowPackage, rng: random.Random) -> WorkflowPackage:
        """The package with the builder's new rows appended to its largest variable table (unchanged when the
        call fails). `rng` is left untouched, so a failed call leaves the deterministic operators the same
        choices they make without an endpoint."""
        name = max(authored_tables(package), key=lambda n: (len(table_rows(package, n)), n))
        spec, header, rows = package.tables[name], table_header(package, name), table_rows(package, name)
        count = min(MAX_NEW_ROWS, max(2, len(rows) // 5))

        def check(reply: NewRows) -> None:
            """The rows must fit the table."""
            problems = row_problems(reply.rows, header, rows, count, spec.group_by)
            if problems:
                raise ValueError("; ".join(problems))

        reply = write_rows(self.agents, instructions=package.rendered_instructions(), table=name,
                           describe=spec.describe, table_text=csv_text(header, rows[:SHOWN_ROWS]), count=count,
                           group_by=spec.group_by, subject=package.seed_id, check=check)
        if not reply.ok:
            return package
        self.calls.append(reply.call.call_id)
        return with_table(package, name, header, [*rows, *reply.value.rows])
