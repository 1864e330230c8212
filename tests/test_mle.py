"""MLE tasks end to end: built from real and generated datasets with baselines run in the sandbox, validated,
and planted defects rejected."""

from __future__ import annotations

import hashlib
import json
from dataclasses import replace

import polars as pl
import pytest
from sklearn.datasets import load_diabetes

from taskforge.builders.base import BuildContext
from taskforge.builders.mle import MleBuilder, leaderboard
from taskforge.graders import scorer_for
from taskforge.graders.mle import metrics as mle_metrics
from taskforge.graders.mle.grading import GradingReport, frame_from_csv, grade
from mle_data import generated_frame, write_dataset
from taskforge.schemas import PlanItem, Quarantined, Task, from_row, to_row
from taskforge.validators.questions import QUESTIONS, parts_of
from taskforge.validators.runner import validate

pytestmark = pytest.mark.docker
DATASETS = {
    "generated_regression": (lambda: generated_frame("regression", rows=300, seed=4), None),
    "generated_binary": (lambda: generated_frame("binary", rows=300, seed=1), None),
    "generated_multiclass": (lambda: generated_frame("multiclass", rows=300, seed=2),
                             {"target": "species", "metric": "log_loss"}),
    "generated_ranking": (lambda: generated_frame("ranking", rows=320, seed=3),
                          {"target": "relevance", "group_column": "query"}),
}
LOWER_IS_BETTER = {"generated_regression", "generated_multiclass"}
SMALL = {"min_test_rows": 0, "min_gap_sd": 0, "search_iterations": 2, "linear_at_or_below_median": False}
"""Options that let the small test datasets through the size, noise and linear rules (tested on real data in
test_mle_process.py and by the refusal below)."""


def _build(folder, quota, **rules):
    item = PlanItem(family="mle", capability="implementation", quota=quota, gap_ids=["gap-m"], priority=1.0)
    options = {"source": str(folder), "sandbox": "docker", **SMALL, **rules}
    return list(MleBuilder().build(item, BuildContext(cycle_id="test-mle", options=options)))


@pytest.fixture(scope="module")
def source(tmp_path_factory, docker_engine):
    folder = tmp_path_factory.mktemp("mle") / "datasets"
    for name, (make, settings) in DATASETS.items():
        write_dataset(make(), folder, name, settings)
    return folder


@pytest.fixture(scope="module")
def tasks(source) -> dict[str, Task]:
    built = _build(source, quota=len(DATASETS))
    assert all(isinstance(t, Task) for t in built), [t for t in built if isinstance(t, Quarantined)]
    return {t.payload["title"].lower().replace(" ", "_"): t for t in built}


def _rejected_by(task: Task, check: str, part: str | None = None) -> list[str]:
    """The reason the check (or that part of its strategy) gives for rejecting the task."""
    decided = validate(task)
    failed = {r.check: r for r in decided.validation if not r.passed}
    assert decided.status == "rejected" and check in failed, decided.reasons
    result = parts_of(failed[check])[part] if part else failed[check]
    assert not result.passed
    return [result.reason]


def _with_files(task: Task, files: dict[str, str] | None = None, **reference) -> Task:
    """A copy of the task with replaced public files or reference fields, checksums recomputed so that only
    the planted defect can fail."""
    files = {**task.payload["files"], **(files or {})}
    checksums = {f"public/{k}": hashlib.sha256(v.encode()).hexdigest() for k, v in files.items()}
    merged = {**task.reference, **reference}
    merged["checksums"] = {"private/answers.csv": hashlib.sha256(merged["answers"].encode()).hexdigest()}
    return task.model_copy(update={"payload": {**task.payload, "files": files, "checksums": checksums},
                                   "reference": merged})


def test_real_and_generated_datasets_become_accepted_tasks(tasks):
    assert set(tasks) == set(DATASETS)
    for name, task in tasks.items():
        decided = validate(task)
        assert decided.status == "accepted", (name, decided.reasons)
        checks = [r.check for r in decided.validation]
        assert checks == list(QUESTIONS)
        strategies = {r.check: r.detail.get("strategy") for r in decided.validation}
        assert strategies["noop"] == ["scorer_noop", "mle_noop"]
        assert strategies["determinism"] == ["grader_determinism", "mle_baseline_rerun"]
        assert strategies["reference"] == ["scorer_reference", "mle_reference"]
        assert strategies["leakage"] == ["mle_leaks", "mle_neighbour_labels"]


def test_reports_have_the_mle_bench_fields_and_thresholds_are_ordered_both_ways(tasks):
    for name, task in tasks.items():
        lower = name in LOWER_IS_BETTER
        assert task.grader["is_lower_better"] is lower and task.payload["is_lower_better"] is lower
        best = grade(task.reference["best_submission"], task.reference, task.grader)
        sample = grade(task.payload["files"]["sample_submission.csv"], task.reference, task.grader)
        assert set(best.to_dict()) == set(GradingReport.__dataclass_fields__)
        assert best.valid_submission and best.gold_medal and best.any_medal and best.above_median
        assert sample.valid_submission and not sample.any_medal and not sample.above_median
        t = task.grader["thresholds"]
        ordered = [t["gold"], t["silver"], t["bronze"], t["median"]]
        assert ordered == sorted(ordered, reverse=not lower), (name, t)
        assert t["gold"] != t["median"]
        scorer = scorer_for(task.grader)
        assert scorer.score(task.reference["best_submission"], task.reference, task.grader) == 1.0
        assert scorer.score(task.payload["files"]["sample_submission.csv"], task.reference, task.grader) == 0.0


def test_leaderboard_holds_fifteen_graded_references_run_in_the_sandbox(tasks):
    for task in tasks.values():
        board = task.payload["leaderboard"]
        assert len(board) == 15 and [e["rank"] for e in board] == list(range(1, 16))
        assert {e["model"] for e in board} == {"constant", "shallow_tree", "linear", "knn", "linear_tuned",
                                               "gradient_boosting", "random_forest", "extra_trees", "knn_tuned",
                                               "random_forest_tuned", "gradient_boosting_tuned", "stacking"}
        noise = task.payload["noise"]
        assert noise["bootstrap_sd"] > 0 and noise["entry"] == board[0]["entry"] and noise["resamples"] == 200
        assert board[0]["model"] != "constant" and task.reference["baseline_errors"] == {}
        assert task.reference["baseline_backend"] in ("docker", "process")
        assert task.reference["best_entry"] == board[0]["entry"]


def test_task_rows_roundtrip_and_carry_no_host_paths(tasks, source):
    for task in tasks.values():
        row = to_row(task)
        assert from_row(row, Task) == task
        text = json.dumps(row, default=str)
        assert str(source.parent) not in text and "/tmp" not in text
        assert task.payload["storage"] == "inline" and task.payload["split"]["bytes"] < 2 << 20
        assert task.grader["target_column"] not in frame_from_csv(task.payload["files"]["test.csv"]).columns


def test_the_same_dataset_builds_the_same_task(tmp_path, tasks):
    folder = tmp_path / "again"
    make, settings = DATASETS["generated_binary"]
    write_dataset(make(), folder, "generated_binary", settings)
    (again,) = _build(folder, quota=1)
    first = tasks["generated_binary"]
    assert again.task_id == first.task_id and again.payload["leaderboard"] == first.payload["leaderboard"]


def test_datasets_without_labels_are_quarantined_and_the_batch_goes_on(tmp_path, docker_engine):
    folder = tmp_path / "bad"
    write_dataset(generated_frame("binary").drop("label"), folder, "unlabelled")
    write_dataset(generated_frame("binary").with_columns(pl.lit(None, pl.Int64).alias("label")), folder, "empty")
    write_dataset(generated_frame("binary").with_columns(pl.lit(0).alias("label")), folder, "one_class")
    built = _build(folder, quota=3)
    assert all(isinstance(q, Quarantined) and q.stage == "build" for q in built)
    reasons = {q.source: q.reason for q in built}
    assert set(reasons) == {"bad/empty.csv", "bad/one_class.csv", "bad/unlabelled.csv"}
    assert "bad/unlabelled.csv: dataset without labels" in reasons["bad/unlabelled.csv"]
    assert "label column 'label' is empty" in reasons["bad/empty.csv"]
    assert "single class" in reasons["bad/one_class.csv"]


def test_a_sandbox_without_the_baseline_packages_is_quarantined_as_infrastructure(tmp_path, docker_engine,
                                                                                 monkeypatch):
    make, settings = DATASETS["generated_binary"]
    write_dataset(make(), tmp_path / "plain", "generated_binary", settings)
    monkeypatch.setattr(leaderboard, "BASELINE_ENVIRONMENT", None)
    (quarantined,) = _build(tmp_path / "plain", quota=1)
    assert isinstance(quarantined, Quarantined) and quarantined.infrastructure
    assert quarantined.error_type == "BaselineEnvironmentError"
    assert "missing package for the baselines: No module named 'numpy'" in quarantined.reason


def test_planted_label_in_the_public_test_file_is_rejected_by_leakage(tasks):
    task = tasks["generated_binary"]
    test = frame_from_csv(task.payload["files"]["test.csv"])
    answers = frame_from_csv(task.reference["answers"])
    leaked = test.join(answers, on="id", how="left", maintain_order="left").write_csv()
    (reason,) = _rejected_by(_with_files(task, {"test.csv": leaked}), "leakage")
    assert "the public test.csv holds the label column 'label'" in reason


def _relabelled_ids(text: str, labels: dict[str, str]) -> str:
    """A file with every id replaced by one whose parity is the row's label."""
    frame = frame_from_csv(text)
    return frame.with_columns(pl.col("id").map_elements(lambda i: str(2 * int(i) + int(labels[i])),
                                                        return_dtype=pl.Utf8)).write_csv()


def test_planted_id_that_encodes_the_label_is_rejected_by_leakage(tasks):
    task = tasks["generated_binary"]
    train = frame_from_csv(task.payload["files"]["train.csv"])
    answers = frame_from_csv(task.reference["answers"])
    labels = dict(zip(train["id"], train["label"])) | dict(zip(answers["id"], answers["label"]))
    files = {name: _relabelled_ids(task.payload["files"][name], labels)
             for name in ("train.csv", "test.csv", "sample_submission.csv")}
    planted = _with_files(task, files, answers=_relabelled_ids(task.reference["answers"], labels),
                          best_submission=_relabelled_ids(task.reference["best_submission"], labels))
    (reason,) = _rejected_by(planted, "leakage")
    assert "the labels are recoverable from the id: the single public feature 'id mod 2' scores 1" in reason


def test_planted_feature_that_copies_the_label_is_rejected_by_leakage(tasks):
    task = tasks["generated_multiclass"]
    answers = frame_from_csv(task.reference["answers"])
    code = {"ash": "A1", "birch": "B2", "cedar": "C3"}
    train = frame_from_csv(task.payload["files"]["train.csv"])
    test = frame_from_csv(task.payload["files"]["test.csv"]).join(answers, on="id", how="left", maintain_order="left")
    files = {"train.csv": train.with_columns(pl.col("species").replace(code).alias("grade")).write_csv(),
             "test.csv": test.with_columns(pl.col("species").replace(code).alias("grade")).drop("species").write_csv()}
    (reason,) = _rejected_by(_with_files(task, files), "leakage")
    assert "single public feature 'grade'" in reason


def test_planted_sample_submission_holding_the_answers_is_rejected(tasks):
    task = tasks["generated_regression"]
    (reason,) = _rejected_by(_with_files(task, {"sample_submission.csv": task.reference["answers"]}), "leakage")
    assert "sample_submission.csv column 'target' reproduces the private answers" in reason


def test_planted_sample_submission_that_scores_a_medal_is_rejected_by_noop(tasks):
    for name in ("generated_binary", "generated_regression"):
        task = tasks[name]
        medal = _with_files(task, {"sample_submission.csv": task.reference["best_submission"]})
        (reason,) = _rejected_by(medal, "noop", "mle_noop")
        assert "the sample submission wins a medal" in reason


def test_planted_wrong_expected_score_and_tampered_file_are_rejected_by_reference(tasks):
    task = tasks["generated_binary"]
    (reason,) = _rejected_by(_with_files(task, best_score=task.reference["best_score"] + 0.01), "reference", "mle_reference")
    assert "regrades to" in reason
    tampered = task.model_copy(update={"payload": {**task.payload, "files": {
        **task.payload["files"], "train.csv": task.payload["files"]["train.csv"] + "\n"}}})
    (reason,) = _rejected_by(tampered, "reference", "mle_reference")
    assert "public/train.csv: content does not match its checksum" in reason


def test_planted_leaderboard_without_spread_is_rejected_by_reference(tasks):
    task = tasks["generated_ranking"]
    flat = [{**entry, "score": task.reference["best_score"]} for entry in task.payload["leaderboard"]]
    best = task.reference["best_score"]
    thresholds = {"gold": best, "silver": best, "bronze": best, "median": best}
    planted = task.model_copy(update={"payload": {**task.payload, "leaderboard": flat, "thresholds": thresholds},
                                      "grader": {**task.grader, "thresholds": thresholds}})
    (reason,) = _rejected_by(planted, "reference", "mle_reference")
    assert "when run again, the leaderboard records" in reason


def test_planted_non_deterministic_metric_is_rejected_by_grader_determinism(tasks, monkeypatch):
    task = tasks["generated_binary"]
    metric = mle_metrics.METRICS["roc_auc"]
    calls = iter(range(1000))
    jittery = replace(metric, compute=lambda truth, predicted: metric.compute(truth, predicted) + next(calls) * 1e-3)
    monkeypatch.setitem(mle_metrics.METRICS, "roc_auc", jittery)
    (reason,) = _rejected_by(task, "determinism")
    assert "gets different reports" in reason


def test_a_dataset_a_default_linear_model_solves_is_refused(tmp_path, docker_engine):
    write_dataset(pl.from_pandas(load_diabetes(as_frame=True).frame), tmp_path / "linear", "diabetes")
    (refused,) = _build(tmp_path / "linear", 1, linear_at_or_below_median=True)
    assert isinstance(refused, Quarantined) and refused.source == "linear/diabetes.csv"
    assert "a default linear model scores" in refused.reason and "beyond the median threshold" in refused.reason
