"""Builder hook for the workflow family: new rows of an input table, so that a descendant works on new data.

The builder sees the task's instructions and the table: its description, its
key columns, how many rows it has and which of them are shown (the first and
the last ones, the cut stated), and writes rows in the same format with new
values and new keys. The caller's `check` holds the reply to the table
(columns, numbers, new keys, new groups). The reference workflow is then run
on the extended data, and the reviewer and judge certify the descendant in
calls of their own.
"""

from __future__ import annotations

from typing import Sequence

from pydantic import BaseModel, Field

from taskforge.agents.client import Agents, Reply
from taskforge.agents.structured import Check

PURPOSE = "workflow_evolution"
SYSTEM = (
    "You extend the input data of a professional workflow task. Given the task's instructions and one input table "
    "(its description, key columns, and rows), write new rows in exactly the same format and style, with new "
    "values, as real data of this kind would have. Every new row needs a key no existing row has — you see only "
    "some of the rows, so continue after the last one rather than inside the range shown. Include cases the "
    "instructions' rules decide (the edge cases a careful analyst must handle), keep every rule the existing rows "
    "keep (balances, units, identifiers), and never copy an existing row."
)


class NewRows(BaseModel):
    """New rows of one input table."""

    rows: list[dict[str, str]] = Field(min_length=1, description="one object per row, every column as a string")


def write_rows(agents: Agents, *, instructions: str, table: str, describe: str, table_text: str, shown: str,
               key: Sequence[str], count: int, group_by: str | None, subject: str, check: Check) -> Reply[NewRows]:
    """Ask the builder for up to `count` new rows of `table` (shown as `table_text`; `shown` says which rows),
    whose `key` columns identify a row; `subject` is the seed id. On `skipped` or `failed` the evolution goes
    on with its deterministic operators."""
    keys = (f" Each row is identified by its key ({', '.join(key)}): every new row needs a key that no existing "
            "row has, including the rows not shown." if key else "")
    groups = (f" Rows are grouped by `{group_by}`: write whole groups, each with a new `{group_by}` value."
              if group_by else "")
    user = (f"# Task instructions\n\n{instructions}\n\n# Input table `{table}`: {describe}\n\n{shown}{keys}\n\n"
            f"```\n{table_text.rstrip()}\n```\n\nWrite between 1 and {count} new rows for this table.{groups}")
    return agents.ask("builder", SYSTEM, user, NewRows, purpose=PURPOSE, family="workflow", subject=subject,
                      check=check)
