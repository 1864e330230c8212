"""What the hidden tests expect to be raised or warned, read from small test patches with `ast`, and how the
statement states it where the base commit's output does not."""

from __future__ import annotations

import difflib
import json

from llm_server import ChatServer
from taskforge.agents.client import Agents
from taskforge.builders.swe.problem import Issue, Symptom, problem_statement, shown_tests, symptom_statement
from taskforge.graders.swe.expectations import Expectation, hidden_test_expectations, touched_tests
from taskforge.graders.swe.safe_git import text_in_tree
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


def test_nothing_from_a_helper_a_variable_a_decorator_an_untouched_test_or_one_that_is_not_fail_to_pass():
    added = '''

def test_through_helper():
    check_bad(-1)


@pytest.mark.parametrize("error", [ValueError])
def test_variable(error):
    with pytest.raises(error):
        wait(-1)


@pytest.mark.parametrize("context", [pytest.raises(ValueError), nullcontext()])
def test_some_cases_raise(context):
    with context:
        wait(-1)


def test_passing_before():
    with pytest.raises(ValueError):
        wait(-1)
'''
    tests = [f"{PATH}::test_through_helper", f"{PATH}::test_variable[ValueError]", f"{PATH}::test_untouched",
             f"{PATH}::test_some_cases_raise[context0]"]
    assert _expected(added, tests) == {}


def test_a_changed_test_in_a_new_file_and_a_path_outside_the_tree():
    new = "import pytest\n\n\ndef test_new():\n    with pytest.raises(KeyError):\n        wait({})\n"
    patch = _diff("", new, "tests/test_new.py") + _diff("x = 1\n", "x = 2\n", "../outside.py")
    found = hidden_test_expectations(patch, lambda path: None, ["tests/test_new.py::test_new"])
    assert found == {"tests/test_new.py::test_new": [Expectation("raises", ("KeyError",))]}
    changed = BASE.replace("wait({})", "wait({}, strict=True)")
    assert hidden_test_expectations(_diff(BASE, changed), lambda path: BASE, [f"{PATH}::test_untouched"]) == {
        f"{PATH}::test_untouched": [Expectation("raises", ("KeyError",))]}, "a changed test counts"


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
