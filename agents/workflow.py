"""Builder hook for the workflow family: new rows of an input table, so that a descendant works on new data.

The builder sees the task's instructions and the table (its description,
header and rows) and writes rows in the same format with new values; the
caller's `check` holds the reply to the table (columns, numbers, new groups).
The reference workflow is then run on the extended data, and the reviewer
and judge certify the descendant in calls of their own.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from taskforge.agents.client import Agents, Reply
from taskforge.agents.structured import Check

PURPOSE = "workflow_evolution"
SYSTEM = (
    "You extend the input data of a professional workflow task. Given the task's instructions and one input table "
    "(its description, header and rows), write new rows in exactly the same format and style, with new values, as "
    "real data of this kind would have. Include cases the instructions' rules decide (the edge cases a careful "
    "analyst must handle), keep every rule the existing rows keep (balances, units, identifiers), and never copy "
    "an existing row."
)


class NewRows(BaseModel):
    """New rows of one input table."""

    rows: list[dict[str, str]] = Field(min_length=1, description="one object per row, every column as a string")


def write_rows(agents: Agents, *, instructions: str, table: str, describe: str, table_text: str, count: int,
               group_by: str | None, subject: str, check: Check) -> Reply[NewRows]:
    """Ask the builder for up to `count` new rows of `table` (shown as `table_text`); `subject` is the seed id.
    On `skipped` or `failed` the evolution goes on with its deterministic operators."""
    groups = (f" Rows are grouped by `{group_by}`: write whole groups, each with a new `{group_by}` value."
              if group_by else "")
    user = (f"# Task instructions\n\n{instructions}\n\n# Input table `{table}`: {describe}\n\n"
            f"```\n{table_text}\n```\n\nWrite between 1 and {count} new rows for this table.{groups}")
    return agents.ask("builder", SYSTEM, user, NewRows, purpose=PURPOSE, family="workflow", subject=subject,
                      check=check)
