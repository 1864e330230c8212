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
