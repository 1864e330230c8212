"""The cases of a pytest test's `parametrize` marks, read with `ast`, and which of them a test id names.

A mark's cases are read where its argument names and values are written out (in the mark or in a constant of its
file: `parametrize("a, b", CASES)`), `pytest.param(…)` unwrapped. Each case's id is made as pytest makes it (the
value for a string, number, bool or None, the name of a class or function, else the argument's name and the
case's index, joined by `-`; an `ids=[…]` entry or `pytest.param(id=…)` instead; a suffix where cases share one),
and a test id's parameter part (`test_div[0-ZeroDivisionError]`) names the case whose ids, one per mark in the
order pytest applies the marks, make it, after the ids of fixture parameters, which pytest puts first.
"""

from __future__ import annotations

import ast
import hashlib
from collections import Counter, defaultdict
from dataclasses import dataclass
from itertools import product
from math import prod

LONG_STRING = 100
"""The longest string pytest 9 makes an id of as it is, whatever its long-string strategy."""
MAX_IDS = 1024
"""The most ids one case's values are spelled in before the case is left unmatched (each value has a few)."""

Definition = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef


def dotted(node: ast.expr | None) -> str | None:
    """`a.b.C` for a name or attribute chain, else None."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        owner = dotted(node.value)
        return f"{owner}.{node.attr}" if owner else None
    return None


def keyword(call: ast.Call, *names: str) -> ast.expr | None:
    """A call's keyword argument given as any of `names`."""
    return next((k.value for k in call.keywords if k.arg in names), None)


def argument(call: ast.Call, position: int, name: str) -> ast.expr | None:
    """A call's argument given at `position` or as keyword `name`."""
    return call.args[position] if len(call.args) > position else keyword(call, name)


@dataclass(frozen=True)
class PytestNames:
    """How a module reaches pytest: its module aliases (`pytest`) and what it imports from it (`raises`, `mark`)."""

    modules: frozenset[str]
    imported: dict[str, str]

    @classmethod
    def of(cls, tree: ast.Module) -> PytestNames:
        modules = {"pytest"}
        imported: dict[str, str] = {}
        for node in tree.body:
            if isinstance(node, ast.Import):
                modules |= {alias.asname for alias in node.names if alias.name == "pytest" and alias.asname}
            elif isinstance(node, ast.ImportFrom) and node.module == "pytest":
                imported |= {alias.asname or alias.name: alias.name for alias in node.names}
        return cls(frozenset(modules), imported)

    def name(self, node: ast.expr) -> str | None:
        """What of pytest an expression names (`raises`, `mark.parametrize`, `param`), else None."""
        first, _, rest = (dotted(node) or "").partition(".")
        if first in self.modules:
            return rest or None
        return ".".join(filter(None, [self.imported[first], rest])) if first in self.imported else None


@dataclass(frozen=True)
class Value:
    """What a name in a test stands for in one case it runs: a parametrised argument's value or a class attribute,
    with how the file it is written in reaches pytest."""

    node: ast.expr
    pytest: PytestNames


Binding = dict[str, Value]
"""The names a test's body reads (`expected`, `self.error`) that stand for values, in one case it runs."""


def assignments(body: list[ast.stmt]) -> dict[str, ast.expr]:
    """The names a module or class body assigns (`CASES = [...]`), with the value assigned last."""
    found: dict[str, ast.expr] = {}
    for node in body:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if (
            isinstance(node, ast.AnnAssign) and node.value is not None) else []
        found |= {target.id: node.value for target in targets if isinstance(target, ast.Name)}
    return found


@dataclass(frozen=True)
class Case:
    """One parameter set of a `parametrize` mark: the values it gives its arguments and the ids pytest may give
    it (none where they cannot be told)."""

    values: Binding
    ids: frozenset[str]


def _escaped(text: str) -> set[str]:
    """A string id as pytest writes it (non-ASCII and control characters escaped), and as written (where a
    project turns the escaping off)."""
    return {text.encode("unicode_escape").decode("ascii"), text}


def _given_id(node: ast.expr | None) -> set[str] | None:
    """The id an `ids=[…]` entry or `pytest.param(id=…)` gives, None where it leaves pytest to make one."""
    if not isinstance(node, ast.Constant) or node.value is None:
        return None
    return _escaped(node.value) if isinstance(node.value, str) else {str(node.value)}


def _value_ids(node: ast.expr, argname: str, index: int, constants: dict[str, ast.expr]) -> set[str]:
    """The ids pytest may make of one value of the `index`th case: the literal for a string, number, bool or
    None (for a string longer than `LONG_STRING`, pytest 9's `parametrize_long_str_id_strategy` may make it the
    fallback or a sha256 instead); the name for a class or function (an enum member spelled `Color.RED`); else
    the fallback, the argument's name and the index."""
    fallback = f"{argname}{index}"
    node = constants.get(node.id, node) if isinstance(node, ast.Name) else node
    if isinstance(node, ast.Lambda):
        return {"<lambda>"}
    name = dotted(node)
    if name:
        parts = name.split(".")
        return {parts[-1], ".".join(parts[-2:]), fallback}
    try:
        value = ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return {fallback}
    if isinstance(value, (str, bytes)):
        spelled = _escaped(value) if isinstance(value, str) else {"".join(
            c if c.isprintable() else f"\\x{ord(c):02x}" for c in value.decode("ascii", "backslashreplace"))}
        return spelled if len(value) <= LONG_STRING else spelled | {fallback, hashlib.sha256(
            value.encode() if isinstance(value, str) else value).hexdigest()}
    return {str(value)} if value is None or isinstance(value, (bool, int, float, complex)) else {fallback}


def _sequence(node: ast.expr | None, constants: dict[str, ast.expr]) -> list[ast.expr] | None:
    """The items of a list or tuple written out, or of a constant naming one; None for anything computed."""
    node = constants.get(node.id, node) if isinstance(node, ast.Name) else node
    return list(node.elts) if isinstance(node, (ast.List, ast.Tuple)) else None


def _argnames(node: ast.expr | None) -> list[str] | None:
    """A mark's argument names: `"a, b"` or `["a", "b"]`."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [name.strip() for name in node.value.split(",") if name.strip()]
    names = [item.value for item in node.elts] if isinstance(node, (ast.List, ast.Tuple)) else []
    return names if names and all(isinstance(name, str) for name in names) else None


def _indirect(node: ast.expr | None, names: list[str]) -> set[str]:
    """The arguments a mark gives to fixtures (`indirect=True` or a list of names): their values are not the
    test's."""
    if isinstance(node, ast.Constant):
        return set(names) if node.value is True else set()
    return {item.value for item in node.elts if isinstance(item, ast.Constant)} if isinstance(
        node, (ast.List, ast.Tuple)) else set()


def _row(row: ast.expr, count: int, pytest: PytestNames) -> tuple[list[ast.expr] | None, ast.expr | None]:
    """A parameter set's values (None where they are not written out one by one) and its `pytest.param` id."""
    if isinstance(row, ast.Call) and pytest.name(row.func) == "param":
        return (list(row.args) if len(row.args) == count else None), keyword(row, "id")
    if count == 1:
        return [row], None
    return (list(row.elts) if isinstance(row, (ast.List, ast.Tuple)) and len(row.elts) == count else None), None


def _unique(ids: list[set[str]]) -> list[frozenset[str]]:
    """Each case's ids with the suffixes pytest adds to an id several cases share (`a0`, `a1`; `1_0` after a
    digit in pytest 8)."""
    counts = Counter(i for case in ids for i in case)
    taken: dict[str, int] = defaultdict(int)
    unique = []
    for case in ids:
        suffixed = set(case)
        for shared in sorted(i for i in case if counts[i] > 1):
            suffixed |= {f"{shared}{taken[shared]}", f"{shared}_{taken[shared]}"} if shared[-1:].isdigit() else {
                f"{shared}{taken[shared]}"}
            taken[shared] += 1
        unique.append(frozenset(suffixed))
    return unique


def _cases(mark: ast.Call, pytest: PytestNames, constants: dict[str, ast.expr]) -> list[Case] | None:
    """The parameter sets of a `parametrize` mark, None where its names or values are computed."""
    names = _argnames(argument(mark, 0, "argnames"))
    rows = _sequence(argument(mark, 1, "argvalues"), constants)
    if names is None or rows is None:
        return None
    given = argument(mark, 3, "ids")
    listed = [] if given is None else _sequence(given, constants)
    indirect = _indirect(argument(mark, 2, "indirect"), names)
    cases: list[tuple[Binding, set[str]]] = []
    for index, row in enumerate(rows):
        values, param_id = _row(row, len(names), pytest)
        spelled = [_value_ids(value, name, index, constants) for name, value in zip(names, values or [])]
        made = ({"-".join(parts) for parts in product(*spelled)}
                if values is not None and listed is not None and prod(map(len, spelled)) <= MAX_IDS else set())
        ids = _given_id(param_id) or _given_id(listed[index] if listed and index < len(listed) else None) or made
        cases.append(({name: Value(value, pytest) for name, value in zip(names, values or [])
                       if name not in indirect}, ids))
    return [Case(values, ids) for (values, _), ids in zip(cases, _unique([ids for _, ids in cases]))]


def _parametrize_marks(node: ast.Module | Definition, pytest: PytestNames) -> list[ast.Call]:
    """The `parametrize` marks a module, class or function carries, in the order pytest applies them: its
    `pytestmark`, then its decorators from the innermost out."""
    body = node.body if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else []
    assigned = assignments(body).get("pytestmark")
    marked = [] if assigned is None else _sequence(assigned, {}) or [assigned]
    marks = [*marked, *reversed(getattr(node, "decorator_list", []))]
    return [mark for mark in marks if isinstance(mark, ast.Call) and pytest.name(mark.func) == "mark.parametrize"]


def mark_cases(node: ast.Module | Definition, pytest: PytestNames, constants: dict[str, ast.expr]
               ) -> list[list[Case] | None]:
    """The cases of each `parametrize` mark a module, class or function carries, in the order pytest applies the
    marks (None for a mark whose names or values are computed), its values read with `constants`."""
    return [_cases(mark, pytest, constants) for mark in _parametrize_marks(node, pytest)]


def _matching(marks: list[list[Case]], params: str) -> list[Binding]:
    """The values of the cases whose ids, one per mark joined by `-`, make a test id's parameter part."""
    if not marks:
        return [{}] if not params else []
    found: list[Binding] = []
    for case in marks[0]:
        for spelled in case.ids:
            if len(marks) > 1 and params.startswith(spelled + "-"):
                found += [case.values | rest for rest in _matching(marks[1:], params[len(spelled) + 1:])]
            elif len(marks) == 1 and params == spelled:
                found.append(case.values)
    return found


def bindings(marks: list[list[Case] | None], params: str | None) -> list[Binding]:
    """The values a test's body reads in the case its id names (after the ids of fixture parameters, which pytest
    puts first); every case's where the id cannot be told apart."""
    readable = [cases for cases in marks if cases is not None]
    if params is not None and len(readable) == len(marks):
        for start in [0, *(index + 1 for index, char in enumerate(params) if char == "-")]:
            found = _matching(readable, params[start:])
            if found:
                return found
    return [case.values for cases in readable for case in cases] or [{}]


