"""Which functions a change touches: each changed line mapped to the innermost `def` around it.

A change's functions are named `path::Qualified.name`; blank lines and lines
outside any function (imports, class attributes) name none. The builder keeps
one task per function: two fixes of the same function teach the same repair
twice. `patch_functions` names them for a whole patch from the pre-image blobs
alone (the post-image is rebuilt from the diff), so a check can read them in
any repository whose object store holds those blobs.
"""

from __future__ import annotations

import ast
import re
import threading
from typing import Callable

from taskforge.graders.swe.patch import split_files

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
_PARSING = threading.Lock()


def parse_module(source: str) -> ast.Module:
    """`ast.parse`, one thread at a time: CPython 3.11 keeps the AST converter's recursion depth in shared state,
    and two threads parsing at once fail with `SystemError: AST constructor recursion depth mismatch` (seen in a
    build whose SWE batches mined in parallel)."""
    with _PARSING:
        return ast.parse(source)


def _spans(source: str) -> list[tuple[int, int, str, bool]]:
    """(first line, last line, qualified name, is a function) of every function and class of a module,
    outermost first (only statement bodies are walked: a `def` cannot sit inside an expression)."""
    try:
        tree = parse_module(source)
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


def enclosing(spans: list[tuple[int, int, str, bool]], line: int, functions: bool = True) -> str | None:
    """The innermost function holding a line, or None when the innermost definition around it is a class, or
    there is none (with `functions` false: the innermost class, None when it is a function)."""
    holding = [(last - first, name, is_function) for first, last, name, is_function in spans if first <= line <= last]
    if not holding:
        return None
    _, name, is_function = min(holding)
    return name if is_function == functions else None


def touched_definitions(file_diff: str, old_source: str | None, new_source: str | None) -> tuple[set[str], set[str]]:
    """The qualified names of the functions a file's diff changes (added lines read in the new file, removed lines
    in the old one), and of the classes whose own lines (header, decorators, class attributes: not their methods)
    it changes."""
    new_lines, old_lines = changed_lines(file_diff)
    new_spans, old_spans = _spans(new_source or ""), _spans(old_source or "")

    def named(functions: bool) -> set[str]:
        names = ({enclosing(new_spans, n, functions) for n in new_lines}
                 | {enclosing(old_spans, n, functions) for n in old_lines})
        return {name for name in names if name}

    return named(True), named(False)


def touched_functions(path: str, file_diff: str, old_source: str | None, new_source: str | None) -> set[str]:
    """`path::name` of every function a file's diff changes."""
    return {f"{path}::{name}" for name in touched_definitions(file_diff, old_source, new_source)[0]}


_PRE_IMAGE = re.compile(r"^index ([0-9a-f]+)\.\.", re.MULTILINE)


def pre_image_blob(file_diff: str) -> str | None:
    """The object id of a file as the diff finds it (needs `git diff --full-index`); None for a new file."""
    match = _PRE_IMAGE.search(file_diff)
    return match[1] if match and set(match[1]) != {"0"} else None


def post_image(old_source: str, file_diff: str) -> str:
    """A file as its diff leaves it, rebuilt from the file before it (the diff must apply exactly)."""
    old = old_source.splitlines(keepends=True)
    new: list[str] = []
    position, in_hunk = 0, False
    for line in file_diff.splitlines(keepends=True):
        header = _HUNK.match(line)
        if header:
            start = int(header[1]) - (0 if header[2] == "0" else 1)
            new += old[position:start]
            position, in_hunk = start, True
        elif in_hunk and line[:1] in (" ", "-"):
            position += 1
            new += [line[1:]] if line[0] == " " else []
        elif in_hunk and line[:1] == "+":
            new.append(line[1:])
    return "".join(new + old[position:])


def patch_functions(patch: str, read_blob: Callable[[str], str | None]) -> set[str]:
    """`path::name` of every function a patch changes, its Python files read through `read_blob` (an object id
    to the file's text, None when it cannot be read; a file whose pre-image cannot be read names none)."""
    names: set[str] = set()
    for piece in split_files(patch):
        if not piece.path.endswith(".py") or piece.is_binary:
            continue
        blob = pre_image_blob(piece.text)
        old = read_blob(blob) if blob else ""
        if old is None:
            continue
        new = None if piece.is_deleted else post_image(old, piece.text)
        names |= touched_functions(piece.path, piece.text, old, new)
    return names
