"""The builder agent as an evolution operator: new rows written for one input table (the data axis).

Where the builder role can run, `RecordAuthor.operator()` leads the
deterministic operators: it asks the builder for new rows of one of the
tables evolution may vary (those with a drop share or jittered columns; the
largest) and appends them. The builder is told how many rows the table has and
which it is shown (the first and the last ones), and which columns identify a
row (`key_columns`). A reply whose rows do not fit the table (other columns, a
non-number in a numeric column, a copied row, a key an existing row has, a
reused group) is repaired or fails; a failed or skipped call leaves the
package unchanged, so the
deterministic operators vary it instead. The ids of the calls whose rows were
used are kept in `calls`, for the descendant's provenance.
"""

from __future__ import annotations

import itertools
import random

from taskforge.agents.client import Agents
from taskforge.agents.workflow import NewRows, write_rows
from taskforge.builders.workflow.operators import Operator, csv_text, table_header, with_table
from taskforge.graders.workflow.deliverables import parse_number
from taskforge.schemas.workflow import WorkflowPackage, table_rows

NAME = "author_records"
MAX_NEW_ROWS = 8
HEAD_ROWS = 30
TAIL_ROWS = 10
MAX_KEY_COLUMNS = 3


def authored_tables(package: WorkflowPackage) -> list[str]:
    """The tables the builder may extend: those evolution is allowed to vary."""
    return [name for name, spec in package.tables.items() if spec.drop or spec.jitter]


def key_columns(header: list[str], rows: list[dict[str, str]], varied: set[str]) -> list[str]:
    """The fewest columns (at most `MAX_KEY_COLUMNS`, none of the `varied` ones evolution jitters) whose values
    tell every row apart, looked for first among the columns that hold no decimal numbers (an identifier, a
    date, a year and a month; an amount that happens to differ in every row is no key); empty when there are none."""
    candidates = [c for c in header if c not in varied]
    plain = [c for c in candidates if not any("." in r[c] and parse_number(r[c]) is not None for r in rows)]
    for columns in (plain, candidates):
        for size in range(1, MAX_KEY_COLUMNS + 1):
            for combo in itertools.combinations(columns, size):
                if len({tuple(r[c] for c in combo) for r in rows}) == len(rows):
                    return list(combo)
    return []


def excerpt(header: list[str], rows: list[dict[str, str]]) -> tuple[str, str]:
    """A table as the builder is shown it (its first and last rows when it is long, the cut marked), and the
    sentence that says which rows it shows."""
    if len(rows) <= HEAD_ROWS + TAIL_ROWS:
        return csv_text(header, rows), f"The table has {len(rows)} rows, all shown."
    left_out = f"rows {HEAD_ROWS + 1} to {len(rows) - TAIL_ROWS}"
    tail = csv_text(header, rows[len(rows) - TAIL_ROWS:]).split("\n", 1)[1]
    return (f"{csv_text(header, rows[:HEAD_ROWS])}[… {left_out} left out …]\n{tail}",
            f"The table has {len(rows)} rows; shown are the first {HEAD_ROWS} and the last {TAIL_ROWS} "
            f"({left_out} are left out).")


def row_problems(new: list[dict[str, str]], header: list[str], rows: list[dict[str, str]], count: int,
                 group_by: str | None, key: list[str]) -> list[str]:
    """Why new rows do not fit a table (empty when they do)."""
    numeric = [c for c in header if rows and all(parse_number(r[c]) is not None for r in rows if r[c].strip())]
    known = {tuple(r[c] for c in header) for r in rows}
    keys = {tuple(r[c] for c in key) for r in rows} if key else set()
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
        elif key and tuple(row[c] for c in key) in keys:
            problems.append(f"row {n} has the key ({', '.join(f'{c}={row[c]!r}' for c in key)}) of an existing "
                            "row; every new row needs a new key")
        if key:
            keys.add(tuple(row[c] for c in key))
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
        key = [] if spec.group_by else key_columns(header, rows, set(spec.jitter))
        table_text, shown = excerpt(header, rows)

        def check(reply: NewRows) -> None:
            """The rows must fit the table."""
            problems = row_problems(reply.rows, header, rows, count, spec.group_by, key)
            if problems:
                raise ValueError("; ".join(problems))

        reply = write_rows(self.agents, instructions=package.rendered_instructions(), table=name,
                           describe=spec.describe, table_text=table_text, shown=shown, key=key, count=count,
                           group_by=spec.group_by, subject=package.seed_id, check=check)
        if not reply.ok:
            return package
        self.calls.append(reply.call.call_id)
        return with_table(package, name, header, [*rows, *reply.value.rows])
