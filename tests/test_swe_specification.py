"""Whether a SWE statement written from symptoms specifies behaviour, as pure functions over statements the builder
writes and patches shaped like click's PowerShell completion change (`graders.swe.specification`)."""

from __future__ import annotations

import difflib

from taskforge.builders.swe.problem import Symptom, expectation_note, interface_note, symptom_statement
from taskforge.graders.swe.expectations import Expectation
from taskforge.graders.swe.parameters import added_parameters, described
from taskforge.graders.swe.specification import docstring_words, missing_parameters, unspecified_behaviour
from taskforge.graders.swe.statement import interface_specs, mentions, new_interface

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


STYLE_BEFORE = '''def style(text, fg=None, bold=None, reset=True):
    """Styles a text with ANSI styles and returns the new string.

    :param text: the string to style with ansi codes.
    :param fg: if provided this will become the foreground color.
    :param bold: if provided this will enable or disable bold mode.
    :param reset: by default a reset-all code is added at the end of the
                  string which means that styles do not carry over.
    """
    bits = [text]
    return "".join(bits)
'''
OVERLINE_DOC = ("    :param overline: if provided this will enable or disable overline mode: a line is drawn\n"
                "                     above the text, from its first character to its last, and a reset\n"
                "                     code ends it unless ``reset`` is false.\n")
STYLE_TEST_PATCH = """diff --git a/tests/test_utils.py b/tests/test_utils.py
--- a/tests/test_utils.py
+++ b/tests/test_utils.py
@@ -1,2 +1,3 @@
 import click
+assert click.style("x", overline=True) == "\\x1b[53mx\\x1b[0m"
 assert click.style("x") == "x"
"""
OVERLINE_ERROR = ("tests/test_utils.py:2: in test_styling\n    assert click.style(\"x\", overline=True)\n"
                  "E   TypeError: style() got an unexpected keyword argument 'overline'")
OVERLINE_TESTS = ["tests/test_utils.py::test_styling[overline]", "tests/test_utils.py::test_overline_reset"]


def _style_after(documented: bool) -> str:
    """`style` as the fix leaves it: an `overline` parameter, documented in its docstring or not."""
    after = STYLE_BEFORE.replace("reset=True):", "reset=True, overline=None):")
    after = after.replace("    bits = [text]\n",
                          "    bits = [text]\n    if overline:\n        bits.insert(0, \"\\x1b[53m\")\n")
    return after.replace("do not carry over.\n", "do not carry over.\n" + OVERLINE_DOC) if documented else after


def _diff(path: str, before: str, after: str) -> str:
    lines = difflib.unified_diff(before.splitlines(keepends=True), after.splitlines(keepends=True),
                                 f"a/{path}", f"b/{path}")
    return f"diff --git a/{path} b/{path}\n" + "".join(lines)


def _overline_verdict(tmp_path, base_source: str, fixed_source: str, failures: list[str]) -> str | None:
    """The verdict on the statement the builder writes for a fix of `termui.style` in a base tree holding
    `base_source`."""
    (tmp_path / "src/click").mkdir(parents=True)
    (tmp_path / "src/click/termui.py").write_text(base_source)
    patch = _diff("src/click/termui.py", base_source, fixed_source)
    existing = {"click", "style", "text", "fg", "bold", "reset", "bits", "join", "insert"}
    names = new_interface(patch, STYLE_TEST_PATCH, existing, tmp_path)
    text = symptom_statement("pallets/click", [Symptom(t, f) for t, f in zip(OVERLINE_TESTS, failures)])
    note = interface_note([name for name in names if not mentions(text, name)], interface_specs(patch, names))
    return unspecified_behaviour("\n\n".join(filter(None, [text, note])), patch, STYLE_TEST_PATCH, existing,
                                 tmp_path)


def test_only_unexpected_keyword_errors_for_a_parameter_the_fix_adds_specify_no_behaviour(tmp_path):
    assert _overline_verdict(tmp_path, STYLE_BEFORE, _style_after(False), [OVERLINE_ERROR, OVERLINE_ERROR]) == (
        "the statement specifies no behaviour: each behaviour it lists only shows that a parameter the fix adds "
        "(style: overline) is missing, and what the solver reads of them (shown docstrings, the base commit's "
        "docstrings) says 0 word(s) (fewer than 20; the docstring lines the fix adds are never shown)")


def test_a_parameter_documented_only_by_the_fix_still_specifies_no_behaviour(tmp_path):
    assert "says 0 word(s)" in _overline_verdict(tmp_path, STYLE_BEFORE, _style_after(True),
                                                  [OVERLINE_ERROR, OVERLINE_ERROR]), \
        "the solver reads the base commit's docstring and the statement, never the fix's docstring lines"


def test_a_parameter_the_base_commits_docstring_documents_is_specified(tmp_path):
    documented = _style_after(True).replace("reset=True, overline=None):", "reset=True):")
    assert _overline_verdict(tmp_path, documented, _style_after(True), [OVERLINE_ERROR, OVERLINE_ERROR]) is None


def test_an_assertion_among_the_keyword_errors_is_behaviour(tmp_path):
    assertion = ("tests/test_utils.py:9: in test_overline_reset\n    assert out == expect\n"
                 "E   AssertionError: assert '\\x1b[53mx' == '\\x1b[53mx\\x1b[0m'")
    assert _overline_verdict(tmp_path, STYLE_BEFORE, _style_after(False), [OVERLINE_ERROR, assertion]) is None


def test_a_keyword_the_fix_takes_without_a_parameter_of_its_name_is_not_read_as_missing(tmp_path):
    fixed = STYLE_BEFORE.replace("reset=True):", "reset=True, **styles):")
    assert _overline_verdict(tmp_path, STYLE_BEFORE, fixed, [OVERLINE_ERROR, OVERLINE_ERROR]) is None


def test_too_many_positional_arguments_show_a_parameter_missing_only_where_the_counts_match(tmp_path):
    fixed = STYLE_BEFORE.replace("def style(text, fg=None,", "def style(text, fg=None, bg=None,")
    (tmp_path / "src/click").mkdir(parents=True)
    (tmp_path / "src/click/termui.py").write_text(STYLE_BEFORE)
    changes = added_parameters(_diff("src/click/termui.py", STYLE_BEFORE, fixed), tmp_path)
    assert [(c.function, c.names, c.positional_before, c.positional_after) for c in changes] == [
        ("style", ("bg",), 4, 5)]
    assert missing_parameters("TypeError: style() takes from 1 to 4 positional arguments but 5 were given",
                              changes) == {changes[0]: {"bg"}}
    assert missing_parameters("TypeError: style() takes 3 positional arguments but 5 were given", changes) == {}
    assert missing_parameters("TypeError: style() takes from 1 to 4 positional arguments but 6 were given",
                              changes) == {}
    assert missing_parameters("TypeError: echo() takes from 1 to 4 positional arguments but 5 were given",
                              changes) == {}


def test_keyword_errors_are_read_as_every_python_words_them(tmp_path):
    (tmp_path / "src/click").mkdir(parents=True)
    (tmp_path / "src/click/termui.py").write_text(STYLE_BEFORE)
    changes = added_parameters(_diff("src/click/termui.py", STYLE_BEFORE, _style_after(False)), tmp_path)
    for line in ("TypeError: style() got an unexpected keyword argument 'overline'",
                 "TypeError: termui.<locals>.style() got an unexpected keyword argument 'overline'",
                 "TypeError: style() got an unexpected keyword argument 'overline'. Did you mean 'reset'?"):
        assert missing_parameters(line, changes) == {changes[0]: {"overline"}}, line
    assert missing_parameters("TypeError: style() got an unexpected keyword argument 'underline'", changes) == {}
    assert missing_parameters("TypeError: 'NoneType' object is not callable", changes) == {}


def test_a_parameters_description_is_its_line_and_the_lines_under_it_outside_directives():
    docstring = ("Styles a text.\n\n:param reset: by default a reset code is added\n    at the end.\n"
                 ":param overline: draws a line\n    above the text.\n:param bold: bold mode.\n\n"
                 ".. versionchanged:: 8.3\n    Added ``overline``.")
    assert described(docstring, "overline") == [":param overline: draws a line", "    above the text."]
    assert described(docstring, "underline") == []
