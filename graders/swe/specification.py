"""Whether a statement written from symptoms specifies any behaviour, or only that new names are missing.

The builder writes a statement from what the failing tests show at the base commit where no issue is linked and
no agent rewrote it (`builders.swe.problem`). Where every behaviour it lists shows only that a name the solution
brings is missing (an `ImportError`, `ModuleNotFoundError`, `AttributeError` or `NameError` naming a name of the
new interface, raised in the test or while its module is collected), the only behaviour the solver is told is the
docstrings of that interface. When those docstrings together say fewer than `MIN_SPEC_WORDS` words (Sphinx
directive lines such as `.. versionadded:: 8.5` left out), the statement specifies no behaviour and the hidden
tests check what it never states: click's `PowerShellComplete` (8 words, one summary line) lost a strong solver
3 of its 58 hidden tests on the completion output's format alone, while `custom_version_option` (107 words:
what the callback receives, what is printed, the defaults) was solved every time.

20 words is longer than a summary line (PEP 257: one line, so at most about 15 words) plus a one-line parameter
gloss: below it a docstring names what a thing is, not what it returns or prints. Real new interfaces below it:
`PowerShellComplete` 8, tomlkit's `load` 7 and `dump` 8, `SingleKey` 3, click's `get_invalid_choice_message` 15
(its hidden test compares the exact message); at or above it: tomlkit's `add_line` 21 (states what `add_comma`
does), `register_encoder` with `unregister_encoder` 39, `string` 75, click's `_PagerWriter` 80.

A parameter the fix adds to a function of the base commit is a missing name too (`graders.swe.parameters`):
`TypeError: f() got an unexpected keyword argument 'x'` tells the solver that `x` must be accepted, not what it
does. Its words are what the solver reads of it: the base commit's docstring lines describing it; the lines the
fix adds to a docstring are never shown (click's `Argument` gained `help` documented by the fix as `:param help:
the help string.`, every symptom `Parameter.__init__() got an unexpected keyword argument 'help'`).
"""

from __future__ import annotations

import re
from pathlib import Path

from taskforge.graders.swe.parameters import AddedParameters, added_parameters, described
from taskforge.graders.swe.statement import interface_specs, new_interface

MIN_SPEC_WORDS = 20
SYMPTOMS_CLOSING = "Expected: each behaviour above works, and nothing else changes."
INTERFACE_NAMES_NOTE = "The checks use these names, which do not exist yet and must be provided: "
INTERFACE_SPECS_NOTE = "The checks call this new interface:"
_LISTING = re.compile(r"\AWrong behaviour in [^\n]*\nAt this commit, (?:this behaviour does|these behaviours do) not "
                      r"work as intended; what happens instead:\n\n(?P<listed>.*?)\n\n" + re.escape(SYMPTOMS_CLOSING)
                      + r"(?P<notes>.*)\Z", re.DOTALL)
_INTERFACE_NOTES = re.compile(re.escape(INTERFACE_NAMES_NOTE) + r"[^\n]*|" + re.escape(INTERFACE_SPECS_NOTE)
                              + r"\n\n```python\n.*?\n```", re.DOTALL)
_NEXT_BEHAVIOUR = re.compile(r"\n\n(?=\d+\. )")
FRAME = re.compile(r"^(\S+\.py):\d+: in \S+")
"""A frame of pytest's short traceback (`src/click/core.py:12: in main`), its file captured."""
_MISSING = re.compile(r"^(?:\w+\.)*(?:ImportError|ModuleNotFoundError|AttributeError|NameError): (?P<message>.+)$")
_UNEXPECTED_KEYWORD = re.compile(r"^TypeError: (?P<function>[\w.<>]+)\(\) got an unexpected keyword argument "
                                 r"'(?P<name>\w+)'(?:\. Did you mean '\w+'\?)?$")
_TOO_MANY_POSITIONAL = re.compile(r"^TypeError: (?P<function>[\w.<>]+)\(\) takes (?:from \d+ to )?(?P<takes>\d+) "
                                  r"positional arguments? but (?P<given>\d+) (?:positional arguments? \(and \d+ "
                                  r"keyword-only arguments?\) )?(?:was|were) given$")
_DIRECTIVE = re.compile(r"^\s*\.\.\s+[\w:-]+::.*$", re.MULTILINE)
_DOCSTRING = re.compile(r"(\"\"\"|''')(?P<text>.*?)(?:\1|\Z)", re.DOTALL)


def listed_failures(statement: str) -> list[list[str]] | None:
    """What a statement written from symptoms shows under each behaviour it lists (the project's frames and the
    error lines), or None where it says anything else: it is not the builder's listing (an issue's text, a
    rewrite), or a note beyond the interface follows it (what the tests expect raised or warned)."""
    listing = _LISTING.match(statement.strip())
    if listing is None or _INTERFACE_NOTES.sub("", listing["notes"]).strip():
        return None
    return [[line[4:] for line in block.splitlines()[1:]] for block in _NEXT_BEHAVIOUR.split(listing["listed"])]


def missing_parameters(line: str, changes: list[AddedParameters]) -> dict[AddedParameters, set[str]]:
    """The parameters the fix adds that an error line shows missing (empty: it shows none): `f() got an unexpected
    keyword argument 'x'` where the fix adds a parameter `x` (to `f`, or to what `f` hands its keywords on to), or
    `f() takes 2 positional arguments but 3 were given` where the fix gives `f`, which took 2, room for 3."""
    keyword = _UNEXPECTED_KEYWORD.match(line)
    if keyword is not None:
        return {change: {keyword["name"]} for change in changes if keyword["name"] in change.names}
    positional = _TOO_MANY_POSITIONAL.match(line)
    if positional is None:
        return {}
    return {change: set(change.names) for change in changes
            if change.named(positional["function"]) and change.positional_before == int(positional["takes"])
            and (change.positional_after is None or change.positional_after >= int(positional["given"]))}


def _error_lines(shown: list[str]) -> list[str]:
    """A behaviour's lines past the frames (a frame line and its indented code)."""
    return [line for line in shown if line.strip() and not line.startswith(" ") and not FRAME.match(line)]


def only_missing(shown: list[str], names: list[str], changes: list[AddedParameters] = ()) -> bool:
    """The lines of a behaviour show only that one of `names` or a parameter the fix adds is missing: past the
    frames, each line is an import, attribute or name error naming one of `names`, or a `TypeError` for a
    parameter of `changes` (`missing_parameters`)."""
    errors = _error_lines(shown)
    return bool(errors) and all(
        ((missing := _MISSING.match(line)) is not None
         and any(re.search(rf"(?<!\w){re.escape(name)}(?!\w)", missing["message"]) for name in names))
        or missing_parameters(line, changes)
        for line in errors)


def _words(text: str) -> int:
    """Whitespace-separated tokens holding a letter."""
    return sum(1 for token in text.split() if re.search(r"[A-Za-z]", token))


def docstring_words(spec: list[str]) -> int:
    """The words of a definition's docstring (`interface_specs` gives header and docstring), Sphinx directive lines
    left out: whitespace-separated tokens holding a letter."""
    docstring = _DOCSTRING.search("\n".join(spec))
    return _words(_DIRECTIVE.sub("", docstring["text"]) if docstring else "")


def parameter_words(missing: dict[AddedParameters, set[str]]) -> int:
    """The words the base commit's docstrings say about parameters shown missing (`parameters.described`; a line
    describing two of them counted once). The docstring lines the fix adds do not count: the solver reads the
    repository at the base commit and the statement, never the fix."""
    lines = {(change.function, at, line) for change, names in missing.items()
             for at, docstring in enumerate(change.docstrings) for name in sorted(names)
             for line in described(docstring, name)}
    return sum(_words(line) for *_, line in lines)


def unspecified_behaviour(statement: str, patch: str, test_patch: str, existing: set[str],
                          base: Path | None) -> str | None:
    """Why a statement specifies no behaviour (None: it does): every behaviour it lists only shows that a name of
    the new interface or a parameter the fix adds is missing, and what the solver reads about them (the new
    interface's docstrings the statement shows, what the base commit's docstrings say of those parameters) is
    fewer than `MIN_SPEC_WORDS` words."""
    listed = listed_failures(statement)
    if listed is None:
        return None
    names = new_interface(patch, test_patch, existing, base)
    changes = added_parameters(patch, base)
    if not (names or changes) or not all(only_missing(shown, names, changes) for shown in listed):
        return None
    missing: dict[AddedParameters, set[str]] = {}
    for line in (line for shown in listed for line in _error_lines(shown)):
        for change, parameters in missing_parameters(line, changes).items():
            missing.setdefault(change, set()).update(parameters)
    words = sum(docstring_words(spec) for spec in interface_specs(patch, names).values()) + parameter_words(missing)
    if words >= MIN_SPEC_WORDS:
        return None
    if not missing:
        return (f"the statement specifies no behaviour: each behaviour it lists only shows that a name of the new "
                f"interface ({', '.join(names)}) is missing, and its docstrings say {words} word(s) (fewer than "
                f"{MIN_SPEC_WORDS})")
    parameters = "; ".join(f"{change.function}: {', '.join(sorted(shown))}" for change, shown in missing.items())
    interface = [name for name in names if not any(name in shown for shown in missing.values())]
    return (f"the statement specifies no behaviour: each behaviour it lists only shows that "
            + (f"a name of the new interface ({', '.join(interface)}) or " if interface else "")
            + f"a parameter the fix adds ({parameters}) is missing, and what the solver reads of them (shown "
            f"docstrings, the base commit's docstrings) says {words} word(s) (fewer than {MIN_SPEC_WORDS}; the "
            f"docstring lines the fix adds are never shown)")
