"""Workflow package audit, a part of the workflow `reference` strategy: a deterministic audit of a package as
a whole, without its construction notes.

It checks that the statement and the grading agree (every deliverable, input
file and parameter is stated; the grader grades exactly the stated
deliverables, every column or field of them, with sane tolerances), that the
reference is usable (present, non-empty), that tools and time are pinned, and
that the reference workflow only imports the standard library and no network
or process modules.
"""

from __future__ import annotations

import ast
import csv
import hashlib
import io
import json
import statistics
import sys
from typing import Any

from taskforge.graders.workflow.deliverables import parse_number
from taskforge.schemas import Task, ValidationResult
from taskforge.schemas.workflow import GradingSpec, WorkflowGrader, WorkflowPackage, WorkflowReference
from taskforge.validators.workflow.rederive import rerun

FORBIDDEN_IMPORTS = frozenset({"socket", "ssl", "http", "urllib", "ftplib", "smtplib", "subprocess", "ctypes",
                               "multiprocessing", "asyncio", "shutil", "webbrowser", "xmlrpc"})
ALLOWED_LOCAL_IMPORTS = frozenset({"wfio"})
RULE_TYPES = frozenset({"number", "text", "list", "set"})
MAX_REL_TOLERANCE = 0.05
MAX_ABS_SHARE = 0.05
TIME_BUDGET_S = (60, 7200)


def _imports(source: str) -> set[str]:
    modules = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            modules.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            modules.add(node.module.split(".")[0])
    return modules


def workflow_problems(workflow: dict[str, str]) -> list[str]:
    """Imports of the reference workflow outside the standard library, or of network and process modules."""
    problems = []
    for name, source in sorted(workflow.items()):
        try:
            modules = _imports(source)
        except SyntaxError as exc:
            problems.append(f"{name} does not parse: {exc.msg} (line {exc.lineno})")
            continue
        foreign = sorted(m for m in modules if m not in sys.stdlib_module_names and m not in ALLOWED_LOCAL_IMPORTS)
        banned = sorted(modules & FORBIDDEN_IMPORTS)
        if foreign:
            problems.append(f"{name} imports modules outside the standard library: {', '.join(foreign)}")
        if banned:
            problems.append(f"{name} imports network or process modules: {', '.join(banned)}")
    return problems


def statement_problems(package: WorkflowPackage, prompt: str) -> list[str]:
    """Deliverables, input files or parameter values the solver is never told about."""
    problems = [f"the prompt never names {d.path}" for d in package.deliverables if d.path not in prompt]
    problems += [f"the prompt never names {p}" for p in package.input_paths() if p not in prompt]
    problems += [f"the prompt never states parameter {k}={v!r}" for k, v in package.params.items() if v not in prompt]
    if set(package.input_paths()) != set(package.inputs):
        problems.append("the input files differ from the declared tables and files")
    return problems


def _values(text: str, spec: GradingSpec) -> dict[str, list[Any]]:
    """Reference values per graded column (CSV) or field (JSON)."""
    if spec.format == "text":
        return {}
    if spec.format == "csv":
        rows = list(csv.DictReader(io.StringIO(text)))
        return {name: [row.get(name, "") for row in rows] for name in spec.columns}
    document = json.loads(text)
    values = {}
    for path in spec.fields:
        node = document
        for part in path.split("."):
            node = node[int(part)] if isinstance(node, list) else node.get(part) if isinstance(node, dict) else None
        values[path] = [node]
    return values


def _tolerance_problems(where: str, rule: dict[str, Any], values: list[Any]) -> list[str]:
    kind = rule.get("type", "text")
    if kind not in RULE_TYPES:
        return [f"{where}: unknown comparison {kind!r}"]
    if kind != "number":
        return []
    absolute, relative = float(rule.get("abs", 0)), float(rule.get("rel", 0))
    problems = []
    if absolute < 0 or not 0 <= relative <= MAX_REL_TOLERANCE:
        problems.append(f"{where}: tolerances must be abs >= 0 and 0 <= rel <= {MAX_REL_TOLERANCE}")
    magnitudes = [abs(n) for n in map(parse_number, values) if n]
    if magnitudes and absolute > MAX_ABS_SHARE * statistics.median(magnitudes):
        problems.append(f"{where}: abs tolerance {absolute} exceeds {MAX_ABS_SHARE:.0%} of the typical value")
    return problems


def grading_problems(task: Task, package: WorkflowPackage) -> list[str]:
    """Disagreements between the stated deliverables, the grader and the reference, and unsafe tolerances."""
    grader = WorkflowGrader.of(task)
    problems = []
    if grader.specs() != [d.grading() for d in package.deliverables]:
        problems.append("the grader's deliverables differ from the stated ones")
    if hashlib.sha256(grader.program.source.encode()).hexdigest() != grader.program.sha256:
        problems.append("the grader program does not match its pinned hash")
    reference = rerun(task).deliverables
    for spec in grader.deliverables:
        path, text = spec.path, reference.get(spec.path)
        if text is None or not text.strip():
            problems.append(f"{path}: no reference content")
            continue
        try:
            values = _values(text, spec)
        except (ValueError, AttributeError, IndexError, TypeError):
            problems.append(f"{path}: the reference is not valid {spec.format}")
            continue
        if spec.format == "csv":
            header, *rows = [line for line in csv.reader(io.StringIO(text)) if line]
            graded = set(spec.key) | set(spec.columns)
            problems += [f"{path}: column {c} is not graded" for c in header if c not in graded]
            problems += [f"{path}: graded column {c} is not in the reference" for c in sorted(graded - set(header))]
            if not rows:
                problems.append(f"{path}: the reference has no rows")
        rules = {name: rule for name, rule in spec.columns.items() if name not in spec.key} or spec.fields
        if spec.format != "text" and not rules:
            problems.append(f"{path}: no column or field is compared")
        for name, rule in rules.items():
            problems += _tolerance_problems(f"{path}:{name}", rule, values.get(name, []))
    return problems


class PackageAudit:
    """Rejects a workflow package that the deterministic audit finds unsound."""

    name = "package_audit"

    def applies_to(self, task: Task) -> bool:
        return task.family == "workflow"

    def run(self, task: Task) -> ValidationResult:
        package = WorkflowPackage.of(task)
        prompt = "\n".join(m.content for m in task.prompt)
        problems = statement_problems(package, prompt) + grading_problems(task, package)
        problems += workflow_problems(WorkflowReference.of(task).workflow)
        if not package.tools.get("python", "").startswith("3."):
            problems.append("the Python version is not pinned")
        if not TIME_BUDGET_S[0] <= package.time_budget_s <= TIME_BUDGET_S[1]:
            problems.append(f"time budget {package.time_budget_s}s outside {TIME_BUDGET_S[0]}..{TIME_BUDGET_S[1]}s")
        return ValidationResult(check=self.name, passed=not problems, reason="; ".join(problems) or None,
                                detail={"problems": problems})
