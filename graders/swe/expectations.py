"""What the hidden tests expect to be raised or warned: read with `ast` from the test functions a test patch adds
or changes, never from a stored field.

A test's expectations are the exceptions and warnings its own body asks for — `pytest.raises(X)`,
`pytest.raises((X, Y), match="…")`, `pytest.warns(W)`, `pytest.deprecated_call()`, unittest's
`assertRaises(X)`, `assertRaisesRegex(X, "…")`, `assertWarns(W)` — with the `match` pattern where it is a
literal string (it is part of what the hidden test checks). Names are kept as written (`ValueError`,
`tenacity.RetryError`); a name that is not a class name (a parametrised variable such as `expected`) tells a
solver nothing and is left out. A helper the test calls is not read, nor the test's decorators: only its body.

At the base commit a test can fail otherwise (a `TypeError` for a keyword that does not exist yet), and then
its output never says what the fixed code must raise: the statement states it (`stated_in` says when a text
already does).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Callable, Iterator

from taskforge.graders.swe.functions import parse_module, post_image, touched_functions
from taskforge.graders.swe.patch import split_files

_PYTEST_CALLS = {"raises": "raises", "warns": "warns", "deprecated_call": "warns"}
_UNITTEST_CALLS = {"assertRaises": "raises", "assertRaisesRegex": "raises", "assertRaisesRegexp": "raises",
                   "assertWarns": "warns", "assertWarnsRegex": "warns", "assertWarnsRegexp": "warns"}
_DEPRECATIONS = ("DeprecationWarning", "PendingDeprecationWarning", "FutureWarning")
"""What `pytest.deprecated_call()` accepts."""
_CLASS_NAME = re.compile(r"^_*[A-Z]")
BACKSLASH = "\\"


@dataclass(frozen=True)
class Expectation:
    """One exception (`raises`) or warning (`warns`) a test expects: any of `names`, its message matching
    `match` where the test gives a literal pattern."""

    kind: str
    names: tuple[str, ...]
    match: str | None = None

    @property
    def text(self) -> str:
        """As a statement says it: `raises ValueError matching 'multiplier'`."""
        pattern = f" matching {_quoted(self.match)}" if self.match else ""
        return f"{self.kind} {' or '.join(self.names)}{pattern}"

    def stated_in(self, text: str) -> bool:
        """Whether a text already names every class of it (as a whole word, a module prefix allowed) and its
        pattern."""
        return (all(re.search(rf"(?<!\w){re.escape(name.rsplit('.', 1)[-1])}(?!\w)", text) for name in self.names)
                and (self.match is None or self.match in text))


def _quoted(pattern: str) -> str:
    """A pattern as written in source, unescaped (`r'a\\(b'` where it holds a backslash)."""
    quote = '"' if "'" in pattern and '"' not in pattern else "'"
    return f"{'r' if BACKSLASH in pattern else ''}{quote}{pattern}{quote}"


def _dotted(node: ast.expr) -> str | None:
    """`a.b.C` for a name or attribute chain, else None."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        owner = _dotted(node.value)
        return f"{owner}.{node.attr}" if owner else None
    return None


def _classes(node: ast.expr | None) -> tuple[str, ...]:
    """The class names an exception argument gives (a name, a dotted name, or a tuple of them)."""
    items = node.elts if isinstance(node, ast.Tuple) else [node] if node is not None else []
    names = [_dotted(item) for item in items]
    return tuple(name for name in names if name and _CLASS_NAME.match(name.rsplit(".", 1)[-1]))


def _literal(node: ast.expr | None) -> str | None:
    """A pattern given as a literal string, or as `re.escape("literal")`; None for anything computed."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if (isinstance(node, ast.Call) and _dotted(node.func) == "re.escape" and len(node.args) == 1
            and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
        return re.escape(node.args[0].value)
    return None


def _keyword(call: ast.Call, *names: str) -> ast.expr | None:
    return next((k.value for k in call.keywords if k.arg in names), None)


@dataclass(frozen=True)
class _PytestNames:
    """How a module reaches pytest: its module aliases (`pytest`) and the functions it imports (`raises`)."""

    modules: frozenset[str]
    functions: dict[str, str]

    @classmethod
    def of(cls, tree: ast.Module) -> _PytestNames:
        modules = {"pytest"}
        functions: dict[str, str] = {}
        for node in tree.body:
            if isinstance(node, ast.Import):
                modules |= {alias.asname for alias in node.names if alias.name == "pytest" and alias.asname}
            elif isinstance(node, ast.ImportFrom) and node.module == "pytest":
                functions |= {alias.asname or alias.name: alias.name for alias in node.names
                              if alias.name in _PYTEST_CALLS}
        return cls(frozenset(modules), functions)

    def call(self, func: ast.expr) -> str | None:
        """The pytest function a call's target is (`raises`, `warns`, `deprecated_call`), else None."""
        if isinstance(func, ast.Name):
            return self.functions.get(func.id)
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in self.modules:
            return func.attr if func.attr in _PYTEST_CALLS else None
        return None


def _expectation(call: ast.Call, pytest: _PytestNames) -> Expectation | None:
    """What one call expects, if it is a pytest or unittest raises/warns call naming a class."""
    pytest_call = pytest.call(call.func)
    if pytest_call == "deprecated_call":
        return Expectation("warns", _DEPRECATIONS, _literal(_keyword(call, "match")))
    if pytest_call:
        names = _classes(call.args[0] if call.args else _keyword(call, "expected_exception", "expected_warning"))
        return Expectation(_PYTEST_CALLS[pytest_call], names, _literal(_keyword(call, "match"))) if names else None
    method = call.func.attr if isinstance(call.func, ast.Attribute) else None
    if method not in _UNITTEST_CALLS:
        return None
    names = _classes(call.args[0] if call.args else _keyword(call, "expected_exception", "expected_warning"))
    pattern = (_literal(call.args[1] if len(call.args) > 1 else _keyword(call, "expected_regex"))
               if "Regex" in method else None)
    return Expectation(_UNITTEST_CALLS[method], names, pattern) if names else None


def function_expectations(function: ast.FunctionDef | ast.AsyncFunctionDef, pytest: _PytestNames) -> list[Expectation]:
    """The expectations a test function's body states, in source order, without repeats (its decorators left out:
    `parametrize("ctx", [pytest.raises(X), nullcontext()])` expects X of some cases only)."""
    calls = sorted((node for statement in function.body for node in ast.walk(statement) if isinstance(node, ast.Call)),
                   key=lambda node: (node.lineno, node.col_offset))
    found = (_expectation(call, pytest) for call in calls)
    return list(dict.fromkeys(e for e in found if e is not None))


def _functions(tree: ast.Module) -> dict[str, ast.FunctionDef | ast.AsyncFunctionDef]:
    """The module's functions and methods by qualified name (`TestClass.test_name`)."""
    found: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}
    pending: list[tuple[list[ast.stmt], str]] = [(tree.body, "")]
    while pending:
        body, prefix = pending.pop()
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                found.setdefault(prefix + node.name, node)
            elif isinstance(node, ast.ClassDef):
                pending.append((node.body, f"{prefix}{node.name}."))
    return found


def _qualified(test: str) -> tuple[str, str]:
    """A test id's file and the qualified name of its function: `t.py::TestA::test_x[1]` → (`t.py`,
    `TestA.test_x`)."""
    path, *parts = test.split("::")
    return path, ".".join([*parts[:-1], parts[-1].split("[", 1)[0]] if parts else [])


def _touched_files(test_patch: str, read_base: Callable[[str], str | None]
                   ) -> Iterator[tuple[str, ast.Module, set[str]]]:
    """Each Python test file the test patch leaves: its path, its module as the patch leaves it, and the qualified
    names of the functions the patch adds or changes there (files that do not parse are left out)."""
    for piece in split_files(test_patch):
        if not piece.new_path.endswith(".py") or piece.is_deleted or piece.is_binary:
            continue
        old = "" if piece.is_new else read_base(piece.old_path) or ""
        new = post_image(old, piece.text)
        try:
            tree = parse_module(new)
        except (SyntaxError, ValueError):
            continue
        yield piece.new_path, tree, {name.split("::", 1)[1]
                                     for name in touched_functions(piece.new_path, piece.text, old, new)}


def _is_touched(name: str, touched: set[str]) -> bool:
    return any(t == name or t.startswith(name + ".") for t in touched)


def touched_tests(test_patch: str, read_base: Callable[[str], str | None], tests: list[str]) -> set[str]:
    """Which of `tests` (test ids) run a function the test patch adds or changes: the behaviours the change is
    about, beside tests that only fail with them (a module that no longer imports)."""
    touched_by_file = {path: touched for path, _, touched in _touched_files(test_patch, read_base)}
    return {test for test in tests
            if _is_touched(_qualified(test)[1], touched_by_file.get(_qualified(test)[0], set()))}


def hidden_test_expectations(test_patch: str, read_base: Callable[[str], str | None],
                      tests: list[str]) -> dict[str, list[Expectation]]:
    """For each of `tests` (test ids) whose function the test patch adds or changes, what it expects to be raised
    or warned (tests expecting nothing are left out). `read_base` gives a file's text at the base commit (None
    where it has none)."""
    expected: dict[str, list[Expectation]] = {}
    for file, tree, touched in _touched_files(test_patch, read_base):
        functions, pytest = _functions(tree), _PytestNames.of(tree)
        for test in tests:
            path, name = _qualified(test)
            if path == file and name in functions and _is_touched(name, touched):
                found = function_expectations(functions[name], pytest)
                if found:
                    expected[test] = found
    return expected
