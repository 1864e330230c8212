"""What the hidden tests expect to be raised or warned, read from small test patches with `ast`, and how the
statement states it where the base commit's output does not."""

from __future__ import annotations

import difflib
import json

from llm_server import ChatServer
from taskforge.agents.client import Agents
from taskforge.builders.swe.problem import Issue, Symptom, problem_statement, shown_tests, symptom_statement
from taskforge.graders.swe.expectations import Expectation, hidden_test_expectations, touched_tests
from taskforge.graders.swe.harness import cache_root
from taskforge.graders.swe.safe_git import text_in_tree
from taskforge.schemas import Lineage, Message, Task, task_id_for
from taskforge.validators.swe.statement import StatementStatesInterface
from test_agents import make_agents

OFFLINE = Agents.offline("no endpoint configured")
PATH = "tests/test_wait.py"

BASE = '''import pytest

from pkg import wait


def check_bad(value):
    with pytest.raises(ValueError):
        wait(value)


def test_untouched():
    with pytest.raises(KeyError):
        wait({})
'''


def _diff(old: str, new: str, path: str = PATH) -> str:
    """A `git diff` of one file (a new file where `old` is empty)."""
    head = f"diff --git a/{path} b/{path}\n" + ("new file mode 100644\n" if not old else "")
    body = difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True),
                                f"a/{path}" if old else "/dev/null", f"b/{path}")
    return head + "".join(body)


def _expected(added: str, tests: list[str], base: str = BASE) -> dict[str, list[Expectation]]:
    """What `tests` expect once `added` is appended to the base test file."""
    return hidden_test_expectations(_diff(base, base + added), lambda path: base if path == PATH else None, tests)


def test_pytest_raises_with_and_without_a_literal_match():
    added = '''

def test_multiplier_raises():
    with pytest.raises(ValueError, match="multiplier"):
        wait(multiplier=-1)
    with pytest.raises(TypeError):
        wait(multiplier="x")
'''
    found = _expected(added, [f"{PATH}::test_multiplier_raises"])
    assert found == {f"{PATH}::test_multiplier_raises": [Expectation("raises", ("ValueError",), "multiplier"),
                                                        Expectation("raises", ("TypeError",))]}
    assert [e.text for e in found[f"{PATH}::test_multiplier_raises"]] == [
        "raises ValueError matching 'multiplier'", "raises TypeError"]


def test_a_tuple_a_dotted_name_and_a_computed_pattern():
    added = '''

def test_either():
    with pytest.raises((ValueError, pkg.errors.WaitError), match=f"{name}"):
        wait(-1)
'''
    (only,) = _expected(added, [f"{PATH}::test_either"])[f"{PATH}::test_either"]
    assert only == Expectation("raises", ("ValueError", "pkg.errors.WaitError"))
    assert only.text == "raises ValueError or pkg.errors.WaitError", "a computed pattern is no literal spec"


def test_unittest_assert_raises_and_assert_raises_regex_in_a_test_class():
    added = '''

class TestWait(unittest.TestCase):
    def test_retry_error(self):
        with self.assertRaises(tenacity.RetryError):
            wait(3)
        self.assertRaisesRegex(ValueError, r"must be \\d+", wait, -1)
'''
    test = f"{PATH}::TestWait::test_retry_error"
    assert [e.text for e in _expected(added, [test])[test]] == [
        "raises tenacity.RetryError", "raises ValueError matching r'must be \\d+'"]


def test_pytest_warns_deprecated_call_and_assert_warns():
    added = '''

def test_deprecated():
    with pytest.warns(DeprecationWarning, match="multiplier"):
        wait(multiplier=2)
    with pytest.deprecated_call():
        wait(exp_base=2)


class TestOld(unittest.TestCase):
    def test_old(self):
        with self.assertWarns(FutureWarning):
            wait(old=True)
'''
    found = _expected(added, [f"{PATH}::test_deprecated", f"{PATH}::TestOld::test_old"])
    assert [e.text for e in found[f"{PATH}::test_deprecated"]] == [
        "warns DeprecationWarning matching 'multiplier'",
        "warns DeprecationWarning or PendingDeprecationWarning or FutureWarning"]
    assert [e.text for e in found[f"{PATH}::TestOld::test_old"]] == ["warns FutureWarning"]


def test_nested_in_a_parametrised_test_and_raises_imported_from_pytest():
    added = '''

from pytest import raises as fails


@pytest.mark.parametrize("value", [-1, -2])
def test_negative(value):
    for attempt in range(2):
        if attempt:
            with fails(OverflowError, match=re.escape("value (negative)")):
                wait(value)
'''
    found = _expected(added, [f"{PATH}::test_negative[-1]", f"{PATH}::test_negative[-2]"])
    assert found[f"{PATH}::test_negative[-1]"] == found[f"{PATH}::test_negative[-2]"] == [
        Expectation("raises", ("OverflowError",), r"value\ \(negative\)")]


def test_nothing_from_a_helper_a_fixture_an_untouched_test_or_one_that_is_not_fail_to_pass():
    added = '''

def test_through_helper():
    check_bad(-1)


def test_fixture(error, context):
    with context:
        with pytest.raises(error):
            wait(-1)


def test_passing_before():
    with pytest.raises(ValueError):
        wait(-1)
'''
    tests = [f"{PATH}::test_through_helper", f"{PATH}::test_fixture", f"{PATH}::test_untouched"]
    assert _expected(added, tests) == {}


def test_a_changed_test_in_a_new_file_and_a_path_outside_the_tree():
    new = "import pytest\n\n\ndef test_new():\n    with pytest.raises(KeyError):\n        wait({})\n"
    patch = _diff("", new, "tests/test_new.py") + _diff("x = 1\n", "x = 2\n", "../outside.py")
    found = hidden_test_expectations(patch, lambda path: None, ["tests/test_new.py::test_new"])
    assert found == {"tests/test_new.py::test_new": [Expectation("raises", ("KeyError",))]}
    changed = BASE.replace("wait({})", "wait({}, strict=True)")
    assert hidden_test_expectations(_diff(BASE, changed), lambda path: BASE, [f"{PATH}::test_untouched"]) == {
        f"{PATH}::test_untouched": [Expectation("raises", ("KeyError",))]}, "a changed test counts"


PARAMETRISED = """

@pytest.mark.parametrize(
    ("value", "expectation"),
    [
        (3, does_not_raise()),
        (2.5, nullcontext()),
        ("x", pytest.raises(TypeError, match="must be a number")),
        pytest.param(-1, pytest.raises(ValueError, match=r"negative \\(got -1\\)"), id="negative"),
        ("\u00e9", pytest.warns(UserWarning)),
    ],
)
def test_wait_value(value, expectation):
    with expectation as caught:
        assert wait(value) is not None
"""


def test_a_parametrised_context_expects_what_the_case_the_test_id_names_raises():
    cases = ["3-expectation0", "2.5-expectation1", "x-expectation2", "negative", "\\xe9-expectation4"]
    found = _expected(PARAMETRISED, [f"{PATH}::test_wait_value[{case}]" for case in cases])
    assert {test: [e.text for e in expected] for test, expected in found.items()} == {
        f"{PATH}::test_wait_value[x-expectation2]": ["raises TypeError matching 'must be a number'"],
        f"{PATH}::test_wait_value[negative]": ["raises ValueError matching r'negative \\(got -1\\)'"],
        f"{PATH}::test_wait_value[\\xe9-expectation4]": ["warns UserWarning"],
    }, "does_not_raise() and nullcontext() add nothing; pytest.param's id and a non-ASCII value are matched"


def test_an_exception_class_or_pattern_given_as_a_parameter_in_stacked_marks_and_a_constant():
    added = """

@pytest.mark.parametrize("divisor, error", [
    (0, ZeroDivisionError), ("2", TypeError), (2, None), (b"\\\\x00", errors.Bad),
])
def test_div_errors(divisor, error):
    if error is None:
        assert wait(4, divisor) == 2
    else:
        with pytest.raises(error):
            wait(4, divisor)


BAD_MULTIPLIERS = [(-1, "must be positive"), (math.inf, "finite"), (2, r"'nargs' must be 1 \\(or None\\) for type "
                                                                  r"<click\\.types\\.Tuple object at 0x[0-9A-Fa-f]+>, "
                                                                  r"but it was 2\\.")]


@pytest.mark.parametrize("jitter", [True, False])
@pytest.mark.parametrize("multiplier, message", BAD_MULTIPLIERS)
def test_bad_multiplier(multiplier, message, jitter):
    with pytest.raises(ValueError, match=message):
        wait(multiplier=multiplier, jitter=jitter)


@pytest.mark.parametrize("name", ["safecall", "LazyFile"])
def test_deprecated(name):
    with pytest.warns(DeprecationWarning, match=re.compile(re.escape(name))):
        getattr(pkg, name)
"""
    tests = [f"{PATH}::test_div_errors[{case}]" for case in ("0-ZeroDivisionError", "2-TypeError", "2-None",
                                                             "\\x00-Bad")]
    tests += [f"{PATH}::test_bad_multiplier[-1-must be positive-False]",
              f"{PATH}::test_bad_multiplier[inf-finite-True]"]
    tests += [f"{PATH}::test_deprecated[LazyFile]", f"{PATH}::test_bad_multiplier[2-message2-False]"]
    found = {test: [e.text for e in expected] for test, expected in _expected(added, tests).items()}
    assert found == {tests[0]: ["raises ZeroDivisionError"], tests[1]: ["raises TypeError"],
                     tests[3]: ["raises errors.Bad"], tests[4]: ["raises ValueError matching 'must be positive'"],
                     tests[5]: ["raises ValueError matching 'finite'"],
                     tests[6]: ["warns DeprecationWarning matching 'LazyFile'"],
                     tests[7]: ["raises ValueError matching r\"'nargs' must be 1 \\(or None\\) for type "
                                "<click\\.types\\.Tuple object at 0x[0-9A-Fa-f]+>, but it was 2\\.\""]
                     }, "the case given None expects nothing; pytest 9 names a string over 100 characters by its index"


def test_cases_ids_made_by_a_function_do_not_tell_apart_keep_every_case_expectation_and_fixture_ids_are_skipped():
    added = """

@pytest.mark.parametrize("value, error", [(-1, ValueError), ("x", TypeError)], ids=describe)
def test_named_by_a_function(value, error):
    with pytest.raises(error):
        wait(value)


@pytest.mark.parametrize("context", [pytest.raises(KeyError), does_not_raise()], ids=["missing", "present"])
def test_named_by_a_list(context, shell):
    with context:
        wait({})
"""
    tests = [f"{PATH}::test_named_by_a_function[negative-ValueError]", f"{PATH}::test_named_by_a_list[bash-missing]",
             f"{PATH}::test_named_by_a_list[bash-present]"]
    found = {test: [e.text for e in expected] for test, expected in _expected(added, tests).items()}
    assert found == {tests[0]: ["raises ValueError", "raises TypeError"],
                     tests[1]: ["raises KeyError"]}, "the `shell` fixture's parameter id comes first"


FORMATS = """import json

import pytest


@pytest.mark.parametrize("text", ["garbage", "{"])
class BaseFormatTests:
    error = ValueError

    def load(self, text):
        raise self.error(text)

    def test_rejects_garbage(self, text):
        with pytest.raises(self.error):
            self.load(text)


class TestJson(BaseFormatTests):
    error = json.JSONDecodeError

    def load(self, text):
        return json.loads(text)


class TestPlain(BaseFormatTests):
    pass
"""
FORMATS_PATH = "tests/formats/test_formats.py"


def test_a_changed_base_class_test_runs_in_each_subclass_with_its_class_attributes():
    changed = FORMATS.replace("with pytest.raises(self.error):", 'with pytest.raises(self.error, match="garbage"):')
    tests = [f"{FORMATS_PATH}::TestJson::test_rejects_garbage[garbage]",
             f"{FORMATS_PATH}::TestPlain::test_rejects_garbage[{{]"]
    found = hidden_test_expectations(_diff(FORMATS, changed, FORMATS_PATH), lambda path: FORMATS, tests)
    assert {test: [e.text for e in expected] for test, expected in found.items()} == {
        tests[0]: ["raises json.JSONDecodeError matching 'garbage'"],
        tests[1]: ["raises ValueError matching 'garbage'"]}
    assert touched_tests(_diff(FORMATS, changed, FORMATS_PATH), lambda path: FORMATS, tests) == set(tests)


def test_a_new_subclass_inherits_tests_from_a_base_class_it_imports():
    toml = ("import unittest\n\nfrom .test_formats import BaseFormatTests\nfrom tests.formats.mixins import LookupTests"
            "\n\n\nclass TestToml(BaseFormatTests):\n    error = TomlDecodeError\n\n\n"
            "class TestLookup(LookupTests, unittest.TestCase):\n    pass\n")
    mixins = ("class LookupTests:\n    def test_missing(self):\n        with self.assertRaises(KeyError):\n"
              "            self.lookup('x')\n")
    base = {FORMATS_PATH: FORMATS, "tests/formats/mixins.py": mixins}
    tests = ["tests/formats/test_toml.py::TestToml::test_rejects_garbage[garbage]",
             "tests/formats/test_toml.py::TestLookup::test_missing",
             f"{FORMATS_PATH}::TestJson::test_rejects_garbage[garbage]"]
    patch = _diff("", toml, "tests/formats/test_toml.py")
    found = hidden_test_expectations(patch, base.get, tests)
    assert found == {tests[0]: [Expectation("raises", ("TomlDecodeError",))],
                     tests[1]: [Expectation("raises", ("KeyError",))]}, "the unchanged file's subclass is not read"
    assert touched_tests(patch, base.get, tests) == set(tests[:2])


def test_a_change_to_a_subclass_method_or_to_another_class_leaves_the_inherited_test_out():
    setup = FORMATS.replace("return json.loads(text)", "return json.loads(text, strict=True)")
    other = FORMATS + "\n\nclass TestOther:\n    error = KeyError\n"
    tests = [f"{FORMATS_PATH}::TestJson::test_rejects_garbage[garbage]"]
    for changed in (setup, other):
        assert hidden_test_expectations(_diff(FORMATS, changed, FORMATS_PATH), lambda path: FORMATS, tests) == {}
    attribute = FORMATS.replace("error = json.JSONDecodeError", "error = json.JSONDecodeError\n    strict = True")
    assert hidden_test_expectations(_diff(FORMATS, attribute, FORMATS_PATH), lambda path: FORMATS, tests) == {
        tests[0]: [Expectation("raises", ("json.JSONDecodeError",))]}, "a class attribute the subclass adds counts"


WAIT = 'def wait(value):\n    """Seconds to wait for a value."""\n    return float(value)\n'
FIXED = WAIT.replace("    return float", "    if isinstance(value, str):\n        raise TypeError('must be a number')\n"
                                       "    return float")


def _planted(tmp_path, statement: str, fail_to_pass: list[str]) -> Task:
    """A SWE task over a snapshot holding `pkg/wait.py` and the base test file, whose test patch adds the
    parametrised `test_wait_value`, its statement shown to the solver as given."""
    snapshot = f"planted/{tmp_path.name}"
    for path, text in {"pkg/wait.py": WAIT, PATH: BASE}.items():
        (cache_root() / snapshot / path).parent.mkdir(parents=True, exist_ok=True)
        (cache_root() / snapshot / path).write_text(text)
    payload = {"instance_id": "pkg__wait-1", "repo": "pkg/wait", "base_commit": "a" * 40,
               "problem_statement": statement, "hints_text": "", "created_at": "2025-01-01T00:00:00Z",
               "committed_at": "2025-01-01T00:00:00Z", "version": "0.1", "environment_setup_commit": "a" * 40,
               "FAIL_TO_PASS": fail_to_pass, "PASS_TO_PASS": [], "environment_recipe": {}, "issue_numbers": [],
               "pull_number": None, "statement_origin": "symptoms"}
    return Task(task_id=task_id_for("swe", "issue_repair", payload), family="swe", kind="issue_repair",
                capability="implementation", prompt=[Message(role="user", content=f"<issue>\n{statement}\n</issue>")],
                payload=payload, reference={"patch": _diff(WAIT, FIXED, "pkg/wait.py"),
                                            "test_patch": _diff(BASE, BASE + PARAMETRISED), "fix_commit": "b" * 40},
                grader={"harness": "swe", "log_parser": "pytest", "test_files": [PATH], "repeats": 3},
                environment={"snapshot": snapshot},
                lineage=Lineage(cycle_id="test", resource_id="repo:pkg/wait", resource_revision="head",
                                builder="swe.git_history", builder_version="0.2.0"))


def test_a_statement_leaving_out_a_parametrised_case_expectation_is_rejected_and_one_stating_it_accepted(tmp_path):
    symptom = "wait('x') fails with ValueError: could not convert string to float: 'x'."
    raising = [f"{PATH}::test_wait_value[3-expectation0]", f"{PATH}::test_wait_value[x-expectation2]"]
    check = StatementStatesInterface()
    left_out = check.run(_planted(tmp_path, symptom, raising))
    assert not left_out.passed and left_out.reason == (
        "the hidden tests expect what the statement never states: raises TypeError matching 'must be a number'")
    stated = check.run(_planted(tmp_path, symptom + " It should raise TypeError: must be a number.", raising))
    assert stated.passed, stated.reason
    passing = check.run(_planted(tmp_path, "wait(3) gives the wrong value.", [raising[0]]))
    assert passing.passed, "the does_not_raise() case expects nothing: " + str(passing.reason)


def test_base_files_are_read_inside_the_snapshot_only(tmp_path):
    (tmp_path / "tree" / "tests").mkdir(parents=True)
    (tmp_path / "tree" / "tests" / "test_a.py").write_text("x = 1\n")
    (tmp_path / "secret.py").write_text("token = 1\n")
    assert text_in_tree(tmp_path / "tree", "tests/test_a.py") == "x = 1\n"
    assert text_in_tree(tmp_path / "tree", "../secret.py") is None
    assert text_in_tree(tmp_path / "tree", "tests/missing.py") is None


TYPE_ERROR = """tenacity/wait.py:40: in __init__
    raise TypeError(name)
E   TypeError: __init__() got an unexpected keyword argument 'multiplier'"""
DID_NOT_RAISE = "E   Failed: DID NOT RAISE <class 'ValueError'>"
MULTIPLIER = Expectation("raises", ("ValueError",), "multiplier")
TEST = "tests/test_wait.py::TestWait::test_initial_and_multiplier_raises"


def test_the_statement_states_what_the_base_commit_does_not_show():
    text = symptom_statement("jd/tenacity", [Symptom(TEST, TYPE_ERROR, (MULTIPLIER,))])
    assert ("1. Wait: initial and multiplier raises\n"
            "    tenacity/wait.py:40: in __init__\n        raise TypeError(name)\n"
            "    TypeError: __init__() got an unexpected keyword argument 'multiplier'\n"
            "    expected: raises ValueError matching 'multiplier'\n") in text


def test_an_expectation_the_output_already_shows_leaves_the_statement_as_it_was():
    shown = Symptom(TEST, DID_NOT_RAISE + "\nE   Regex: 'multiplier'", (MULTIPLIER,))
    assert symptom_statement("r", [shown]) == symptom_statement("r", [Symptom(shown.test, shown.failure)])
    partly = symptom_statement("r", [Symptom(TEST, DID_NOT_RAISE, (MULTIPLIER,))])
    assert "expected: raises ValueError matching 'multiplier'" in partly, "the pattern is not shown yet"


def test_a_test_the_symptoms_leave_out_or_an_issue_gets_a_closing_note():
    warned = "tests/test_wait.py::test_deprecated"
    expected = {TEST: [MULTIPLIER], warned: [Expectation("warns", ("DeprecationWarning",))]}
    listed = problem_statement("Fix multiplier", {}, "", "jd/tenacity", "2025-01-01T00:00:00Z", "t-1", OFFLINE,
                               [Symptom(TEST, TYPE_ERROR, (MULTIPLIER,))], {}, expected)
    assert listed.text.count("raises ValueError matching 'multiplier'") == 1, "stated once, where it is listed"
    assert listed.text.endswith("nothing else changes.\n\n"
                                "The checks also expect:\n- deprecated: warns DeprecationWarning")
    issue = {"number": 5, "title": "multiplier is ignored", "body": "wait_exponential_jitter drops it."}
    linked = problem_statement("Fix multiplier\n\nFixes #5", {5: Issue(**issue)}, "", "jd/tenacity",
                               "2025-01-01T00:00:00Z", "t-1", OFFLINE, [], {"multiplier": []}, expected)
    assert linked.text == ("multiplier is ignored\nwait_exponential_jitter drops it.\n\nThe checks also expect:\n"
                           "- Wait: initial and multiplier raises: raises ValueError matching 'multiplier'\n"
                           "- deprecated: warns DeprecationWarning")


def test_without_expectations_the_statement_is_unchanged():
    plain = problem_statement("Fix multiplier", {}, "", "jd/tenacity", "2025-01-01T00:00:00Z", "t-1", OFFLINE,
                              [Symptom(TEST, TYPE_ERROR)], {"jitter": []})
    assert plain.text == symptom_statement("jd/tenacity", [Symptom(TEST, TYPE_ERROR)]) + (
        "\n\nThe checks use these names, which do not exist yet and must be provided: `jitter`.")


def test_the_builder_agent_is_told_the_expectation_and_its_rewrite_keeps_it_stated(tmp_path):
    rewrite = {"title": "wait_exponential_jitter rejects multiplier",
               "statement": "Passing multiplier fails with a TypeError; giving it with initial should be refused."}
    review = {"analysis": "ok", "behaviour_stated": True, "fix_hidden": True, "faithful": True, "issues": [],
              "verdict": "accept"}
    with ChatServer() as server:
        server.queue(json.dumps(rewrite), json.dumps(review))
        statement = problem_statement("Deprecate initial", {}, "", "jd/tenacity", "2025-01-01T00:00:00Z", "t-1",
                                      make_agents(server, tmp_path), [Symptom(TEST, TYPE_ERROR, (MULTIPLIER,))], {},
                                      {TEST: [MULTIPLIER]})
    assert "multiplier'\nexpected: raises ValueError matching 'multiplier'" in server.requests[0]["messages"][-1][
        "content"], "the agent is told what the test expects"
    assert statement.origin == "rewritten" and statement.text.endswith(
        "should be refused.\n\nThe checks also expect:\n"
        "- Wait: initial and multiplier raises: raises ValueError matching 'multiplier'")


def test_a_statement_lists_the_behaviours_the_change_is_about_before_tests_that_only_fail_with_them():
    added = '''

@pytest.mark.parametrize("shell", ["bash", "pwsh"])
def test_full_complete(shell):
    assert wait(shell)


def test_pwsh_escapes_help():
    assert wait("pwsh")
'''
    untouched = [f"{PATH}::test_a_{n}" for n in range(4)]
    cases = [f"{PATH}::test_full_complete[bash]", f"{PATH}::test_full_complete[pwsh]", f"{PATH}::test_pwsh_escapes_help"]
    fail_to_pass = untouched + cases
    about = touched_tests(_diff(BASE, BASE + added), lambda path: BASE if path == PATH else None, fail_to_pass)
    assert about == set(cases)
    assert shown_tests(fail_to_pass, about, 3) == [f"{PATH}::test_full_complete[bash]",
                                                   f"{PATH}::test_full_complete[pwsh]", f"{PATH}::test_pwsh_escapes_help"]
    assert shown_tests(fail_to_pass, about, 2) == [f"{PATH}::test_full_complete[bash]",
                                                   f"{PATH}::test_pwsh_escapes_help"], "one case of each function first"
    assert shown_tests(fail_to_pass, about, 4) == [untouched[0], *cases], "then the others, in their order"
    assert shown_tests(untouched, set(), 4) == untouched, "a list within the limit is shown whole, as it comes"
