"""The workflow grader as pure functions and as the program run on folders: deterministic, in [0, 1], never raising."""

from __future__ import annotations

import json

import pytest

from taskforge.graders import scorer_for
from taskforge.graders.workflow.deliverables import grade, main, read_tree, write_tree

CSV_SPEC = {"path": "outputs/t.csv", "format": "csv", "key": ["id"], "weight": 2,
            "columns": {"name": {"type": "text"}, "amount": {"type": "number", "abs": 0.01}}}
JSON_SPEC = {"path": "outputs/s.json", "format": "json", "weight": 1,
             "fields": {"total": {"type": "number", "abs": 0.01}, "ips": {"type": "set"}, "top": {"type": "list"}, "a.b": {"type": "text"}}}
TEXT_SPEC = {"path": "outputs/r.txt", "format": "text"}
REFERENCE = {
    "outputs/t.csv": "id,name,amount\n1,Ann,10.00\n2,Bob,20.50\n3,Cy,0.00\n",
    "outputs/s.json": json.dumps({"total": 30.5, "ips": ["a", "b"], "top": ["x", "y"], "a": {"b": "ok"}}),
    "outputs/r.txt": "line one\nline two\nline three\n",
}
SPECS = [CSV_SPEC, JSON_SPEC, TEXT_SPEC]


def test_reference_scores_one_and_nothing_scores_zero():
    assert grade(REFERENCE, REFERENCE, SPECS)["score"] == 1.0
    result = grade({}, REFERENCE, SPECS)
    assert result["score"] == 0.0 and all(c["error"] == "missing" for c in result["components"].values())


def test_csv_rows_match_by_key_with_tolerance_in_any_order():
    shuffled = "amount,id,name\n20.505,2,Bob\n0,3,Cy\n10,1,Ann\n"
    assert grade({**REFERENCE, "outputs/t.csv": shuffled}, REFERENCE, SPECS)["score"] == 1.0
    wrong = grade({**REFERENCE, "outputs/t.csv": "id,name,amount\n1,Ann,10.00\n2,Bob,20.60\n3,Cy,0\n"}, REFERENCE, [CSV_SPEC])
    assert wrong["score"] == pytest.approx(5 / 6, abs=1e-6) and wrong["components"]["outputs/t.csv"]["columns"]["amount"] < 1


def test_extra_and_missing_rows_and_columns_cost_score():
    extra = REFERENCE["outputs/t.csv"] + "4,Dee,1.00\n"
    missing_column = "id,name\n1,Ann\n2,Bob\n3,Cy\n"
    assert grade({"outputs/t.csv": extra}, REFERENCE, [CSV_SPEC])["score"] == 0.75
    result = grade({"outputs/t.csv": missing_column}, REFERENCE, [CSV_SPEC])
    assert result["score"] == 0.5 and result["components"]["outputs/t.csv"]["missing_columns"] == ["amount"]


def test_keys_match_rows_but_earn_nothing():
    keys_only = grade({"outputs/t.csv": "id,name,amount\n1,,\n2,,\n3,,\n"}, REFERENCE, [CSV_SPEC])
    assert keys_only["score"] == 0.0 and keys_only["components"]["outputs/t.csv"]["rows_matched"] == 3
    one_row_missing = grade({"outputs/t.csv": "id,name,amount\n1,Ann,10.00\n2,Bob,20.50\n"}, REFERENCE, [CSV_SPEC])
    assert one_row_missing["score"] == pytest.approx(2 / 3)
    no_key = grade({"outputs/t.csv": "name,amount\nAnn,10.00\nBob,20.50\nCy,0.00\n"}, REFERENCE, [CSV_SPEC])
    assert no_key["score"] == 0.0 and no_key["components"]["outputs/t.csv"]["missing_columns"] == ["id"]


def test_ordered_csv_compares_rows_by_position():
    spec = {**CSV_SPEC, "ordered": True}
    reordered = "id,name,amount\n2,Bob,20.50\n1,Ann,10.00\n3,Cy,0.00\n"
    assert grade({"outputs/t.csv": reordered}, REFERENCE, [spec])["score"] == pytest.approx(1 / 3)


def test_json_fields_sets_lists_and_broken_json():
    submitted = json.dumps({"total": 30.504, "ips": ["b", "c"], "top": ["y", "x"], "a": {"b": "ok"}})
    result = grade({"outputs/s.json": submitted}, REFERENCE, [JSON_SPEC])["components"]["outputs/s.json"]
    assert result["fields"] == {"total": 1.0, "ips": pytest.approx(1 / 3, abs=1e-6), "top": 0.0, "a.b": 1.0}
    assert grade({"outputs/s.json": "{not json"}, REFERENCE, [JSON_SPEC])["score"] == 0.0


def test_text_lines_in_order():
    assert grade({"outputs/r.txt": "line one\nline two  \nline three\n\n"}, REFERENCE, [TEXT_SPEC])["score"] == 1.0
    assert grade({"outputs/r.txt": "line one\nline three\n"}, REFERENCE, [TEXT_SPEC])["score"] == pytest.approx(2 / 3)


def test_empty_reference_table_is_matched_by_an_empty_table_with_the_columns():
    empty = {"outputs/t.csv": "id,name,amount\n"}
    assert grade(empty, empty, [CSV_SPEC])["score"] == 1.0
    assert grade({"outputs/t.csv": ""}, empty, [CSV_SPEC])["score"] == 0.0


def test_scorer_submission_is_a_json_mapping_of_files():
    grader = {"scorer": "workflow.deliverables", "deliverables": SPECS}
    reference = {"deliverables": REFERENCE}
    scorer = scorer_for(grader)
    assert scorer.score(scorer.reference_submission(reference, grader), reference, grader) == 1.0
    assert [scorer.score(s, reference, grader) for s in scorer.noop_submissions(grader)] == [0.0, 0.0]
    assert scorer.score("[1, 2]", reference, grader) == 0.0 and scorer.score("not json", reference, grader) == 0.0


def test_program_grades_folders_and_writes_one_result_per_submission(tmp_path):
    write_tree(str(tmp_path / "reference"), REFERENCE)
    write_tree(str(tmp_path / "good"), REFERENCE)
    write_tree(str(tmp_path / "half"), {"outputs/t.csv": REFERENCE["outputs/t.csv"]})
    (tmp_path / "spec.json").write_text(json.dumps({"deliverables": SPECS}))
    out = tmp_path / "result.json"
    assert main([str(tmp_path / "spec.json"), str(tmp_path / "reference"), str(out),
                 str(tmp_path / "good"), str(tmp_path / "half"), str(tmp_path / "absent")]) == 0
    results = json.loads(out.read_text())
    assert results["good"]["score"] == 1.0 and results["half"]["score"] == 0.5 and results["absent"]["score"] == 0.0
    assert read_tree(str(tmp_path / "good")) == REFERENCE


def test_write_tree_refuses_paths_leaving_the_folder(tmp_path):
    with pytest.raises(ValueError, match="leaves"):
        write_tree(str(tmp_path), {"../escape.txt": "x"})
