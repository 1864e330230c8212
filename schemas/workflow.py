"""The workflow family's contract: the package (payload), the reference run (reference) and the grader
program with its deliverable specs (grader), shared by its builder and its validators.

A package is the public part of a workflow task (instructions, parameters,
input files, deliverable and grading specs, how it may evolve, pinned tools,
time budget). The reference workflow and its outputs are hidden and live in the
task's `reference`. `summarize` condenses a package and its reference into the
figures a judge compares between a descendant and its ancestor.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
from typing import Any, Literal

from pydantic import Field

from taskforge.schemas.base import Record, canonical_json
from taskforge.schemas.family import FamilyGrader, FamilyPayload, FamilyReference

Axis = Literal["object", "data", "operations", "dependencies", "deliverables", "grading"]
AXES: tuple[str, ...] = ("object", "data", "operations", "dependencies", "deliverables", "grading")
INPUTS = "inputs"
OUTPUTS = "outputs"


class Jitter(Record):
    """How a numeric column may be varied: by up to ±`rel` of its value, written with `places` decimals."""

    rel: float = Field(gt=0, lt=1)
    places: int = Field(ge=0, le=6)


class TableSpec(Record):
    """An input table (`inputs/<name>.csv` as shipped) and how evolution may vary and lay it out."""

    describe: str
    group_by: str | None = None
    drop: float = Field(default=0.0, ge=0, lt=0.5)
    jitter: dict[str, Jitter] = Field(default_factory=dict)
    layout: Literal["csv", "parts", "jsonl"] = "csv"
    parts: int = Field(default=1, ge=1, le=4)

    def files(self, name: str) -> list[str]:
        """The input files that hold this table in its current layout."""
        if self.layout == "parts":
            return [f"{INPUTS}/{name}.part{i}.csv" for i in range(1, self.parts + 1)]
        return [f"{INPUTS}/{name}.{'jsonl' if self.layout == 'jsonl' else 'csv'}"]


class FileSpec(Record):
    """A free-text input file and how evolution may thin it (drop lines or blank-line blocks)."""

    describe: str
    unit: Literal["line", "block"] = "line"
    drop: float = Field(default=0.0, ge=0, lt=0.5)
    keep_first: int = Field(default=0, ge=0)
    keep_last: int = Field(default=0, ge=0)


class Variant(Record):
    """An alternative setting of some parameters, and which axis of the task it changes."""

    axis: Literal["object", "operations"]
    params: dict[str, str]


class DeliverableSpec(Record):
    """A file the solver must write under `outputs/`, and how the grader compares it."""

    path: str = Field(pattern=r"^outputs/[A-Za-z0-9_.-]+$")
    format: Literal["csv", "json", "text"]
    describe: str
    weight: float = Field(default=1.0, gt=0)
    key: list[str] = Field(default_factory=list)
    ordered: bool = False
    columns: dict[str, dict[str, Any]] = Field(default_factory=dict)
    fields: dict[str, dict[str, Any]] = Field(default_factory=dict)

    def grading(self) -> dict[str, Any]:
        """The spec as the grader program reads it (everything but the description)."""
        return self.model_dump(exclude={"describe"})


class GradingSpec(DeliverableSpec):
    """A deliverable as the task's grader holds it: the package's spec without its description."""

    describe: str = Field(default="", exclude=True)


class PackageSummary(Record):
    """The figures of a package and its reference that a judge compares across generations."""

    seed_id: str
    generation: int
    params: dict[str, str]
    param_axes: dict[str, str]
    table_rows: dict[str, int]
    table_digests: dict[str, str]
    layouts: dict[str, str]
    file_digests: dict[str, str]
    tools: dict[str, str]
    deliverables: list[str]
    grading: dict[str, str]
    reference: dict[str, str]


class Evolution(Record):
    """How a package was derived from its parent: the parent's summary, the operators applied, the axes changed."""

    parent: PackageSummary
    parent_task_id: str
    operators: list[str]
    axes: list[Axis]
    seed: int


class WorkflowPackage(FamilyPayload):
    """The public definition of a workflow task (its payload)."""

    seed_id: str
    root_seed_id: str
    domain: str
    title: str
    instructions: str
    params: dict[str, str] = Field(default_factory=dict)
    variants: list[Variant] = Field(default_factory=list)
    tables: dict[str, TableSpec] = Field(default_factory=dict)
    files: dict[str, FileSpec] = Field(default_factory=dict)
    deliverables: list[DeliverableSpec]
    optional_deliverables: list[DeliverableSpec] = Field(default_factory=list)
    tools: dict[str, str]
    time_budget_s: int = Field(gt=0)
    inputs: dict[str, str]
    capabilities: list[str] = Field(default_factory=list)
    """What the task exercises (the diagnosis' capability names); its label is chosen among them."""
    generation: int = 0
    evolution: Evolution | None = None

    def input_paths(self) -> list[str]:
        """Every input file the package declares, in declaration order."""
        paths = [path for name, spec in self.tables.items() for path in spec.files(name)]
        return paths + [f"{INPUTS}/{name}" for name in self.files]

    def rendered_instructions(self) -> str:
        """The instructions with the parameters filled in."""
        return self.instructions.format_map(self.params)


class ReferenceRunRecord(Record):
    """How the reference workflow's run went, in the sandbox."""

    ok: bool
    backend: str | None = None
    exit_code: int | None = None
    timed_out: bool = False
    oom_killed: bool = False
    stderr_tail: str = ""


class WorkflowReference(FamilyReference):
    """The hidden part: the required deliverables as the reference workflow wrote them (path → text), the
    workflow's files, and its run."""

    deliverables: dict[str, str]
    workflow: dict[str, str]
    run: ReferenceRunRecord


class GraderProgram(Record):
    """The grader program every workflow task carries, pinned by the sha256 of its source."""

    name: str
    sha256: str
    source: str


class WorkflowGrader(FamilyGrader):
    """The in-process scorer, the deliverables as the grader program reads them, and the program."""

    scorer: str
    deliverables: list[GradingSpec]
    program: GraderProgram

    def specs(self) -> list[dict[str, Any]]:
        """The deliverable specs as the grader program reads them (JSON)."""
        return [spec.model_dump() for spec in self.deliverables]


def table_rows(package: WorkflowPackage, name: str) -> list[dict[str, str]]:
    """The rows of one input table, whatever its layout (one CSV, CSV parts, JSON lines)."""
    spec = package.tables[name]
    rows: list[dict[str, str]] = []
    for path in spec.files(name):
        text = package.inputs[path]
        if spec.layout == "jsonl":
            rows.extend(json.loads(line) for line in text.splitlines() if line.strip())
        else:
            rows.extend(csv.DictReader(io.StringIO(text)))
    return rows


def digest(text: str) -> str:
    """A short sha256 of a text."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def param_axes(package: WorkflowPackage) -> dict[str, str]:
    """Which axis each parameter belongs to: the axis of the variants that set it, else the task object."""
    axes = {name: "object" for name in package.params}
    for variant in package.variants:
        for name in variant.params:
            axes[name] = variant.axis
    return axes


def summarize(package: WorkflowPackage, reference: dict[str, str]) -> PackageSummary:
    """A package's comparable figures: parameters, data and layout digests, deliverables, grading, reference digests."""
    rows = {name: table_rows(package, name) for name in package.tables}
    return PackageSummary(
        seed_id=package.seed_id, generation=package.generation, params=dict(package.params),
        param_axes=param_axes(package),
        table_rows={name: len(r) for name, r in rows.items()},
        table_digests={name: digest(canonical_json(r)) for name, r in rows.items()},
        layouts={name: f"{spec.layout}:{spec.parts}" for name, spec in package.tables.items()},
        file_digests={name: digest(package.inputs[f"{INPUTS}/{name}"]) for name in package.files},
        tools=dict(package.tools),
        deliverables=[d.path for d in package.deliverables],
        grading={d.path: digest(canonical_json(d.grading())) for d in package.deliverables},
        reference={path: digest(text) for path, text in sorted(reference.items())},
    )


def changed_axes(parent: PackageSummary, child: PackageSummary) -> set[str]:
    """The axes along which two package summaries differ."""
    axes = set()
    if parent.table_digests != child.table_digests or parent.file_digests != child.file_digests:
        axes.add("data")
    if parent.layouts != child.layouts or parent.tools != child.tools:
        axes.add("dependencies")
    for name in set(parent.params) | set(child.params):
        if parent.params.get(name) != child.params.get(name):
            axes.add(parent.param_axes.get(name, "object"))
    if set(parent.deliverables) != set(child.deliverables):
        axes.add("deliverables")
    if any(parent.grading[p] != child.grading[p] for p in set(parent.grading) & set(child.grading)):
        axes.add("grading")
    return axes
