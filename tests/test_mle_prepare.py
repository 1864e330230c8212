"""MLE inputs and preparation: problem inference and its checks, the seeded split and its guarantees."""

from __future__ import annotations

import hashlib
import json

import numpy as np
import polars as pl
import pytest

from taskforge.builders.mle.inference import define_problem
from taskforge.builders.mle.prepare import INLINE_BUDGET_BYTES, prepare
from taskforge.builders.mle.source import dataset_paths, dataset_spec, load_table
from mle_data import generated_frame, write_dataset
from taskforge.schemas import InputError


def _problem(tmp_path, frame, name="data", settings=None):
    path = write_dataset(frame, tmp_path / "src", name, settings)
    spec = dataset_spec(path, tmp_path / "src")
    return spec, *define_problem(load_table(spec), spec)


@pytest.mark.parametrize("kind, settings, expected", [
    ("binary", None, ("label", "classification", "roc_auc", ("0", "1"))),
    ("multiclass", {"target": "species"}, ("species", "classification", "accuracy", ("ash", "birch", "cedar"))),
    ("regression", None, ("target", "regression", "rmse", ())),
    ("ranking", {"target": "relevance", "group_column": "query"}, ("relevance", "ranking", "ndcg@10", ())),
])
def test_target_task_type_and_metric_are_inferred(tmp_path, kind, settings, expected):
    _, frame, problem = _problem(tmp_path, generated_frame(kind), settings=settings)
    assert (problem.target, problem.task_type, problem.metric, problem.classes) == expected
    assert problem.target not in problem.features and problem.group_column not in problem.features


def test_integer_labels_with_few_levels_are_classes_and_source_ids_are_dropped(tmp_path):
    frame = generated_frame("binary").with_row_index("id")
    _, cleaned, problem = _problem(tmp_path, frame.with_columns(pl.col("label").cast(pl.Float64)))
    assert problem.classes == ("0", "1") and set(cleaned["label"]) == {"0", "1"}
    assert problem.dropped_columns == ("id",) and "id" not in cleaned.columns


@pytest.mark.parametrize("frame, settings, message", [
    (generated_frame("binary").rename({"label": "quality"}), None, "dataset without labels: no column is named"),
    (generated_frame("binary").with_columns(pl.lit(None, pl.Int64).alias("label")), None,
     "dataset without labels: the label column 'label' is empty"),
    (generated_frame("binary").with_columns(pl.lit(1).alias("label")), None, "single class"),
    (generated_frame("binary"), {"target": "nope"}, "target column 'nope' is not among the columns"),
    (generated_frame("binary"), {"metric": "rmse"}, "metric 'rmse' does not score classification tasks"),
    (generated_frame("multiclass"), {"target": "species", "metric": "roc_auc"}, "needs two classes"),
    (generated_frame("ranking"), {"target": "relevance", "task_type": "ranking"}, "needs its 'group_column'"),
    (generated_frame("binary", rows=30), None, "only 30 labelled rows"),
])
def test_unusable_datasets_are_refused_with_the_file_and_the_reason(tmp_path, frame, settings, message):
    with pytest.raises(InputError, match=message) as raised:
        _problem(tmp_path, frame, "bad", settings)
    assert raised.value.source == "src/bad.csv"


def test_settings_files_are_checked_and_folders_list_their_tables(tmp_path):
    write_dataset(generated_frame("binary"), tmp_path / "src", "b")
    path = write_dataset(generated_frame("binary"), tmp_path / "src", "a", {"targte": "label"})
    assert [p.name for p in dataset_paths(tmp_path / "src")] == ["a.csv", "b.csv"]
    with pytest.raises(InputError, match="unknown settings \\['targte'\\]"):
        dataset_spec(path, tmp_path / "src")
    (tmp_path / "src" / "a.json").write_text("{not json")
    with pytest.raises(InputError, match="src/a.json: settings are not valid JSON"):
        dataset_spec(path, tmp_path / "src")
    with pytest.raises(InputError, match="no .csv or .parquet dataset"):
        dataset_paths(tmp_path)


def test_parquet_and_csv_load_the_same_table(tmp_path):
    frame = generated_frame("regression")
    frame.write_parquet(tmp_path / "r.parquet")
    write_dataset(frame, tmp_path, "r")
    loaded = [load_table(dataset_spec(tmp_path / f"r.{s}", tmp_path)) for s in ("parquet", "csv")]
    assert loaded[0].equals(loaded[1])


@pytest.mark.parametrize("kind, settings", [("binary", None), ("multiclass", {"target": "species"}),
                                            ("ranking", {"target": "relevance", "group_column": "query"})])
def test_split_is_complete_disjoint_consistent_and_checksummed(tmp_path, kind, settings):
    _, frame, problem = _problem(tmp_path, generated_frame(kind), settings=settings)
    competition = prepare(frame, problem, seed=11, name="demo")
    read = {name: pl.read_csv(text.encode(), infer_schema=False) for name, text in competition.public.items()}
    answers = pl.read_csv(competition.answers.encode(), infer_schema=False)
    train, test, sample = read["train.csv"], read["test.csv"], read["sample_submission.csv"]
    ids = competition.id_column
    assert train.height + test.height == frame.height
    assert set(train[ids]).isdisjoint(set(test[ids])) and train[ids].is_unique().all() and test[ids].is_unique().all()
    assert test.columns == [c for c in train.columns if c != problem.target] and problem.target in train.columns
    assert sample[ids].to_list() == test[ids].to_list() == answers[ids].to_list()
    for name, text in competition.public.items():
        assert competition.checksums[f"public/{name}"] == hashlib.sha256(text.encode()).hexdigest()
    assert competition.checksums["private/answers.csv"] == hashlib.sha256(competition.answers.encode()).hexdigest()
    if problem.group_column:
        assert set(train["query"]).isdisjoint(set(test["query"]))
    else:
        shares = [part[problem.target].value_counts(normalize=True).sort(problem.target)["proportion"].to_numpy()
                  for part in (train, answers)]
        assert np.abs(shares[0] - shares[1]).max() < 0.1


def test_same_seed_same_competition_other_seed_other_split(tmp_path):
    _, frame, problem = _problem(tmp_path, generated_frame("binary"))
    first, again, other = (prepare(frame, problem, seed, "demo") for seed in (3, 3, 4))
    assert first == again
    assert first.answers != other.answers and first.competition_id != other.competition_id


def test_large_dataset_is_subsampled_to_the_inline_budget(tmp_path):
    rng = np.random.default_rng(0)
    big = pl.DataFrame({f"f{k}": rng.normal(size=24000) for k in range(8)}).with_columns(
        pl.Series("label", rng.integers(0, 2, 24000)))
    _, frame, problem = _problem(tmp_path, big)
    competition = prepare(frame, problem, seed=1, name="big")
    assert competition.split["subsampled"] and competition.split["source_rows"] == 24000
    assert competition.split["bytes"] <= INLINE_BUDGET_BYTES
    assert 0 < competition.split["rows"] < 24000
    assert json.dumps(competition.split)
