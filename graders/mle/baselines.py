"""Reference solutions of an MLE competition (the leaderboard's teams); runs inside the sandbox, on the public
files only.

This file is copied into the sandbox workspace and run as a script
(`python3 baselines.py plan.json`). It imports nothing from taskforge: only
numpy, pandas and scikit-learn, which the sandbox image provides (exit code 3
when they are missing). It reads `public/train.csv` and `public/test.csv`,
fits every entry of the plan and writes one submission per entry to
`submissions/<entry>.csv`, plus `submissions/runs.json` with each entry's
status, fit time and the hyperparameters its search chose.

The entries span what competent teams submit: a constant, a shallow tree,
default linear and neighbours models, default tree ensembles, a linear model on spline features with tuned
regularisation, a tuned k-nearest-neighbours model, gradient-boosted trees and a
random forest tuned by a randomised cross-validated search, and a stack of the
tuned models. The default entries read the columns as they are; the others (`ENGINEERED`) read them with the
features a competent team derives first (`engineered`): a time column parsed into calendar fields (its trend
orders the searches' folds but is no feature: no tree can extend it past the training period), and each moment's
context (the mean of every numeric feature that varies within a moment over the rows of that moment and of the
moment before, and the number of rows of the moment), from the public features of train and test together, never from
a label. Searches are seeded and their size comes from the plan
(`search_iterations`, `cv_folds`, `search_rows`: a search runs on a seeded
subsample of at most that many rows, the chosen model is refitted on all of
them), so a rerun gives the same submissions. A plan without a seed (`seed`
null: a split recorded without its seed) runs unseeded, as such a task was
built, and its reruns differ.
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
    from sklearn.base import clone
    from sklearn.compose import ColumnTransformer
    from sklearn.ensemble import (ExtraTreesClassifier, ExtraTreesRegressor, HistGradientBoostingClassifier,
                                  HistGradientBoostingRegressor, RandomForestClassifier, RandomForestRegressor,
                                  StackingClassifier, StackingRegressor)
    from sklearn.impute import SimpleImputer
    from sklearn.linear_model import LogisticRegression, Ridge
    from sklearn.model_selection import GridSearchCV, KFold, RandomizedSearchCV, StratifiedKFold
    from sklearn.neighbors import KNeighborsClassifier, KNeighborsRegressor
    from sklearn.pipeline import Pipeline, make_pipeline
    from sklearn.preprocessing import OneHotEncoder, SplineTransformer, StandardScaler
    from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor
except ImportError as missing:  # the environment, not the data, is at fault: say so with a code of its own
    print(f"missing package for the baselines: {missing}", file=sys.stderr)
    sys.exit(3)

MAX_CATEGORY_SHARE = 0.5
"""A text column with more distinct values than this share of the rows is free text; baselines skip it."""
SCORING = {"accuracy": "accuracy", "f1_macro": "f1_macro", "roc_auc": "roc_auc", "log_loss": "neg_log_loss",
           "rmse": "neg_root_mean_squared_error", "mae": "neg_mean_absolute_error"}
"""The cross-validation scorer of each competition metric (ranking tasks are tuned on squared error)."""
STACKED = ("gradient_boosting_tuned", "random_forest_tuned", "extra_trees", "linear_tuned")
"""The models a stack is made of, fitted on all the training rows before it (a stack reuses their settings): a
plan's stack runs after every other entry, whatever the order the plan lists them in."""


ENGINEERED = frozenset({"linear_tuned", "extra_trees", "random_forest_tuned", "gradient_boosting_tuned", "stacking"})
"""The entries that read the engineered features (a stack's members all do; neighbours do not: a test
period's calendar fields, a later year, would put every test row far from the training rows)."""


def _moments(values: pd.Series) -> tuple[pd.Series, dict[str, pd.Series]]:
    """A time column as sortable numbers, and the generic features it gives: the trend (days, or units, since the
    first moment) and, for dates, the year, month, day of the year, weekday and hour."""
    if pd.api.types.is_numeric_dtype(values):
        numbers = values.astype(float)
        return numbers, {"trend": numbers - numbers.min()}
    stamps = pd.to_datetime(values, errors="coerce", utc=True)
    numbers = (stamps - stamps.min()).dt.total_seconds() / 86400.0
    calendar = {"trend": numbers, "year": stamps.dt.year, "month": stamps.dt.month,
                "day_of_year": stamps.dt.day_of_year, "weekday": stamps.dt.day_of_week}
    if stamps.dt.hour.nunique() > 1:
        calendar["hour"] = stamps.dt.hour
    return numbers, calendar


def engineered(train: pd.DataFrame, test: pd.DataFrame, plan: dict) -> tuple[pd.DataFrame, pd.DataFrame, list[str]]:
    """Train and test with the derived features, and the feature list: the time column replaced by its calendar
    fields (its trend is kept in the frames to order the searches' folds, not listed as a feature: a tree cannot
    extend it past the training period, and the tuned forests and boosting did worse with it), and each moment's
    context (per numeric feature that varies within a moment, its mean over the moment's rows and over the previous
    moment's; the moment's row count). Reads the public features of both files, never a label; a plan
    without a time column keeps its features."""
    column = plan.get("time_column")
    if not column or column not in plan["features"]:
        return train, test, plan["features"]
    both = pd.concat([train[plan["features"]], test[plan["features"]]], ignore_index=True)
    moments, derived = _moments(both[column])
    numeric = [c for c in plan["features"] if c != column and pd.api.types.is_numeric_dtype(both[c])
               and (both[c].groupby(moments).nunique() > 1).any()]
    order = np.sort(moments.dropna().unique())
    previous = pd.Series(np.r_[np.nan, order[:-1]], index=order)
    means = both[numeric].groupby(moments).mean()
    for name in numeric:
        derived[f"{name}_moment_mean"] = moments.map(means[name])
        derived[f"{name}_previous_moment_mean"] = moments.map(previous).map(means[name])
    derived["moment_rows"] = moments.map(moments.value_counts())
    extra = pd.DataFrame({f"{column}_{k}": v.to_numpy(dtype=float) for k, v in derived.items()})
    features = [c for c in plan["features"] if c != column] + [c for c in extra.columns if c != f"{column}_trend"]
    combined = pd.concat([both.drop(columns=[column]), extra], axis=1)
    split = len(train)
    return (pd.concat([train.drop(columns=plan["features"]).reset_index(drop=True), combined.iloc[:split]], axis=1),
            pd.concat([test.drop(columns=plan["features"]).reset_index(drop=True),
                       combined.iloc[split:].reset_index(drop=True)], axis=1), features)


def feature_kinds(train: pd.DataFrame, features: list[str]) -> tuple[list[str], list[str]]:
    """Numeric and categorical feature columns (free-text columns are left out)."""
    numeric, categorical = [], []
    for column in features:
        if pd.api.types.is_numeric_dtype(train[column]):
            numeric.append(column)
        elif train[column].nunique() <= MAX_CATEGORY_SHARE * len(train):
            categorical.append(column)
    return numeric, categorical


def preprocessor(numeric: list[str], categorical: list[str], scale: bool, splines: bool = False) -> ColumnTransformer:
    """Median-imputed numbers (standardised, or spline-expanded, for linear and distance models), one-hot categories."""
    number_steps = [SimpleImputer(strategy="median")]
    if splines:
        number_steps += [SplineTransformer(n_knots=5, degree=3), StandardScaler()]
    elif scale:
        number_steps.append(StandardScaler())
    parts = [("numbers", make_pipeline(*number_steps), numeric)]
    if categorical:
        parts.append(("categories", make_pipeline(
            SimpleImputer(strategy="most_frequent"),
            OneHotEncoder(handle_unknown="ignore", max_categories=20, sparse_output=False)), categorical))
    return ColumnTransformer(parts)


def _time_folds(moments: np.ndarray, folds: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """Forward-chaining folds of rows ordered in time: the distinct moments cut into `folds + 1` consecutive
    blocks, each fold fitting on the blocks before one block and validating on it (as the test period follows
    train)."""
    blocks = np.array_split(np.unique(moments), folds + 1)
    return [(np.flatnonzero(moments < block[0]), np.flatnonzero((moments >= block[0]) & (moments <= block[-1])))
            for block in blocks[1:]]


def _search_folds(plan: dict, classify: bool, x: pd.DataFrame):
    """The folds of a search: forward-chaining in time when the rows (`x`, the training frame with its derived
    columns) carry the trend of a time column, else the seeded folds."""
    trend = f"{plan.get('time_column')}_trend"
    return _time_folds(x[trend].to_numpy(), plan["cv_folds"]) if trend in x.columns else _folds(plan, classify)


def _folds(plan: dict, classify: bool):
    """The seeded cross-validation folds of a stack (and of a search on rows without a time order)."""
    kind = StratifiedKFold if classify else KFold
    return kind(n_splits=plan["cv_folds"], shuffle=True, random_state=plan["seed"])


def _scoring(plan: dict, classify: bool) -> str:
    return SCORING.get(plan["metric"], "neg_mean_squared_error") if (classify or plan["task_type"] == "regression") \
        else "neg_mean_squared_error"


def _model(name: str, classify: bool, seed: int):
    """An estimator at its default (or near-default) settings."""
    if name == "linear":
        return LogisticRegression(max_iter=2000) if classify else Ridge(alpha=1.0)
    if name == "shallow_tree":
        return (DecisionTreeClassifier if classify else DecisionTreeRegressor)(max_depth=2, random_state=seed)
    if name == "knn":
        return KNeighborsClassifier() if classify else KNeighborsRegressor()
    if name in ("random_forest", "random_forest_tuned"):
        family = RandomForestClassifier if classify else RandomForestRegressor
        return family(n_estimators=120, random_state=seed, n_jobs=1)
    if name == "extra_trees":
        family = ExtraTreesClassifier if classify else ExtraTreesRegressor
        return family(n_estimators=200, min_samples_leaf=2, random_state=seed, n_jobs=1)
    if name == "gradient_boosting":
        family = HistGradientBoostingClassifier if classify else HistGradientBoostingRegressor
        return family(random_state=seed)
    if name == "gradient_boosting_tuned":
        family = HistGradientBoostingClassifier if classify else HistGradientBoostingRegressor
        return family(early_stopping=False, random_state=seed)
    if name == "knn_tuned":
        return KNeighborsClassifier() if classify else KNeighborsRegressor()
    if name == "linear_tuned":
        return LogisticRegression(max_iter=4000) if classify else Ridge()
    raise ValueError(f"unknown model {name!r}")


SEARCH_SPACES = {
    "gradient_boosting_tuned": {"learning_rate": [0.02, 0.04, 0.07, 0.1], "max_iter": [200, 400],
                                "max_leaf_nodes": [15, 31, 63], "min_samples_leaf": [5, 10, 20, 40],
                                "l2_regularization": [0.0, 0.1, 1.0, 5.0], "max_features": [0.5, 0.8, 1.0]},
    "random_forest_tuned": {"max_features": [0.2, 0.35, 0.5, 0.7, 1.0], "min_samples_leaf": [1, 2, 3, 5],
                            "max_depth": [None, 12, 24]},
    "knn_tuned": {"n_neighbors": [5, 10, 15, 25, 40, 60], "weights": ["uniform", "distance"]},
}
REGULARISATION = {"linear_tuned": [0.01, 0.1, 1.0, 10.0, 100.0]}


def _space(name: str, plan: dict, classify: bool, y: pd.Series) -> dict:
    """The search space of a tuned entry; gradient boosting on a label that is never negative also tries the
    Poisson loss (counts, durations)."""
    space = dict(SEARCH_SPACES[name])
    if name == "gradient_boosting_tuned" and not classify and plan["task_type"] == "regression" and y.min() >= 0 \
            and y.max() > 0:
        space["loss"] = ["squared_error", "poisson"]
    return space


def _searched(name: str, pipeline: Pipeline, plan: dict, classify: bool, x: pd.DataFrame, y: pd.Series,
              ordering: pd.DataFrame) -> tuple[Pipeline, dict]:
    """The pipeline refit with the hyperparameters a seeded cross-validated search chose, and those choices; the
    folds come from `ordering`, the training frame with its derived columns, indexed as `x`."""
    rows = x.sample(n=plan["search_rows"], random_state=plan["seed"]).index if len(x) > plan["search_rows"] else x.index
    folds = _search_folds(plan, classify, ordering.loc[rows])
    if name in REGULARISATION:
        key = "model__C" if classify else "model__alpha"
        grid = [1.0 / a for a in REGULARISATION[name]] if classify else REGULARISATION[name]
        search = GridSearchCV(pipeline, {key: grid}, scoring=_scoring(plan, classify), cv=folds)
    else:
        space = {f"model__{k}": v for k, v in _space(name, plan, classify, y).items()}
        search = RandomizedSearchCV(pipeline, space, n_iter=plan["search_iterations"], scoring=_scoring(plan, classify),
                                    cv=folds, random_state=plan["seed"], error_score="raise")
    search.fit(x.loc[rows], y.loc[rows])
    chosen = {k.removeprefix("model__"): v for k, v in search.best_params_.items()}
    return clone(pipeline).set_params(**search.best_params_).fit(x, y), chosen


def _pipeline(name: str, numeric: list[str], categorical: list[str], classify: bool, seed: int) -> Pipeline:
    distance = name in ("linear", "knn", "knn_tuned")
    return Pipeline([("prepare", preprocessor(numeric, categorical, scale=distance, splines=name == "linear_tuned")),
                     ("model", _model(name, classify, seed))])


def _stack(models: dict[str, Pipeline], plan: dict, classify: bool):
    """A stack of the tuned models and the extra trees, combined by a linear model fitted on their out-of-fold predictions."""
    members = [(name, clone(models[name])) for name in STACKED if name in models]
    if len(members) < 2:
        raise ValueError(f"a stack needs two tuned models, {len(members)} were fitted")
    if classify:
        return StackingClassifier(members, final_estimator=LogisticRegression(max_iter=2000),
                                  cv=_folds(plan, classify), n_jobs=1)
    return StackingRegressor(members, final_estimator=Ridge(alpha=1.0), cv=_folds(plan, classify), n_jobs=1)


def fitted(name: str, train: pd.DataFrame, plan: dict, models: dict[str, Pipeline],
           features: list[str]) -> tuple[object, dict]:
    """One entry's model fitted on the given training rows and features, and the hyperparameters it chose."""
    classify = plan["task_type"] == "classification"
    numeric, categorical = feature_kinds(train, features)
    y = train[plan["target_column"]].astype(str) if classify else train[plan["target_column"]].astype(float)
    x = train[numeric + categorical]
    if name == "stacking":
        model = _stack(models, plan, classify)
        return model.fit(x, y), {"members": [n for n in STACKED if n in models]}
    pipeline = _pipeline(name, numeric, categorical, classify, plan["seed"])
    if name in SEARCH_SPACES or name in REGULARISATION:
        model, chosen = _searched(name, pipeline, plan, classify, x, y, train)
    else:
        model, chosen = pipeline.fit(x, y), {}
    models[name] = model
    return model, chosen


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


def predictions(model, train: pd.DataFrame, test: pd.DataFrame, plan: dict, features: list[str]) -> np.ndarray:
    """A fitted model's predictions of the test rows in the submission's form."""
    numeric, categorical = feature_kinds(train, features)
    features = test[numeric + categorical]
    if plan["prediction"] == "label":
        return model.predict(features).astype(object)
    if plan["prediction"] == "probability":
        fitted_classes = list(model.classes_)
        probabilities = model.predict_proba(features)
        full = np.column_stack([probabilities[:, fitted_classes.index(label)] if label in fitted_classes
                                else np.zeros(len(test)) for label in plan["classes"]])
        return full[:, -1:] if len(plan["classes"]) == 2 else full
    return model.predict(features)


def write_submission(path: Path, test: pd.DataFrame, plan: dict, values: np.ndarray) -> None:
    """A submission CSV in the sample submission's columns."""
    frame = pd.DataFrame({plan["id_column"]: test[plan["id_column"]].to_numpy()})
    matrix = values.reshape(len(test), -1) if values.dtype != object else values[:, None]
    for k, column in enumerate(plan["prediction_columns"]):
        column_values = matrix[:, k]
        frame[column] = column_values if values.dtype == object else np.round(column_values.astype(float), 6)
    frame.to_csv(path, index=False)


def main(plan_path: str) -> int:
    """Run every entry of the plan in order (a stack after the models it is made of); a failing entry is
    recorded and the others still run."""
    plan = json.loads(Path(plan_path).read_text())
    read = {"dtype": {plan["target_column"]: str}} if plan["task_type"] == "classification" else {}
    train = pd.read_csv("public/train.csv", keep_default_na=True, **read)
    test = pd.read_csv("public/test.csv", keep_default_na=True)
    out = Path("submissions")
    out.mkdir(exist_ok=True)
    views = {False: (train, test, plan["features"]), True: engineered(train, test, plan)}
    runs, models = {}, {}
    for entry in sorted(plan["entries"], key=lambda e: e["model"] == "stacking"):
        rng = np.random.default_rng(None if plan["seed"] is None else [plan["seed"], int(entry["fraction"] * 1000)])
        started = time.perf_counter()
        try:
            entry_train, entry_test, features = views[entry["model"] in ENGINEERED]
            rows = training_rows(entry_train, plan, entry["fraction"], rng)
            chosen = {}
            if entry["model"] == "constant":
                values = constant_predictions(rows, plan, len(test))
            else:
                model, chosen = fitted(entry["model"], rows, plan, models if entry["fraction"] >= 1.0 else {}, features)
                values = predictions(model, rows, entry_test, plan, features)
            write_submission(out / f"{entry['name']}.csv", entry_test, plan, values)
            runs[entry["name"]] = {"ok": True, "rows": len(rows), "fit_s": round(time.perf_counter() - started, 4),
                                   "chosen": {k: v if isinstance(v, (int, float, str, list)) or v is None else str(v)
                                              for k, v in chosen.items()}}
        except Exception as exc:  # one failing baseline must not stop the others
            runs[entry["name"]] = {"ok": False, "error": f"{type(exc).__name__}: {exc}",
                                   "trace": traceback.format_exc(limit=3)}
    (out / "runs.json").write_text(json.dumps(runs, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
