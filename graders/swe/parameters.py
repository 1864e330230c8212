"""Parameters a fix adds to functions that exist at the base commit, and what the base commit's docstrings say
about them, read with `ast` over each Python file at the base commit and as the fix leaves it.

A hidden test that passes a parameter the fix adds fails at the base commit with `TypeError: f() got an
unexpected keyword argument 'x'` (or `f() takes 2 positional arguments but 3 were given`): the symptom shows that
the parameter is missing, not what it does (`graders.swe.specification`).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

from taskforge.graders.swe.functions import parse_module, post_image
from taskforge.graders.swe.patch import is_test_path, split_files
from taskforge.graders.swe.safe_git import text_in_tree

_DIRECTIVE_BLOCK = re.compile(r"^(?P<indent>[ \t]*)\.\.\s+[\w:-]+::.*(?:\n(?:(?P=indent)[ \t]+.*|[ \t]*)(?=\n|\Z))*",
                              re.MULTILINE)
"""A Sphinx directive (`.. versionchanged:: 8.2`) and the lines indented under it (`Added the x parameter.`)."""


@dataclass(frozen=True)
class AddedParameters:
    """A function of the base commit (its qualified name, `Option.__init__`) that the fix gives new parameters:
    their names, how many positional arguments it took and takes (None: any, `*args`), and the base commit's
    docstrings of it (and of its class, for `__init__`, where click documents a constructor's parameters)."""

    function: str
    names: tuple[str, ...]
    positional_before: int | None
    positional_after: int | None
    docstrings: tuple[str, ...]

    def named(self, function: str) -> bool:
        """A function as a `TypeError` names it: its qualified name (`<locals>` steps left out), or its bare name
        as Python before 3.10 gives it."""
        function = function.replace(".<locals>", "")
        return function == self.function or ("." not in function and self.function.rsplit(".", 1)[-1] == function)


def _functions(tree: ast.Module) -> dict[str, tuple[ast.FunctionDef | ast.AsyncFunctionDef, ast.ClassDef | None]]:
    """Every function of a module by qualified name, with the class it is defined in (None: none)."""
    found: dict[str, tuple[ast.FunctionDef | ast.AsyncFunctionDef, ast.ClassDef | None]] = {}
    pending: list[tuple[ast.AST, str, ast.ClassDef | None]] = [(tree, "", None)]
    while pending:
        node, prefix, owner = pending.pop()
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                found.setdefault(prefix + child.name, (child, owner))
                pending.append((child, f"{prefix}{child.name}.", None))
            elif isinstance(child, ast.ClassDef):
                pending.append((child, f"{prefix}{child.name}.", child))
            elif isinstance(child, ast.stmt):
                pending.append((child, prefix, owner))
    return found


def _parameters(function: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
    """The names a call can pass by position or keyword (`*args` and `**kwargs` left out)."""
    arguments = function.args
    return [a.arg for a in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]]


def _positional(function: ast.FunctionDef | ast.AsyncFunctionDef) -> int | None:
    """How many positional arguments a call may pass, as Python counts them (`self` included; None: any)."""
    arguments = function.args
    return None if arguments.vararg else len(arguments.posonlyargs) + len(arguments.args)


def _parse(source: str) -> ast.Module | None:
    """The module's tree, None where it does not parse."""
    try:
        return parse_module(source)
    except (SyntaxError, ValueError):
        return None


def added_parameters(patch: str, base: Path | None) -> list[AddedParameters]:
    """Each function of the base commit's non-test Python files that the fix gives parameters it did not have
    (none without a base tree, or where a version does not parse)."""
    changes: list[AddedParameters] = []
    for piece in split_files(patch):
        if not piece.path.endswith(".py") or piece.is_new or piece.is_deleted or is_test_path(piece.path):
            continue
        source = text_in_tree(base, piece.old_path) if base is not None else None
        before = _parse(source) if source is not None else None
        after = _parse(post_image(source, piece.text)) if before is not None else None
        if before is None or after is None:
            continue
        old = _functions(before)
        for name, (function, _) in _functions(after).items():
            if name not in old:
                continue
            was, owner = old[name]
            added = [p for p in _parameters(function) if p not in _parameters(was)]
            if added:
                docstrings = [ast.get_docstring(node) or "" for node in (was, owner if was.name == "__init__"
                                                                         else None) if node is not None]
                changes.append(AddedParameters(name, tuple(added), _positional(was), _positional(function),
                                               tuple(d for d in docstrings if d)))
    return changes


def described(docstring: str, name: str) -> list[str]:
    """The lines of a docstring that describe a parameter: each line naming it (outside Sphinx directives such as
    `.. versionadded::`) and the lines indented under it (a field's continuation)."""
    lines = _DIRECTIVE_BLOCK.sub("", docstring).splitlines()
    taken: list[str] = []
    at = 0
    while at < len(lines):
        if not re.search(rf"(?<![\w.]){re.escape(name)}(?!\w)", lines[at]):
            at += 1
            continue
        indent = len(lines[at]) - len(lines[at].lstrip())
        taken.append(lines[at])
        at += 1
        while at < len(lines) and lines[at].strip() and len(lines[at]) - len(lines[at].lstrip()) > indent:
            taken.append(lines[at])
            at += 1
    return taken
