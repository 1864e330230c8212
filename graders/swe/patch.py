"""Unified diffs of a change: split into the solution (non-test files) and the held-out tests, and read back.

A path is a test path when one of its directories or its file name says so
(`test`, `tests`, `testing`, `e2e`, `test_*.py`, `*_test.py`, `conftest.py`),
the rule SWE-bench applies to a pull request's files.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_FILE_HEADER = re.compile(r"^diff --git a/(?P<a>\S+) b/(?P<b>\S+)$", re.MULTILINE)
_HUNK = re.compile(r"^@@ ", re.MULTILINE)
_TEST_WORDS = ("test", "tests", "testing", "e2e")
NON_TEST_EXTENSIONS = (".json", ".png", ".csv", ".txt", ".md", ".rst", ".jpg", ".jpeg", ".pkl", ".yml", ".yaml",
                       ".toml", ".cfg", ".ini")
"""Files a test patch may touch that are data, not tests to run (as in SWE-bench's test directives)."""


@dataclass(frozen=True)
class FileDiff:
    """The diff of one file: its paths before and after, its text, and how many hunks it has."""

    old_path: str
    new_path: str
    text: str
    hunks: int
    is_new: bool
    is_deleted: bool
    is_binary: bool

    @property
    def path(self) -> str:
        """The path the change is about (the old one for a deletion)."""
        return self.old_path if self.is_deleted else self.new_path


def is_test_path(path: str) -> bool:
    """Whether a repository path belongs to the test suite."""
    parts = path.lower().split("/")
    name = parts[-1]
    if any(part in _TEST_WORDS for part in parts[:-1]):
        return True
    stem = name.rsplit(".", 1)[0]
    return stem in _TEST_WORDS or name.startswith("test_") or stem.endswith("_test") or name == "conftest.py"


def split_files(diff: str) -> list[FileDiff]:
    """The per-file pieces of a `git diff` text, in order."""
    starts = [m.start() for m in _FILE_HEADER.finditer(diff)]
    pieces = []
    for begin, end in zip(starts, starts[1:] + [len(diff)]):
        text = diff[begin:end]
        header = _FILE_HEADER.match(text)
        assert header is not None
        head = text.split("\n@@", 1)[0]
        pieces.append(FileDiff(
            old_path=header["a"], new_path=header["b"], text=text, hunks=len(_HUNK.findall(text)),
            is_new="\nnew file mode" in head, is_deleted="\ndeleted file mode" in head,
            is_binary="\nBinary files " in head or "\nGIT binary patch" in text,
        ))
    return pieces


@dataclass(frozen=True)
class SplitDiff:
    """A change split SWE-bench's way: `patch` (the solution) and `test_patch` (the held-out tests)."""

    patch: str
    test_patch: str
    source_files: tuple[str, ...]
    test_files: tuple[str, ...]
    hunks: int
    has_binary: bool


def split_diff(diff: str) -> SplitDiff:
    """Split a whole diff into the solution and the test patch by the path of each file."""
    files = split_files(diff)
    tests = [f for f in files if is_test_path(f.path)]
    sources = [f for f in files if not is_test_path(f.path)]
    return SplitDiff(
        patch="".join(f.text for f in sources), test_patch="".join(f.text for f in tests),
        source_files=tuple(f.path for f in sources), test_files=tuple(f.path for f in tests),
        hunks=sum(f.hunks for f in files), has_binary=any(f.is_binary for f in files),
    )


def runnable_test_files(test_patch: str) -> list[str]:
    """The test files to run for a test patch: every file it adds or changes, less data files and deletions."""
    return [f.new_path for f in split_files(test_patch)
            if not f.is_deleted and not f.new_path.endswith(NON_TEST_EXTENSIONS)]


def added_lines(diff: str) -> list[str]:
    """The lines a diff adds (without the leading '+'), headers excluded."""
    return [line[1:] for line in diff.splitlines() if line.startswith("+") and not line.startswith("+++")]


MIN_QUOTED_LINE = 24
"""A line a diff adds at least this long (stripped) that appears in a text counts as quoted."""


def quoted_lines(text: str, diff: str) -> list[str]:
    """Substantial lines a diff adds that appear verbatim in a text (a statement quoting the fix)."""
    return [line.strip() for line in added_lines(diff) if len(line.strip()) >= MIN_QUOTED_LINE and line.strip() in text]


def post_image_blobs(diff: str) -> list[str]:
    """The object ids of the files as the diff leaves them (needs `git diff --full-index`); none for deletions."""
    blobs = []
    for piece in split_files(diff):
        match = re.search(r"^index [0-9a-f]+\.\.([0-9a-f]{40})", piece.text, re.MULTILINE)
        if match and set(match[1]) != {"0"}:
            blobs.append(match[1])
    return blobs


_HEADER = re.compile(r"^(\s*)(?:async\s+)?(def|class)\s+(\w+)")
_HUNK_HEAD = re.compile(r"^@@ [^@]* @@ ?(.*)$")
_MODULE_NOISE = re.compile(r"^\s*(?:import\s|from\s\S+\s+import\s|#|$|\)|[\w, ]+,?\s*$)")


def _indent(text: str) -> int:
    return len(text) - len(text.lstrip())


def _file_targets(piece: FileDiff) -> list[str] | None:
    """The test functions and classes one file's diff changes, as pytest node ids; None when the change reaches
    an existing fixture, helper or module-level code: then the whole file runs. A helper the patch adds whole
    cannot change an existing test, so its lines name no test."""
    targets: list[str] = []
    stack: list[tuple[int, str, str]] = []
    added: set[tuple[int, str, str]] = set()
    quoted = False
    for line in piece.text.splitlines():
        hunk = _HUNK_HEAD.match(line)
        if hunk:
            context = _HEADER.match(hunk[1])
            stack, quoted = ([(_indent(hunk[1]), context[2], context[3])] if context else []), False
            continue
        if not line[:1] in "+- " or line.startswith(("+++", "---")):
            continue
        marker, text = line[:1], line[1:]
        inside = quoted
        if (text.count('"""') + text.count("'''")) % 2 and marker != "-":
            quoted = not quoted
        if not text.strip() or inside:
            if inside and marker != " " and stack:
                node = _node(stack)
                if node is None:
                    return None
                targets.append(node)
            continue
        header = _HEADER.match(text)
        if marker != "-":
            stack = [entry for entry in stack if entry[0] < _indent(text)] if header or _indent(text) == 0 else stack
            if header:
                stack.append((_indent(text), header[2], header[3]))
                added |= {stack[-1]} if marker == "+" else set()
        if marker == " ":
            continue
        enclosing = [entry for entry in stack if entry[0] < _indent(text) or (header and entry[2] == header[3])]
        if marker == "-" and header:
            continue
        if not enclosing:
            if _MODULE_NOISE.match(text):
                continue
            return None
        node = _node(enclosing)
        if node is None and enclosing[0] in added:
            continue
        if node is None:
            return None
        targets.append(node)
    return targets


def _is_test_class(name: str) -> bool:
    """A class pytest or unittest would collect by its name (`TestX`, `XTests`, `XTest`)."""
    return name.startswith("Test") or name.endswith(("Tests", "Test"))


def _node(enclosing: list[tuple[int, str, str]]) -> str | None:
    """The node id suffix of the test around a line: its outermost test class (so PASS_TO_PASS covers the
    class's other tests), else its test function; None when it is in neither."""
    names = [name for _, _, name in enclosing]
    for depth, (_, kind, name) in enumerate(enclosing, start=1):
        if kind == "class" and _is_test_class(name):
            return "::".join(names[:depth])
    for depth in range(len(enclosing), 0, -1):
        kind, name = enclosing[depth - 1][1], names[depth - 1]
        if kind == "def" and name.startswith("test"):
            return "::".join(names[:depth])
    return None


LARGE_TEST_FILE_LINES = 2000
"""A test file longer than this (at the base commit) runs only the tests the test patch touches."""


def held_out_targets(test_patch: str, base_lines: dict[str, int]) -> list[str]:
    """What to run for a test patch: each test file it touches, whole (SWE-bench's rule, so PASS_TO_PASS covers
    the file), except files longer than `LARGE_TEST_FILE_LINES` at the base commit (`base_lines`: lines by
    path), where only the pytest node ids of the test classes (whole) and test functions it adds or changes run
    — unless it changes anything else there (an existing fixture or helper, module-level code)."""
    targets: list[str] = []
    for piece in split_files(test_patch):
        path = piece.new_path
        if piece.is_deleted or not path.endswith(".py") or path.endswith(NON_TEST_EXTENSIONS):
            continue
        large = base_lines.get(piece.old_path, 0) > LARGE_TEST_FILE_LINES
        nodes = _file_targets(piece) if large and not piece.is_new else None
        if not nodes:
            targets.append(path)
            continue
        classes = {n for n in nodes if "::" not in n}
        kept = [n for n in dict.fromkeys(nodes) if n in classes or n.split("::")[0] not in classes]
        targets += [f"{path}::{node}" for node in kept]
    return targets
