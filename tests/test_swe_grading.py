"""SWE grading as pure functions: pytest logs to statuses, harvest of FAIL_TO_PASS / PASS_TO_PASS, verdicts."""

from __future__ import annotations

from taskforge.builders.swe.problem import error_lines
from taskforge.graders.swe.grading import FAILED, PASSED, SKIPPED, XFAIL, grade, harvest, parse_pytest_log, unapplied
from taskforge.graders.swe.harness import SuiteRun, failure_sections, reset_paths, resets_whole
from taskforge.graders.swe.patch import (is_test_path, post_image_blobs, quoted_lines, runnable_test_files, split_diff,
                                         held_out_targets)
from taskforge.graders.swe.statement import names_the_fix, new_interface, unstated_interface

LOG = """============================= test session starts ==============================
collected 6 items

tests/test_ops.py ..F.sx                                                 [100%]

=========================== short test summary info ============================
PASSED tests/test_ops.py::test_add
PASSED tests/test_ops.py::test_param[a b]
FAILED tests/test_ops.py::test_div_by_zero - AssertionError: boom
\x1b[32mPASSED\x1b[0m tests/test_ops.py::test_sub
SKIPPED [1] tests/test_ops.py:30: not on this platform
XFAIL tests/test_ops.py::test_known - reason: later
ERROR tests/test_broken.py - ModuleNotFoundError: No module named 'nope'
========================= 1 failed, 3 passed in 0.12s ==========================
"""


def test_pytest_log_gives_one_status_per_test_and_ignores_skip_summaries():
    statuses = parse_pytest_log(LOG)
    assert statuses == {
        "tests/test_ops.py::test_add": PASSED, "tests/test_ops.py::test_param[a": PASSED,
        "tests/test_ops.py::test_div_by_zero": FAILED, "tests/test_ops.py::test_sub": PASSED,
        "tests/test_ops.py::test_known": XFAIL, "tests/test_broken.py": "ERROR",
    }


def test_verbose_lines_are_read_too():
    assert parse_pytest_log("tests/t.py::test_x PASSED  [ 50%]\ntests/t.py::test_y SKIPPED (why)") == {
        "tests/t.py::test_x": PASSED, "tests/t.py::test_y": SKIPPED}


def test_harvest_classifies_by_before_and_after_and_drops_flaky_tests():
    before = {"a": PASSED, "b": FAILED, "flaky": PASSED, "gone": PASSED, "broken": PASSED}
    after = [{"a": PASSED, "b": PASSED, "new": PASSED, "flaky": FAILED, "broken": FAILED},
             {"a": PASSED, "b": PASSED, "new": PASSED, "flaky": PASSED, "broken": FAILED},
             {"a": PASSED, "b": PASSED, "new": PASSED, "flaky": FAILED, "broken": FAILED}]
    result = harvest(before, after)
    assert result.fail_to_pass == ["b", "new"]
    assert result.pass_to_pass == ["a"]
    assert result.flaky == ["flaky"]
    assert result.pass_to_fail == ["broken"]


def test_grade_resolves_only_when_every_listed_test_passes():
    assert grade({"f": PASSED, "p": PASSED}, ["f"], ["p"]).resolved
    assert grade({"f": XFAIL, "p": SKIPPED}, ["f"], ["p"]).resolved, "xfail passes, a skipped P2P test is kept"
    assert not grade({"f": FAILED, "p": PASSED}, ["f"], ["p"]).resolved
    assert not grade({"p": PASSED}, ["f"], ["p"]).resolved, "a missing FAIL_TO_PASS test is a failure"
    assert not grade({"f": PASSED}, ["f"], ["p"]).resolved, "a missing PASS_TO_PASS test is a failure"
    assert grade({"f": PASSED}, ["f"], ["p"]).score == 0.0
    assert not unapplied(["f"], []).resolved


def test_a_task_without_fail_to_pass_is_resolved_by_anything_that_keeps_the_passing_tests():
    assert grade({"p": PASSED}, [], ["p"]).resolved


DIFF = """diff --git a/pkg/core.py b/pkg/core.py
index 1111111111111111111111111111111111111111..2222222222222222222222222222222222222222 100644
--- a/pkg/core.py
+++ b/pkg/core.py
@@ -1,2 +1,2 @@
-def f(): return 1
+def f(): return compute_the_right_answer()
diff --git a/tests/test_core.py b/tests/test_core.py
index 3333333333333333333333333333333333333333..4444444444444444444444444444444444444444 100644
--- a/tests/test_core.py
+++ b/tests/test_core.py
@@ -1 +1,2 @@
+def test_f(): assert f() == 2
@@ -9 +10 @@
-x
+y
diff --git a/tests/data/case.json b/tests/data/case.json
new file mode 100644
index 0000000000000000000000000000000000000000..5555555555555555555555555555555555555555
--- /dev/null
+++ b/tests/data/case.json
@@ -0,0 +1 @@
+{}
"""


def test_diff_splits_by_path_into_solution_and_test_patch():
    split = split_diff(DIFF)
    assert split.source_files == ("pkg/core.py",)
    assert split.test_files == ("tests/test_core.py", "tests/data/case.json")
    assert split.hunks == 4 and not split.has_binary
    assert "compute_the_right_answer" in split.patch and "compute_the_right_answer" not in split.test_patch
    assert runnable_test_files(split.test_patch) == ["tests/test_core.py"]
    assert post_image_blobs(split.patch) == ["2" * 40]


RENAME = """diff --git a/tests/test_old.py b/tests/test_new.py
similarity index 100%
rename from tests/test_old.py
rename to tests/test_new.py
"""


def test_a_submission_the_grader_puts_back_whole_leaves_the_empty_patch_tree():
    split = split_diff(DIFF)
    assert reset_paths(split.test_patch) == (["tests/test_core.py"], ["tests/data/case.json"])
    assert resets_whole(split.test_patch, split.test_patch), "the test patch submitted as the fix is put back whole"
    assert not resets_whole(split.test_patch, split.patch)
    assert not resets_whole(RENAME, RENAME), "a renamed test file's new path is not put back"


def test_test_paths_follow_swe_bench_words():
    assert all(map(is_test_path, ["tests/a.py", "pkg/testing/x.py", "test_x.py", "pkg/x_test.py", "conftest.py",
                                  "e2e/run.py"]))
    assert not any(map(is_test_path, ["pkg/core.py", "contest.py", "pkg/attestation.py"]))


def test_quoted_lines_find_the_fix_in_a_text():
    split = split_diff(DIFF)
    assert quoted_lines("please do def f(): return compute_the_right_answer()", split.patch)
    assert not quoted_lines("f returns the wrong value", split.patch)


PERSIST_FIX = """diff --git a/db.py b/db.py
--- a/db.py
+++ b/db.py
@@ -1,2 +1,4 @@
-def save(data):
+def save(data, persist_empty=False):
+    if not data and not persist_empty:
+        return _write_nothing(data)
"""
PERSIST_TEST = """diff --git a/tests/test_db.py b/tests/test_db.py
--- a/tests/test_db.py
+++ b/tests/test_db.py
@@ -1,1 +1,4 @@
+def test_persist_empty():
+    written = save({}, persist_empty=True)
+    assert written == "{}"
"""
PERSIST_SUBJECT = "Persist empty tables when asked (#12)"


def test_a_hidden_test_calling_an_unstated_new_keyword_is_an_unstated_interface():
    existing = {"save", "data"}
    assert new_interface(PERSIST_FIX, PERSIST_TEST, existing, None) == ["persist_empty"]
    assert unstated_interface("Saving an empty table writes nothing.", PERSIST_FIX, PERSIST_TEST, existing, None) == [
        "persist_empty"]
    assert unstated_interface("save({}, persist_empty=True) writes nothing.", PERSIST_FIX, PERSIST_TEST,
                              existing, None) == []
    assert new_interface(PERSIST_FIX, PERSIST_TEST, existing | {"persist_empty"}, None) == [], "an existing name is known"


WRAP_FIX = """diff --git a/pkg/wrap.py b/pkg/wrap.py
--- a/pkg/wrap.py
+++ b/pkg/wrap.py
@@ -1,2 +1,9 @@
-def wrap(text, width):
+def wrap(text, width, keep_styles=False):
+    \"\"\"Wrap text to a width.
+
+    ANSI escape bytes must not count toward the width budget.
+    \"\"\"
+    budget = width
+    return _split(text, budget, keep_styles)
"""
WRAP_TEST = """diff --git a/tests/test_wrap.py b/tests/test_wrap.py
--- a/tests/test_wrap.py
+++ b/tests/test_wrap.py
@@ -1,1 +1,6 @@
+def test_wrap_keeps_styles():
+    \"\"\"Styled text wraps on its visible width: escape bytes do not count
+    toward the width budget.\"\"\"
+    assert wrap("ab", 1, keep_styles=True) == ["a", "b"]
"""


def test_words_of_docstrings_are_not_names_the_checks_use():
    assert new_interface(WRAP_FIX, WRAP_TEST, {"wrap", "text", "width"}, None) == ["keep_styles"]


def test_a_hunk_starting_inside_a_docstring_is_read_from_the_base_commit(tmp_path):
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_wrap.py").write_text(
        'def test_old():\n    """Wrapping keeps words whole.\n\n    Each word stays on one line.\n'
        '    The width counts\n    visible characters.\n    """\n    assert wrap("a b", 1) == ["a", "b"]\n')
    inside_docstring = """diff --git a/tests/test_wrap.py b/tests/test_wrap.py
--- a/tests/test_wrap.py
+++ b/tests/test_wrap.py
@@ -4,4 +4,6 @@ def test_old():
     The width counts
-    visible characters.
+    visible characters: escape bytes count
+    toward no budget.
     \"\"\"
     assert wrap("a b", 1) == ["a", "b"]
+    assert wrap("a b", 1, keep_styles=True) == ["a", "b"]
"""
    fix = WRAP_FIX.replace("+    budget = width\n", "")
    assert new_interface(fix, inside_docstring, {"wrap", "text", "width"}, tmp_path) == ["keep_styles"]
    assert "budget" in new_interface(WRAP_FIX, inside_docstring, {"wrap", "text", "width"}, None), \
        "without the base commit's file the hunk is read as starting outside the docstring"


def test_statements_that_name_the_fix_are_told_apart_from_symptoms():
    existing = {"save", "data"}

    def problems(text):
        return names_the_fix(text, PERSIST_FIX, PERSIST_TEST, PERSIST_SUBJECT, existing, None)

    assert problems("save({}, persist_empty=True) writes nothing\nThe file stays as it was; I expected '{}'.") == []
    assert "change description" in problems("fix: persist empty tables\nsave skips empty data.")[0]
    assert "change description" in problems("Fixed save for empty data\nIt works now.")[0]
    assert "subject" in problems("Persist empty tables when asked\nsave({}, persist_empty=True) writes nothing.")[0]
    assert "quotes" in problems("save is wrong: if not data and not persist_empty: is the check")[0]
    internal = names_the_fix("Empty data goes through _write_nothing", PERSIST_FIX.replace(
        "+        return _write_nothing(data)", "+        return _write_nothing(data)\n+def _write_nothing(data):"),
        PERSIST_TEST, PERSIST_SUBJECT, existing, None)
    assert "_write_nothing" in internal[0]


WAIT_FIX = '''diff --git a/wait.py b/wait.py
--- a/wait.py
+++ b/wait.py
@@ -1,1 +1,9 @@
+class wait_exception:
+    """Waits what the predicate returns.
+
+    @retry(
+        wait=wait_exception(delay),
+    )
+    def http_get_request(url):
+        response = get(url)
+    """
+    def _next_delay(self, retry_state):
'''
WAIT_TEST = '''diff --git a/tests/test_wait.py b/tests/test_wait.py
--- a/tests/test_wait.py
+++ b/tests/test_wait.py
@@ -1,1 +1,2 @@
+def test_wait_exception():
+    assert wait_exception(lambda e: 1.0)
'''


def test_a_statement_showing_the_new_interface_docstring_does_not_name_the_fix():
    spec = "\n".join(line[1:] for line in WAIT_FIX.splitlines()[4:-1])
    statement = f"wait_exception is missing\n\n```python\n{spec}\n```"
    assert names_the_fix(statement, WAIT_FIX, WAIT_TEST, "Add wait_exception", set(), None) == []
    assert names_the_fix(statement + "\nsee http_get_request", WAIT_FIX, WAIT_TEST, "Add wait_exception", set(),
                         None) == [], "a name of the docstring's example is prose, not the fix's"
    assert "_next_delay" in names_the_fix(statement + "\nsee _next_delay", WAIT_FIX, WAIT_TEST, "Add wait_exception",
                                          set(), None)[0]


def test_failure_sections_are_read_per_test_with_addresses_masked():
    log = ("=================================== FAILURES ===================================\n"
           "_________________________________ test_one _________________________________\n"
           "tests/test_a.py:3: in test_one\n    assert f() == 2\n"
           "E   assert <Obj at 0x7f3a2b1c9d40> == 2\n"
           "______________________________ TestB.test_two[x] ______________________________\n"
           "tests/test_a.py:9: in test_two\n    g()\nE   ValueError: bad\n"
           "=========================== short test summary info ============================\n"
           "FAILED tests/test_a.py::test_one - assert\nFAILED tests/test_a.py::TestB::test_two[x] - ValueError\n"
           "PASSED tests/test_a.py::test_three\n")
    statuses = parse_pytest_log(log)
    sections = failure_sections(log, statuses)
    assert set(sections) == {"tests/test_a.py::test_one", "tests/test_a.py::TestB::test_two[x]"}
    assert "0x…" in sections["tests/test_a.py::test_one"] and "0x7f3a" not in sections["tests/test_a.py::test_one"]
    assert sections["tests/test_a.py::TestB::test_two[x]"].endswith("ValueError: bad")



def test_a_title_too_long_for_more_than_one_underscore_a_side_starts_its_own_section():
    log = ("____________________ TestWait.test_jitter ____________________\n"
           "tests/test_t.py:612: in test_jitter\n    with self.assertWarns(DeprecationWarning):\n"
           "E   AssertionError: DeprecationWarning not triggered\n"
           "_ TestWait.test_wait_exponential_jitter_initial_and_multiplier_raises_when_both_are_given _\n"
           "tests/test_t.py:659: in test_wait_exponential_jitter_initial_and_multiplier_raises_when_both_are_given\n"
           "    tenacity.wait_exponential_jitter(initial=5, multiplier=10)\n"
           "E   TypeError: __init__() got an unexpected keyword argument 'multiplier'\n"
           "_ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _\n"
           "src/t/wait.py:40: in __init__\n    raise TypeError\n"
           "================= short test summary info =================\n"
           "FAILED tests/test_t.py::TestWait::test_jitter\n"
           "FAILED tests/test_t.py::TestWait::test_wait_exponential_jitter_initial_and_multiplier_raises_when_both_"
           "are_given\n")
    statuses = parse_pytest_log(log)
    sections = failure_sections(log, statuses)
    first = sections["tests/test_t.py::TestWait::test_jitter"]
    second = sections["tests/test_t.py::TestWait::test_wait_exponential_jitter_initial_and_multiplier_raises_when_"
                      "both_are_given"]
    assert first.endswith("DeprecationWarning not triggered") and "multiplier" not in first
    assert "unexpected keyword argument 'multiplier'" in second and second.endswith("raise TypeError")


def test_a_parametrised_id_with_spaces_keeps_its_failure_under_the_id_cut_at_the_first_space():
    whole = "tests/test_arguments.py::test_deprecated_help[-USE B INSTEAD-(DEPRECATED: USE B INSTEAD)]"
    test = "tests/test_arguments.py::test_deprecated_help[-USE"
    log = ("_____________ test_deprecated_help[-USE B INSTEAD-(DEPRECATED: USE B INSTEAD)] _____________\n"
           "tests/test_arguments.py:420: in test_deprecated_help\n    assert out == expected\n"
           "E   AssertionError: assert '  (DEPRECATED)' == '(DEPRECATED)'\n"
           "=========================== short test summary info ============================\n"
           f"FAILED {whole} - AssertionError: assert '  (DEPRECATED)' == '(DEPRECATED)'\n"
           "PASSED tests/test_arguments.py::test_deprecated_help[True-(DEPRECATED)]\n"
           "SKIPPED [2] tests/test_arguments.py:10: no terminal\n")
    statuses = parse_pytest_log(log)
    assert statuses == {test: FAILED, "tests/test_arguments.py::test_deprecated_help[True-(DEPRECATED)]": PASSED}
    assert failure_sections(log, statuses)[test].endswith("'  (DEPRECATED)' == '(DEPRECATED)'")


COLLECTION_ERROR_LOG = (
    "==================================== ERRORS ====================================\n"
    "_______________________ ERROR collecting tests/test_x.py _______________________\n"
    "ImportError while importing test module '/tmp/tf-session-8/workspace/repo/tests/test_x.py'.\n"
    "Hint: make sure your test modules/packages have valid Python names.\nTraceback:\n"
    "/usr/lib/python3.11/importlib/__init__.py:126: in import_module\n"
    "    return _bootstrap._gcd_import(name[level:], package, level)\n"
    "tests/test_x.py:1: in <module>\n    from pkg.shell import PowerComplete\n"
    "E   ImportError: cannot import name 'PowerComplete' from 'pkg.shell' "
    "(/tmp/tf-session-8/workspace/repo/src/pkg/shell.py)\n"
    "=========================== short test summary info ============================\n"
    "ERROR tests/test_x.py\n"
    "!!!!!!!!!!!!!!!!!!!! Interrupted: 1 error during collection !!!!!!!!!!!!!!!!!!!!\n")


def test_a_test_file_that_fails_to_collect_shows_its_import_error_for_each_of_its_tests():
    statuses = parse_pytest_log(COLLECTION_ERROR_LOG)
    sections = failure_sections(COLLECTION_ERROR_LOG, statuses)
    assert list(sections) == ["tests/test_x.py"]
    assert "/tmp/tf-session-8" not in sections["tests/test_x.py"], "paths into the session are made relative"
    run = SuiteRun(statuses, 2, 0.2, "", sections)
    shown = error_lines(run.shown_by("tests/test_x.py::test_power_complete[pwsh]"))
    assert shown == "ImportError: cannot import name 'PowerComplete' from 'pkg.shell' (src/pkg/shell.py)", \
        "the import error, without the standard library's frame or the test's own"
    assert SuiteRun({}, 0, 0.1, "").shown_by("tests/test_y.py::test_new") == "missing"


LARGE_TEST_PATCH = '''diff --git a/tests/test_more.py b/tests/test_more.py
--- a/tests/test_more.py
+++ b/tests/test_more.py
@@ -28,2 +28,2 @@ from itertools import (
-from statistics import mean
+from statistics import mean, median
@@ -6646,3 +6646,12 @@ class TestConcurrentTee(TestCase):
+
+
+class TestSubfactorial(TestCase):
+    def test_basic(self):
+        data = """
+1, 0, 1
+"""
+        self.assertEqual(mi.subfactorial(3), 2)
@@ -7000,3 +7009,4 @@ def test_window():
     data = [1, 2]
+    assert mi.window(data) == [1, 2]
@@ -7100,3 +7110,4 @@ class ChunkedTests(TestCase):
     def test_negative(self):
+        self.assertRaises(ValueError, mi.chunked, [1], -1)
'''


def test_large_test_files_run_only_the_tests_the_patch_touches():
    assert held_out_targets(LARGE_TEST_PATCH, {"tests/test_more.py": 7000}) == [
        "tests/test_more.py::TestSubfactorial", "tests/test_more.py::test_window", "tests/test_more.py::ChunkedTests"
    ], "a changed method runs its whole class"
    assert held_out_targets(LARGE_TEST_PATCH, {"tests/test_more.py": 300}) == ["tests/test_more.py"], "small: whole file"
    new_helper = LARGE_TEST_PATCH.replace("+class TestSubfactorial(TestCase):", "+def grow(data):\n+    return data\n"
                                          "+class TestSubfactorial(TestCase):")
    assert held_out_targets(new_helper, {"tests/test_more.py": 7000}) == [
        "tests/test_more.py::TestSubfactorial", "tests/test_more.py::test_window", "tests/test_more.py::ChunkedTests"
    ], "a new helper changes no old test"
    changed_helper = LARGE_TEST_PATCH + "@@ -9000,2 +9010,2 @@\n def grow(data):\n-    return data\n+    return data[:]\n"
    assert held_out_targets(changed_helper, {"tests/test_more.py": 7000}) == ["tests/test_more.py"], "whole file"
