"""Whether a SWE statement written from symptoms specifies behaviour, as pure functions over statements the builder
writes and patches shaped like click's PowerShell completion change (`graders.swe.specification`)."""

from __future__ import annotations

from taskforge.builders.swe.problem import Symptom, expectation_note, interface_note, symptom_statement
from taskforge.graders.swe.expectations import Expectation
from taskforge.graders.swe.specification import docstring_words, unspecified_behaviour
from taskforge.graders.swe.statement import interface_specs

POWERSHELL_DOC = ['    """Shell completion for PowerShell (Windows PowerShell 5.1+ and pwsh 7+).', "",
                  "    .. versionadded:: 8.5", '    """']
BEHAVIOUR_DOC = ['    """Shell completion for PowerShell (Windows PowerShell 5.1+ and pwsh 7+).', "",
                 "    Each completion is written on its own line as its type, its value and its help, separated",
                 "    by tabs; a value or help holding a tab or newline has it escaped as ``\\t`` or ``\\n``.", "",
                 "    .. versionadded:: 8.5", '    """']
TEST_PATCH = """diff --git a/tests/test_shell_completion.py b/tests/test_shell_completion.py
--- a/tests/test_shell_completion.py
+++ b/tests/test_shell_completion.py
@@ -1,2 +1,3 @@
 from click.shell_completion import BashComplete
+from click.shell_completion import PowerShellComplete
 from click.shell_completion import ShellComplete
"""
IMPORT_ERROR = ("_ ERROR collecting tests/test_shell_completion.py _\nImportError while importing test module.\n"
                "E   ImportError: cannot import name 'PowerShellComplete' from 'click.shell_completion' "
                "(src/click/shell_completion.py)")
ASSERTION = ("tests/test_shell_completion.py:40: in test_full_complete\n    assert out == expect\n"
             "E   AssertionError: assert 'plain\\n--at' == 'plain,--at'")
TESTS = ["tests/test_shell_completion.py::test_full_source[powershell]",
         "tests/test_shell_completion.py::test_powershell_escapes_help"]


def _patch(docstring: list[str]) -> str:
    """The solution: a new class with the given docstring (as diff lines) and a method."""
    added = ["class PowerShellComplete(ShellComplete):", *docstring, "", "    name = \"powershell\""]
    return ("diff --git a/src/click/shell_completion.py b/src/click/shell_completion.py\n"
            "--- a/src/click/shell_completion.py\n+++ b/src/click/shell_completion.py\n"
            f"@@ -300,1 +300,{len(added) + 1} @@\n class ZshComplete(ShellComplete):\n"
            + "".join(f"+{line}\n" for line in added))


def _statement(patch: str, failures: list[str], expected: tuple[Expectation, ...] = ()) -> str:
    """The statement the builder writes from these failures, with the interface note it appends."""
    text = symptom_statement("pallets/click", [Symptom(t, f, expected) for t, f in zip(TESTS, failures)])
    return f"{text}\n\n{interface_note([], interface_specs(patch, ['PowerShellComplete']))}"


def _verdict(patch: str, statement: str) -> str | None:
    return unspecified_behaviour(statement, patch, TEST_PATCH, {"ShellComplete", "BashComplete"}, None)


def test_docstring_words_leave_out_sphinx_directives_and_the_header():
    patch = _patch(POWERSHELL_DOC)
    assert docstring_words(interface_specs(patch, ["PowerShellComplete"])["PowerShellComplete"]) == 8
    assert docstring_words(["def f():", '    """.. versionadded:: 8.5"""']) == 0
    assert docstring_words(["def f(x):"]) == 0, "no docstring shown, no words"
    assert docstring_words(interface_specs(_patch(BEHAVIOUR_DOC), ["PowerShellComplete"])["PowerShellComplete"]) == 43


def test_only_import_errors_of_the_new_class_and_a_summary_line_docstring_specify_no_behaviour():
    patch = _patch(POWERSHELL_DOC)
    assert _verdict(patch, _statement(patch, [IMPORT_ERROR, IMPORT_ERROR])) == (
        "the statement specifies no behaviour: each behaviour it lists only shows that a name of the new interface "
        "(PowerShellComplete) is missing, and its docstrings say 8 word(s) (fewer than 20)")


def test_an_attribute_error_under_project_frames_shows_only_a_missing_name_too():
    patch = _patch(POWERSHELL_DOC)
    missing = ("src/click/__init__.py:126: in __getattr__\n    raise AttributeError(name)\n"
               "E   AttributeError: PowerShellComplete")
    assert "specifies no behaviour" in _verdict(patch, _statement(patch, [missing, IMPORT_ERROR]))


def test_a_docstring_that_specifies_the_behaviour_is_accepted():
    patch = _patch(BEHAVIOUR_DOC)
    assert _verdict(patch, _statement(patch, [IMPORT_ERROR, IMPORT_ERROR])) is None


def test_a_listed_assertion_or_a_stated_expectation_is_behaviour():
    patch = _patch(POWERSHELL_DOC)
    assert _verdict(patch, _statement(patch, [IMPORT_ERROR, ASSERTION])) is None
    raises = (Expectation("raises", ("ValueError",), "unknown shell"),)
    assert _verdict(patch, _statement(patch, [IMPORT_ERROR, IMPORT_ERROR], raises)) is None
    listed = symptom_statement("pallets/click", [Symptom(t, IMPORT_ERROR) for t in TESTS])
    closing = expectation_note(listed, {"tests/test_shell_completion.py::test_unknown_shell": list(raises)})
    assert closing and _verdict(patch, f"{listed}\n\n{closing}") is None
    assert _verdict(patch, listed) is not None, "the same listing without the note specifies nothing"


def test_an_issue_or_a_rewrite_is_not_judged_by_its_symptoms():
    patch = _patch(POWERSHELL_DOC)
    statement = _statement(patch, [IMPORT_ERROR, IMPORT_ERROR])
    issue = "Support PowerShell completion\nclick has no completion for PowerShell.\n\n" + statement.split("\n\n")[-1]
    assert _verdict(patch, issue) is None
    assert _verdict(patch, statement + "\n\nThe completion script registers itself with Register-ArgumentCompleter.") \
        is None
