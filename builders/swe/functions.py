"""Which functions a change touches: each changed line mapped to the innermost `def` around it.

A change's functions are named `path::Qualified.name`; blank lines and lines
outside any function (imports, class attributes) name none. The builder keeps
one task per function: two fixes of the same function teach the same repair
twice.
"""

from __future__ import annotations

import ast
import re

_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@", re.MULTILINE)


def changed_lines(file_diff: str) -> tuple[set[int], set[int]]:
    """Line numbers a file's diff changes: in the new file (added lines) and in the old one (removed lines)."""
    new_lines: set[int] = set()
    old_lines: set[int] = set()
    old = new = 0
    in_hunk = False
    for line in file_diff.splitlines():
        header = _HUNK.match(line)
        if header:
            old, new, in_hunk = int(header[1]), int(header[3]), True
            continue
        if not in_hunk:
            continue
        if line.startswith("+"):
            new_lines |= {new} if line[1:].strip() else set()
            new += 1
        elif line.startswith("-"):
            old_lines |= {old} if line[1:].strip() else set()
            old += 1
        elif line.startswith("\\"):
            continue
        else:
            old += 1
            new += 1
    return new_lines, old_lines


_BODIES = ("body", "orelse", "finalbody", "handlers", "cases")


def _spans(source: str) -> list[tuple[int, int, str, bool]]:
    """(first line, last line, qualified name, is a function) of every function and class of a module,
    outermost first (only statement bodies are walked: a `def` cannot sit inside an expression)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return []
    spans: list[tuple[int, int, str, bool]] = []
    pending: list[tuple[ast.AST, str]] = [(tree, "")]
    while pending:
        node, prefix = pending.pop()
        for field in _BODIES:
            for child in getattr(node, field, None) or []:
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    name = f"{prefix}{child.name}"
                    first = min([child.lineno, *(d.lineno for d in child.decorator_list)])
                    spans.append((first, child.end_lineno or child.lineno, name,
                                  not isinstance(child, ast.ClassDef)))
                    pending.append((child, name + "."))
                else:
                    pending.append((child, prefix))
    return spans


def enclosing(spans: list[tuple[int, int, str, bool]], line: int) -> str | None:
    """The innermost function holding a line, or None when the innermost definition around it is a class, or
    there is none."""
    holding = [(last - first, name, is_function) for first, last, name, is_function in spans if first <= line <= last]
    if not holding:
        return None
    _, name, is_function = min(holding)
    return name if is_function else None


def touched_functions(path: str, file_diff: str, old_source: str | None, new_source: str | None) -> set[str]:
    """`path::name` of every function a file's diff changes (added lines read in the new file, removed lines in
    the old one)."""
    new_lines, old_lines = changed_lines(file_diff)
    new_spans, old_spans = _spans(new_source or ""), _spans(old_source or "")
    names = {enclosing(new_spans, n) for n in new_lines} | {enclosing(old_spans, n) for n in old_lines}
    return {f"{path}::{name}" for name in names if name}
