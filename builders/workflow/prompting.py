"""The messages a workflow solver sees: the job, its input files, its deliverables and its limits."""

from __future__ import annotations

from taskforge.schemas import Message
from taskforge.schemas.workflow import INPUTS, OUTPUTS, WorkflowPackage

SYSTEM = (
    "You are a professional analyst working in a sandboxed workspace with no network access. "
    "Input files are under inputs/ (read-only). Write every deliverable under outputs/ with exactly the "
    "file name, columns and formats requested; anything else in outputs/ is ignored."
)


def _table_line(name: str, package: WorkflowPackage) -> str:
    spec = package.tables[name]
    files = ", ".join(f"`{path}`" for path in spec.files(name))
    if spec.layout == "parts":
        shape = f"CSV with a header, split into {spec.parts} parts with the same columns (one table: read them all, in part order)"
    elif spec.layout == "jsonl":
        shape = "JSON lines, one object per row with every value a string"
    else:
        shape = "CSV with a header"
    return f"- {files}: {spec.describe} ({shape})."


def with_params(text: str, package: WorkflowPackage) -> str:
    """A description with the task's `{parameter}` placeholders filled in (other braces left as written)."""
    for name, value in package.params.items():
        text = text.replace("{" + name + "}", value)
    return text


def user_message(package: WorkflowPackage) -> str:
    """The task statement: title, instructions with parameters, inputs, deliverables and the time budget."""
    inputs = [_table_line(name, package) for name in package.tables]
    inputs += [f"- `{INPUTS}/{name}`: {with_params(spec.describe, package)}." for name, spec in package.files.items()]
    deliverables = [f"- `{d.path}`: {with_params(d.describe, package)}." for d in package.deliverables]
    tools = ", ".join(f"{name} {version}" for name, version in sorted(package.tools.items()))
    return "\n".join([
        f"# {package.title}", "", package.rendered_instructions(), "",
        f"## Input files (under {INPUTS}/)", *inputs, "",
        f"## Deliverables (write them under {OUTPUTS}/)", *deliverables, "",
        f"Tools: {tools} (standard library). Time budget: {package.time_budget_s // 60} minutes.",
    ])


def messages(package: WorkflowPackage) -> list[Message]:
    """The system and user messages of a workflow task."""
    return [Message(role="system", content=SYSTEM), Message(role="user", content=user_message(package))]
