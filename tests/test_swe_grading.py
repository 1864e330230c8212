"""SWE grading as pure functions: pytest logs to statuses, harvest of FAIL_TO_PASS / PASS_TO_PASS, verdicts."""

from __future__ import annotations

from taskforge.graders.swe.grading import FAILED, PASSED, SKIPPED, XFAIL, grade, harvest, parse_pytest_log, unapplied
from taskforge.graders.swe.patch import is_test_path, post_image_blobs, quoted_lines, split_diff, runnable_test_files

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


def test_test_paths_follow_swe_bench_words():
    assert all(map(is_test_path, ["tests/a.py", "pkg/testing/x.py", "test_x.py", "pkg/x_test.py", "conftest.py",
                                  "e2e/run.py"]))
    assert not any(map(is_test_path, ["pkg/core.py", "contest.py", "pkg/attestation.py"]))


def test_quoted_lines_find_the_fix_in_a_text():
    split = split_diff(DIFF)
    assert quoted_lines("please do def f(): return compute_the_right_answer()", split.patch)
    assert not quoted_lines("f returns the wrong value", split.patch)
