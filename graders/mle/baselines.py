"""Baseline solutions of an MLE competition; runs inside the sandbox, on the public files only.

This file is copied into the sandbox workspace and run as a script
(`python3 baselines.py plan.json`). It imports nothing from taskforge: only
numpy, pandas and scikit-learn, which the sandbox image provides (exit code 3
when they are missing). It reads
`public/train.csv` and `public/test.csv`, fits every entry of the plan (a model
family on a seeded share of the training rows), and writes one submission per
entry to `submissions/<entry>.csv`, plus `submissions/runs.json` with each
entry's status and fit time.
"""

from __future__ import annotations

import json
import sys
import time
import traceback
from pathlib import Path

try:
    import numpy as np
    import pandas as pd
    from sklearn.compose import ColumnTransformer
    from sklearn.ensemble import (HistGradientBoostingClassifier, HistGradientBoostingRegressor,
                                  RandomForestClassifier, RandomForestRegressor)
    from sklearn.impute import SimpleImputer
    from sklearn.linear_model import LogisticRegression, Ridge
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder, StandardScaler
    from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor
except ImportError as missing:  # the environment, not the data, is at fault: say so with a code of its own
    print(f"missing package for the baselines: {missing}", file=sys.stderr)
    sys.exit(3)

MAX_CATEGORY_SHARE = 0.5
"""A text column with more distinct values than this share of the rows is free text; baselines skip it."""


def feature_kinds(train: pd.DataFrame, features: list[str]) -> tuple[list[str], list[str]]:
    """Numeric and categorical feature columns (free-text columns are left out)."""
    numeric, categorical = [], []
    for column in features:
        if pd.api.types.is_numeric_dtype(train[column]):
            numeric.append(column)
        elif train[column].nunique() <= MAX_CATEGORY_SHARE * len(train):
            categorical.append(column)
    return numeric, categorical


def preprocessor(numeric: list[str], categorical: list[str], scale: bool) -> ColumnTransformer:
    """Median-imputed (and for linear models standardised) numbers, one-hot categories."""
    number_steps = [SimpleImputer(strategy="median")] + ([StandardScaler()] if scale else [])
    parts = [("numbers", make_pipeline(*number_steps), numeric)]
    if categorical:
        parts.append(("categories", make_pipeline(
            SimpleImputer(strategy="most_frequent"),
            OneHotEncoder(handle_unknown="ignore", max_categories=20, sparse_output=False)), categorical))
    return ColumnTransformer(parts)


def estimator(model: str, classify: bool, seed: int):
    """The scikit-learn estimator of a model family."""
    if model == "shallow_tree":
        return (DecisionTreeClassifier if classify else DecisionTreeRegressor)(max_depth=2, random_state=seed)
    if model == "linear":
        return LogisticRegression(max_iter=2000) if classify else Ridge(alpha=1.0)
    if model == "random_forest":
        family = RandomForestClassifier if classify else RandomForestRegressor
        return family(n_estimators=60, min_samples_leaf=2, random_state=seed, n_jobs=1)
    if model == "gradient_boosting":
        family = HistGradientBoostingClassifier if classify else HistGradientBoostingRegressor
        return family(max_iter=150, learning_rate=0.08, random_state=seed)
    raise ValueError(f"unknown model family {model!r}")


def training_rows(train: pd.DataFrame, plan: dict, fraction: float, rng: np.random.Generator) -> pd.DataFrame:
    """A seeded share of the training rows: per class for classification (two rows at least), by group for ranking."""
    if fraction >= 1.0:
        return train
    target, group = plan["target_column"], plan.get("group_column")
    if plan["task_type"] == "classification":
        picks = [rows.sample(n=min(len(rows), max(2, int(round(fraction * len(rows))))),
                             random_state=int(rng.integers(2**31)))
                 for _, rows in train.groupby(target, sort=True)]
        return pd.concat(picks).sort_index()
    if group:
        groups = train[group].unique()
        chosen = rng.choice(groups, size=max(2, int(round(fraction * len(groups)))), replace=False)
        return train[train[group].isin(chosen)]
    return train.sample(n=max(10, int(round(fraction * len(train)))), random_state=int(rng.integers(2**31)))


def constant_predictions(train: pd.DataFrame, plan: dict, n: int) -> np.ndarray:
    """The constant baseline: majority class, class priors, the mean (the median for MAE), or one shared score."""
    target = train[plan["target_column"]]
    if plan["prediction"] == "label":
        return np.full(n, target.astype(str).value_counts().sort_index().idxmax(), dtype=object)
    if plan["prediction"] == "probability":
        shares = target.astype(str).value_counts(normalize=True)
        priors = np.array([shares.get(label, 0.0) for label in plan["classes"]])
        return np.tile(priors[-1:] if len(plan["classes"]) == 2 else priors, (n, 1))
    if plan["task_type"] == "ranking":
        return np.zeros(n)
    return np.full(n, target.median() if plan["metric"] == "mae" else target.mean())


def model_predictions(train: pd.DataFrame, test: pd.DataFrame, plan: dict, model: str) -> np.ndarray:
    """Fit one model family on the given training rows and predict the test rows."""
    classify = plan["task_type"] == "classification"
    numeric, categorical = feature_kinds(train, plan["features"])
    pipeline = make_pipeline(preprocessor(numeric, categorical, scale=model == "linear"),
                             estimator(model, classify, plan["seed"]))
    y = train[plan["target_column"]].astype(str) if classify else train[plan["target_column"]].astype(float)
    pipeline.fit(train[numeric + categorical], y)
    features = test[numeric + categorical]
    if plan["prediction"] == "label":
        return pipeline.predict(features).astype(object)
    if plan["prediction"] == "probability":
        fitted = list(pipeline.classes_)
        probabilities = pipeline.predict_proba(features)
        full = np.column_stack([probabilities[:, fitted.index(label)] if label in fitted else np.zeros(len(test))
                                for label in plan["classes"]])
        return full[:, -1:] if len(plan["classes"]) == 2 else full
    return pipeline.predict(features)


def write_submission(path: Path, test: pd.DataFrame, plan: dict, predictions: np.ndarray) -> None:
    """A submission CSV in the sample submission's columns."""
    frame = pd.DataFrame({plan["id_column"]: test[plan["id_column"]].to_numpy()})
    values = predictions.reshape(len(test), -1) if predictions.dtype != object else predictions[:, None]
    for k, column in enumerate(plan["prediction_columns"]):
        column_values = values[:, k]
        frame[column] = column_values if predictions.dtype == object else np.round(column_values.astype(float), 6)
    frame.to_csv(path, index=False)


def main(plan_path: str) -> int:
    """Run every entry of the plan; a failing entry is recorded and the others still run."""
    plan = json.loads(Path(plan_path).read_text())
    read = {"dtype": {plan["target_column"]: str}} if plan["task_type"] == "classification" else {}
    train = pd.read_csv("public/train.csv", keep_default_na=True, **read)
    test = pd.read_csv("public/test.csv", keep_default_na=True)
    out = Path("submissions")
    out.mkdir(exist_ok=True)
    runs = {}
    for entry in plan["entries"]:
        rng = np.random.default_rng([plan["seed"], int(entry["fraction"] * 1000)])
        started = time.perf_counter()
        try:
            rows = training_rows(train, plan, entry["fraction"], rng)
            if entry["model"] == "constant":
                predictions = constant_predictions(rows, plan, len(test))
            else:
                predictions = model_predictions(rows, test, plan, entry["model"])
            write_submission(out / f"{entry['name']}.csv", test, plan, predictions)
            runs[entry["name"]] = {"ok": True, "rows": len(rows), "fit_s": round(time.perf_counter() - started, 4)}
        except Exception as exc:  # one failing baseline must not stop the others
            runs[entry["name"]] = {"ok": False, "error": f"{type(exc).__name__}: {exc}",
                                   "trace": traceback.format_exc(limit=3)}
    (out / "runs.json").write_text(json.dumps(runs, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
