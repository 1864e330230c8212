"""What the hidden tests expect to be raised or warned: read with `ast` from the test functions a test patch adds
or changes, never from a stored field.

A test's expectations are the exceptions and warnings its own body asks for — `pytest.raises(X)`,
`pytest.raises((X, Y), match="…")`, `pytest.warns(W)`, `pytest.deprecated_call()`, unittest's
`assertRaises(X)`, `assertRaisesRegex(X, "…")`, `assertWarns(W)` — with the `match` pattern where it is a
literal string (it is part of what the hidden test checks). Names are kept as written (`ValueError`,
`tenacity.RetryError`). A helper the test calls is not read.

A name in the body can stand for a value the test runs with, and is read as that value:
- a parametrised argument (`parametrize` marks on the function, its classes or the module), in the case the test
  id names (`graders.swe.parametrize`): `pytest.raises(exc)` in `test_div[0-ZeroDivisionError]` expects
  `ZeroDivisionError`, and `with expected:` whatever that case's `pytest.raises(…)` or `pytest.warns(…)` expects
  (nothing for `does_not_raise()` or `nullcontext()`). Where the id tells no case apart (ids made by a
  function) every case's expectations are kept: a statement must not leave out what the test may check.
- a class attribute (`self.error`, `cls.error`) of the test's class or its bases.
A name still unknown (a fixture, a computed value) tells a solver nothing and is left out.

A test a class inherits (`test_a.py::TestJson::test_bad` with `test_bad` written in a base class, in the same
file or one it imports that the snapshot or the patch holds) is read where it is written. It is about the change
when the patch adds or changes that function, or changes one of the classes it runs in below it outside their
methods (a new subclass, a changed class attribute).

At the base commit a test can fail otherwise (a `TypeError` for a keyword that does not exist yet), and then
its output never says what the fixed code must raise: the statement states it (`stated_in` says when a text
already does).
"""

from __future__ import annotations

import ast
import posixpath
import re
from dataclasses import dataclass
from typing import Callable, Iterator

from taskforge.graders.swe.functions import parse_module, post_image, touched_definitions
from taskforge.graders.swe.parametrize import (Binding, Case, Definition, PytestNames, Value, argument, assignments,
                                               bindings, dotted, keyword, mark_cases)
from taskforge.graders.swe.patch import split_files

_PYTEST_CALLS = {"raises": "raises", "warns": "warns", "deprecated_call": "warns"}
_UNITTEST_CALLS = {"assertRaises": "raises", "assertRaisesRegex": "raises", "assertRaisesRegexp": "raises",
                   "assertWarns": "warns", "assertWarnsRegex": "warns", "assertWarnsRegexp": "warns"}
_DEPRECATIONS = ("DeprecationWarning", "PendingDeprecationWarning", "FutureWarning")
"""What `pytest.deprecated_call()` accepts."""
_CLASS_NAME = re.compile(r"^_*[A-Z]")
_MAX_BASES = 16
"""How deep a chain of base classes is followed."""
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


def _pytest_call(pytest: PytestNames, func: ast.expr) -> str | None:
    """The pytest function a call's target is (`raises`, `warns`, `deprecated_call`), else None."""
    name = pytest.name(func)
    return name if name in _PYTEST_CALLS else None


def _value(node: ast.expr | None, bound: Binding) -> ast.expr | None:
    """A node, or the value it stands for where it is a bound name."""
    name = dotted(node)
    return bound[name].node if name in bound else node


def _classes(node: ast.expr | None, bound: Binding) -> tuple[str, ...]:
    """The class names an exception argument gives (a name, a dotted name, or a tuple of them)."""
    node = _value(node, bound)
    items = node.elts if isinstance(node, ast.Tuple) else [node] if node is not None else []
    names = [dotted(_value(item, bound)) for item in items]
    return tuple(name for name in names if name and _CLASS_NAME.match(name.rsplit(".", 1)[-1]))


def _literal(node: ast.expr | None, bound: Binding) -> str | None:
    """A pattern given as a literal string (or a name bound to one), as `re.escape(…)` or `re.compile(…)` of one;
    None for anything computed."""
    node = _value(node, bound)
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    wrapper = dotted(node.func) if isinstance(node, ast.Call) and len(node.args) == 1 else None
    inner = _literal(node.args[0], bound) if wrapper in ("re.escape", "re.compile") else None
    return None if inner is None else re.escape(inner) if wrapper == "re.escape" else inner


def _expectation(call: ast.Call, pytest: PytestNames, bound: Binding) -> Expectation | None:
    """What one call expects, if it is a pytest or unittest raises/warns call naming a class."""
    pytest_call = _pytest_call(pytest, call.func)
    if pytest_call == "deprecated_call":
        return Expectation("warns", _DEPRECATIONS, _literal(keyword(call, "match"), bound))
    expected = call.args[0] if call.args else keyword(call, "expected_exception", "expected_warning")
    if pytest_call:
        names = _classes(expected, bound)
        return (Expectation(_PYTEST_CALLS[pytest_call], names, _literal(keyword(call, "match"), bound))
                if names else None)
    method = call.func.attr if isinstance(call.func, ast.Attribute) else None
    if method not in _UNITTEST_CALLS:
        return None
    names = _classes(expected, bound)
    pattern = _literal(argument(call, 1, "expected_regex"), bound) if "Regex" in method else None
    return Expectation(_UNITTEST_CALLS[method], names, pattern) if names else None


def _sites(function: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.expr]:
    """Where a test's body may state an expectation, in source order: its calls, and the names its `with`
    statements enter (`with expected:`)."""
    nodes = [node for statement in function.body for node in ast.walk(statement)]
    entered = [item.context_expr for node in nodes if isinstance(node, (ast.With, ast.AsyncWith))
               for item in node.items if dotted(item.context_expr)]
    return sorted([node for node in nodes if isinstance(node, ast.Call)] + entered,
                  key=lambda node: (node.lineno, node.col_offset))


def _site_expectation(site: ast.expr, pytest: PytestNames, bound: Binding) -> Expectation | None:
    """What a call expects, or a name a `with` enters, where it stands for a pytest or unittest call."""
    if isinstance(site, ast.Call):
        return _expectation(site, pytest, bound)
    entered = bound.get(dotted(site) or "")
    return (_expectation(entered.node, entered.pytest, {})
            if entered is not None and isinstance(entered.node, ast.Call) else None)


def function_expectations(function: ast.FunctionDef | ast.AsyncFunctionDef, pytest: PytestNames,
                          bindings: list[Binding] | None = None) -> list[Expectation]:
    """The expectations a test function's body states in the cases it runs with (`bindings`; none bound by
    default), in source order, without repeats."""
    found = (_site_expectation(site, pytest, bound) for site in _sites(function) for bound in bindings or [{}])
    return list(dict.fromkeys(e for e in found if e is not None))


@dataclass(frozen=True)
class _Module:
    """A test file as the patch leaves it: its definitions by qualified name, how it reaches pytest, its
    top-level assignments and imported names, and the functions and classes the patch adds or changes there."""

    path: str
    tree: ast.Module
    definitions: dict[str, Definition]
    pytest: PytestNames
    constants: dict[str, ast.expr]
    imports: dict[str, str]
    touched: frozenset[str]
    changed_classes: frozenset[str]

    @classmethod
    def of(cls, path: str, tree: ast.Module, touched: frozenset[str] = frozenset(),
           changed_classes: frozenset[str] = frozenset()) -> _Module:
        return cls(path, tree, _definitions(tree), PytestNames.of(tree), assignments(tree.body), _imports(tree),
                   frozenset(touched), frozenset(changed_classes))


def _definitions(tree: ast.Module) -> dict[str, Definition]:
    """The module's functions, methods and classes by qualified name (`TestClass.test_name`)."""
    found: dict[str, Definition] = {}
    pending: list[tuple[list[ast.stmt], str]] = [(tree.body, "")]
    while pending:
        body, prefix = pending.pop()
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                found.setdefault(prefix + node.name, node)
            if isinstance(node, ast.ClassDef):
                pending.append((node.body, f"{prefix}{node.name}."))
    return found


def _imports(tree: ast.Module) -> dict[str, str]:
    """What the module's top-level imports bind each name to: `from .base import Base` → `.base.Base`,
    `import tests.base as b` → `tests.base`, `import tests.base` → `tests`."""
    found: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.ImportFrom):
            found |= {alias.asname or alias.name: "." * node.level + ".".join(filter(None, [node.module, alias.name]))
                      for alias in node.names}
        elif isinstance(node, ast.Import):
            found |= {alias.asname or alias.name.split(".")[0]: alias.name if alias.asname else alias.name.split(".")[0]
                      for alias in node.names}
    return found


def _module_paths(importer: str, imported: str) -> list[str]:
    """The files an import of module `imported` (`.base`, `tests.base`, `.`) from the file `importer` may read,
    nearest first: relative to its package, or for an absolute import to its folder or a folder above it (where
    pytest puts test folders on the path)."""
    name = imported.lstrip(".")
    level = len(imported) - len(name)
    folder = posixpath.dirname(importer)
    for _ in range(level - 1):
        folder = posixpath.dirname(folder)
    folders = [folder]
    while not level and folder:
        folder = posixpath.dirname(folder)
        folders.append(folder)
    relative = name.replace(".", "/")
    return [path for f in folders for path in
            ([posixpath.join(f, relative + ".py")] if relative else []) + [posixpath.join(f, relative, "__init__.py")]]


def _qualified(test: str) -> tuple[str, str, str | None]:
    """A test id's file, the qualified name of its function and its parameter part: `t.py::TestA::test_x[1]` →
    (`t.py`, `TestA.test_x`, `1`)."""
    path, *parts = test.split("::")
    if not parts:
        return path, "", None
    name, bracket, params = parts[-1].partition("[")
    return path, ".".join([*parts[:-1], name]), params[:-1] if bracket and params.endswith("]") else None


@dataclass(frozen=True)
class _Found:
    """Where a test id's function is written, whether the patch is about it, and the values its body reads in
    the case the id names."""

    module: _Module
    function: ast.FunctionDef | ast.AsyncFunctionDef
    touched: bool
    bindings: list[Binding]


def _is_touched(name: str, touched: frozenset[str]) -> bool:
    return any(t == name or t.startswith(name + ".") for t in touched)


class _TestFiles:
    """The test files a test patch leaves, read once each: the patch's Python files as it leaves them, and any
    other file (a test file or a base class's) from the base commit."""

    def __init__(self, test_patch: str, read_base: Callable[[str], str | None]):
        self._read_base = read_base
        self._modules: dict[str, _Module | None] = dict(_touched_files(test_patch, read_base))

    def module(self, path: str) -> _Module | None:
        if path not in self._modules:
            try:
                self._modules[path] = _Module.of(path, parse_module(self._read_base(path) or ""))
            except (SyntaxError, ValueError):
                self._modules[path] = None
        return self._modules[path]

    def _base(self, module: _Module, owner: str, base: ast.expr) -> tuple[_Module, str] | None:
        """The class a base-class expression names: one of the file's own (in an enclosing class or at top level),
        or one it imports from a file there is."""
        written = dotted(base) or ""
        scopes = [owner.rpartition(".")[0] + ".", ""] if "." in owner else [""]
        local = next((scope + written for scope in scopes
                      if isinstance(module.definitions.get(scope + written), ast.ClassDef)), None)
        if local:
            return module, local
        first, _, rest = written.partition(".")
        if not first or first not in module.imports:
            return None
        target = ".".join(filter(None, [module.imports[first], rest]))
        name = target.lstrip(".")
        parts = name.split(".")
        for cut in range(len(parts) - 1, -1, -1):
            imported = target[:len(target) - len(name)] + ".".join(parts[:cut])
            for path in _module_paths(module.path, imported) if imported else []:
                other = self.module(path) if path != module.path else None
                if other and isinstance(other.definitions.get(".".join(parts[cut:])), ast.ClassDef):
                    return other, ".".join(parts[cut:])
        return None

    def mro(self, module: _Module, name: str, depth: int = 0) -> list[tuple[_Module, str]]:
        """A class and the bases that can be read, in Python's order for them (depth first, a class after the
        last of its subclasses)."""
        node = module.definitions.get(name)
        if not isinstance(node, ast.ClassDef) or depth > _MAX_BASES:
            return []
        order = [(module, name)]
        for base in node.bases:
            found = self._base(module, name, base)
            order += self.mro(*found, depth + 1) if found else []
        keys = [(m.path, n) for m, n in order]
        return [entry for index, entry in enumerate(order) if keys[index] not in keys[index + 1:]]

    def _marks(self, module: _Module, node: ast.Module | Definition, scope: ast.ClassDef | None
               ) -> list[list[Case] | None]:
        constants = module.constants | (assignments(scope.body) if scope else {})
        return mark_cases(node, module.pytest, constants)

    def find(self, test: str) -> _Found | None:
        """Where a test id's function is written (a base class's where its class inherits it), and what it runs
        with."""
        path, name, params = _qualified(test)
        module = self.module(path)
        owner, _, method = name.rpartition(".")
        if module is None:
            return None
        if not owner:
            function = module.definitions.get(name)
            if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
                return None
            marks = self._marks(module, function, None) + self._marks(module, module.tree, None)
            return _Found(module, function, _is_touched(name, module.touched), bindings(marks, params))
        mro = self.mro(module, owner)
        written = next((index for index, (m, c) in enumerate(mro)
                        if isinstance(m.definitions.get(f"{c}.{method}"), (ast.FunctionDef, ast.AsyncFunctionDef))),
                       None)
        if written is None:
            return None
        home, klass = mro[written]
        function = home.definitions[f"{klass}.{method}"]
        touched = (_is_touched(f"{klass}.{method}", home.touched)
                   or any(c in m.changed_classes for m, c in mro[:written]))
        marks = self._marks(home, function, home.definitions[klass])
        for enclosing in [owner.rsplit(".", depth)[0] for depth in range(owner.count(".") + 1)]:
            marks += [mark for m, c in reversed(self.mro(module, enclosing))
                      for mark in self._marks(m, m.definitions[c], m.definitions[c])]
        marks += self._marks(module, module.tree, None)
        attributes = {f"{prefix}.{attribute}": Value(value, m.pytest) for m, c in reversed(mro)
                      for attribute, value in assignments(m.definitions[c].body).items() for prefix in ("self", "cls")}
        return _Found(home, function, touched, [attributes | bound for bound in bindings(marks, params)])


def _touched_files(test_patch: str, read_base: Callable[[str], str | None]) -> Iterator[tuple[str, _Module | None]]:
    """Each Python file the test patch touches: its path and its module as the patch leaves it, with the qualified
    names of the functions the patch adds or changes there and of the classes it changes outside their methods
    (None for a file it deletes or that does not parse)."""
    for piece in split_files(test_patch):
        if not piece.new_path.endswith(".py") or piece.is_binary:
            continue
        if piece.is_deleted:
            yield piece.old_path, None
            continue
        old = "" if piece.is_new else read_base(piece.old_path) or ""
        new = post_image(old, piece.text)
        try:
            tree = parse_module(new)
        except (SyntaxError, ValueError):
            yield piece.new_path, None
            continue
        touched, changed = touched_definitions(piece.text, old, new)
        yield piece.new_path, _Module.of(piece.new_path, tree, frozenset(touched), frozenset(changed))


def touched_tests(test_patch: str, read_base: Callable[[str], str | None], tests: list[str]) -> set[str]:
    """Which of `tests` (test ids) run a function the test patch adds or changes (or one their class inherits
    in a class the patch adds or changes): the behaviours the change is about, beside tests that only fail with
    them (a module that no longer imports)."""
    files = _TestFiles(test_patch, read_base)
    return {test for test in tests if (found := files.find(test)) is not None and found.touched}


def hidden_test_expectations(test_patch: str, read_base: Callable[[str], str | None],
                             tests: list[str]) -> dict[str, list[Expectation]]:
    """For each of `tests` (test ids) whose function the test patch adds or changes, what it expects to be raised
    or warned in the case the id names (tests expecting nothing are left out). `read_base` gives a file's text
    at the base commit (None where it has none)."""
    files = _TestFiles(test_patch, read_base)
    expected: dict[str, list[Expectation]] = {}
    for test in tests:
        found = files.find(test)
        if found is not None and found.touched:
            expectations = function_expectations(found.function, found.module.pytest, found.bindings)
            if expectations:
                expected[test] = expectations
    return expected
