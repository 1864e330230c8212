"""What a SWE problem statement may and must say, read off the task's patches.

A statement describes the symptom (what a user sees) and never the fix. It
names the fix when it quotes a line the solution adds (other than the header
and docstring of a new function the tests call: that is interface), repeats the fix
commit's subject, reads as a change description (`fix: …`, `Fixed …`), or
names an identifier the solution introduces that no test uses (an internal
helper). It must state the interface the hidden tests need: every name the
test patch uses that the solution introduces (absent from the repository at
the base commit), such as a new keyword argument `persist_empty`.

Names are read with Python's tokenizer from the code the patches add: strings, comments and docstrings are not
names (a hunk starting inside a docstring is known from the base commit's file).
"""

from __future__ import annotations

import builtins
import io
import keyword
import re
import sys
import tokenize
from functools import lru_cache
from pathlib import Path

from taskforge.graders.swe.patch import FileDiff, added_lines, split_files

MIN_QUOTED_CHARS = 12
MIN_SUBJECT_CHARS = 16
MIN_NAME_CHARS = 3
_CHANGE_TITLE = re.compile(
    r"^\s*(?:(?:fix|feat|refactor|perf|chore|bugfix|hotfix|build|style)(?:\([^)]*\))?!?:|"
    r"(?:fix(?:e[sd])?|fixing|bugfix|hotfix)\b)", re.IGNORECASE)
_PR_SUFFIX = re.compile(r"\s*\(#\d+\)\s*$")
_DEFINED = re.compile(r"^\s*(?:async\s+)?(?:def|class)\s+([A-Za-z_]\w*)|^\s*(?:self\.)?([A-Za-z_]\w*)(?::[^=]+)? = |"
                      r"\bfor\s+([A-Za-z_]\w*)\s+in\b|\bas\s+([A-Za-z_]\w*)", re.MULTILINE)
"""Definitions: `def`/`class`, assignments written `name = …` (a keyword argument `name=…` is not one), loop
variables and `as` targets."""
_COMMON = frozenset(dir(builtins)) | frozenset(keyword.kwlist) | frozenset(keyword.softkwlist) | {"self", "cls"}


_TRIPLE_QUOTE = re.compile(r'"""|\'\'\'')
_HUNK_START = re.compile(r"^@@ -(\d+)")


@lru_cache(maxsize=1024)
def _multiline_strings(path: str, mtime_ns: int, size: int) -> tuple[tuple[int, int, str], ...]:
    """(first line, last line, quote) of each triple-quoted string of a Python file spanning lines (none when the
    file does not tokenize)."""
    text = Path(path).read_text(encoding="utf-8", errors="replace")
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return ()
    return tuple((token.start[0], token.end[0], _TRIPLE_QUOTE.search(token.string)[0]) for token in tokens
                 if token.type == tokenize.STRING and token.end[0] > token.start[0]
                 and _TRIPLE_QUOTE.search(token.string))


def _open_at(base: Path | None, path: str, line: int) -> str | None:
    """The triple quote open at the start of a line of a file at the base commit (None: none, or no base tree)."""
    file = base / path if base is not None else None
    if file is None or not file.is_file():
        return None
    stat = file.stat()
    return next((quote for first, last, quote in _multiline_strings(str(file), stat.st_mtime_ns, stat.st_size)
                 if first < line <= last), None)


def _outside_triple_quotes(line: str, inside: str | None) -> tuple[str, str | None]:
    """The part of a line outside triple-quoted strings, and the quote still open at its end (None: none), given
    the quote open at its start."""
    code, at = [], 0
    while at < len(line):
        if inside:
            end = line.find(inside, at)
            if end < 0:
                return "".join(code), inside
            at, inside = end + 3, None
            continue
        opening = _TRIPLE_QUOTE.search(line, at)
        if opening is None:
            code.append(line[at:])
            break
        code.append(line[at:opening.start()])
        at, inside = opening.end(), opening[0]
    return "".join(code), inside


def _code_added(piece: FileDiff, base: Path | None) -> list[str]:
    """The code of the lines a file's diff adds: the text of triple-quoted strings (docstrings) left out, read over
    each hunk's new side (its context and added lines) from the state the base commit's file has where the hunk
    starts (without a base tree, every hunk starts outside a string)."""
    added: list[str] = []
    inside: str | None = None
    for line in piece.text.splitlines():
        hunk = _HUNK_START.match(line)
        if hunk:
            inside = None if piece.is_new else _open_at(base, piece.old_path, int(hunk[1]))
        elif line.startswith(("+", " ")) and not line.startswith("+++"):
            code, inside_after = _outside_triple_quotes(line[1:], inside)
            if line.startswith("+") and code.strip():
                added.append(code)
            inside = inside_after
    return added


def _python_lines(diff: str, base: Path | None) -> list[str]:
    """The code the diff adds to Python files, line by line (docstrings and other triple-quoted text left out:
    their words are prose, not names); `base` is the work tree at the base commit."""
    return [line for piece in split_files(diff) if piece.path.endswith(".py") for line in _code_added(piece, base)]


def names_in(lines: list[str]) -> set[str]:
    """Identifiers in code lines (strings, comments and keywords left out), each line read on its own."""
    found: set[str] = set()
    for line in lines:
        try:
            tokens = list(tokenize.generate_tokens(io.StringIO(line.strip() + "\n").readline))
        except (tokenize.TokenError, IndentationError, SyntaxError):
            tokens = []
            found |= set(re.findall(r"[A-Za-z_]\w*", re.sub(r"(['\"]).*?\1|#.*", "", line)))
        found |= {t.string for t in tokens if t.type == tokenize.NAME}
    return {name for name in found if len(name) >= MIN_NAME_CHARS and name not in _COMMON}


def defined_in(lines: list[str]) -> set[str]:
    """Names the lines define: functions, classes and assignment targets."""
    return {next(filter(None, groups)) for groups in _DEFINED.findall("\n".join(lines))}


def patch_names(patch: str, test_patch: str, base: Path | None) -> set[str]:
    """Every name the two patches add (what to look up in the repository at the base commit)."""
    lines = _python_lines(patch, base) + _python_lines(test_patch, base)
    return names_in(lines) | defined_in(lines)


def stdlib_imports(lines: list[str]) -> set[str]:
    """Names lines import from Python's standard library (`import threading`, `from threading import Lock`)."""
    found: set[str] = set()
    for line in lines:
        imported = re.match(r"^\s*from\s+([\w.]+)\s+import\s+(.+)$|^\s*import\s+([\w., ]+)$", line)
        if not imported:
            continue
        module = imported[1] or imported[3]
        if module.split(".")[0].split(",")[0].strip() in sys.stdlib_module_names:
            found |= set(re.findall(r"\w+", imported[2] or "")) | set(re.findall(r"\w+", module))
    return found


def new_interface(patch: str, test_patch: str, existing: set[str], base: Path | None) -> list[str]:
    """Names the hidden tests use that only the solution brings (not in `existing`, the names already in the
    repository at the base commit, not defined by the tests themselves, not imported from the standard
    library): what a statement must state."""
    test_lines, fix_lines_ = _python_lines(test_patch, base), _python_lines(patch, base)
    used = names_in(test_lines) - defined_in(test_lines) - stdlib_imports(test_lines + fix_lines_)
    return sorted((used & names_in(fix_lines_)) - existing)


def without_specs(text: str, patch: str, test_patch: str, existing: set[str], base: Path | None) -> str:
    """A prompt or statement with the headers and docstrings of the new interface taken out (showing those is
    stating the interface, not the fix). Longest lines first: a docstring's lone `)` taken out first would take
    every `)` out and leave the longer lines unmatched."""
    specs = interface_specs(patch, new_interface(patch, test_patch, existing, base)).values()
    lines = {line.strip() for spec in specs for line in spec if line.strip()}
    for line in sorted(lines, key=lambda line: (-len(line), line)):
        text = text.replace(line, "")
    return text


def internal_names(patch: str, test_patch: str, existing: set[str], base: Path | None) -> list[str]:
    """Names the solution defines that are new and that no hidden test uses: naming one names the fix."""
    return sorted(defined_in(_python_lines(patch, base)) - existing - names_in(_python_lines(test_patch, base))
                  - _COMMON)


def interface_specs(patch: str, names: list[str]) -> dict[str, list[str]]:
    """For each of `names` the solution defines (`def` / `class` in its added lines): the definition line(s) and
    the docstring right after it, as added; what a statement may show of the fix (the interface, not the
    implementation)."""
    specs: dict[str, list[str]] = {}
    for piece in split_files(patch):
        lines = piece.text.splitlines()
        for at, line in enumerate(lines):
            match = re.match(r"^\+\s*(?:async\s+)?(?:def|class)\s+(\w+)", line)
            if match and match[1] in names and match[1] not in specs:
                specs[match[1]] = _definition(lines[at:])
    return specs


def _definition(lines: list[str]) -> list[str]:
    """The added lines of a definition's header and its docstring (the diff lines from the `def` on)."""
    taken: list[str] = []
    for line in lines:
        if not line.startswith("+"):
            break
        taken.append(line[1:])
        header = "".join(taken)
        if header.count("(") == header.count(")"):
            break
    rest = lines[len(taken):]
    quote = next((q for q in ('"""', "'''") if rest and rest[0][1:].strip().lstrip("rbuRBU").startswith(q)), None)
    if quote is None:
        return taken
    for at, line in enumerate(rest):
        if not line.startswith("+"):
            break
        taken.append(line[1:])
        body = line[1:].strip().lstrip("rbuRBU")
        if (at == 0 and body.count(quote) >= 2) or (at > 0 and quote in body):
            break
    return taken


def mentions(text: str, name: str) -> bool:
    """The statement names an identifier (as a whole word)."""
    return re.search(rf"(?<![\w.]){re.escape(name)}(?!\w)", text) is not None


def fix_lines(patch: str) -> set[str]:
    """Lines the solution adds (and does not also remove) that are long enough to give it away if quoted."""
    added = {line.strip() for line in added_lines(patch)}
    removed = {line[1:].strip() for line in patch.splitlines() if line.startswith("-") and not line.startswith("---")}
    return {line for line in added - removed if len(line) >= MIN_QUOTED_CHARS}


def subject_of(message: str) -> str:
    """A commit message's subject, without a pull-request suffix."""
    first = message.strip().splitlines()[0] if message.strip() else ""
    return _PR_SUFFIX.sub("", first).strip()


def names_the_fix(statement: str, patch: str, test_patch: str, fix_message: str, existing: set[str],
                  base: Path | None) -> list[str]:
    """Every way a statement gives the fix away (empty: it describes symptoms only)."""
    problems = []
    title = statement.strip().splitlines()[0] if statement.strip() else ""
    if _CHANGE_TITLE.match(title):
        problems.append(f"its title reads as a change description: {title[:80]!r}")
    subject = subject_of(fix_message)
    if len(subject) >= MIN_SUBJECT_CHARS and subject.lower() in statement.lower():
        problems.append(f"it repeats the fix commit's subject {subject[:80]!r}")
    statement = without_specs(statement, patch, test_patch, existing, base)
    quoted = sorted(line for line in fix_lines(patch) if line in statement)
    if quoted:
        problems.append(f"it quotes {len(quoted)} line(s) the fix adds, e.g. {quoted[0][:60]!r}")
    internal = [name for name in internal_names(patch, test_patch, existing, base) if mentions(statement, name)]
    if internal:
        problems.append(f"it names what the fix introduces and no test uses: {', '.join(internal[:5])}")
    return problems


def unstated_interface(statement: str, patch: str, test_patch: str, existing: set[str],
                       base: Path | None) -> list[str]:
    """Names the hidden tests need that the solution introduces and the statement never mentions."""
    return [name for name in new_interface(patch, test_patch, existing, base) if not mentions(statement, name)]
