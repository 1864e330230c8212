"""The competition description and the solver's prompt, written from the data and the split.

`description_facts` gathers what a description must state (columns, sizes,
metric, submission format) from the public files only; `render_description`
writes it from a template. Where an endpoint is configured, `describe` has the
builder agent write it from the same facts instead, and the reviewer check it
against them in a call of its own; a description that fails its checks or that
the reviewer rejects is not used, and the template's stands. Tasks record which
writer produced their description (`template`, or `builder:<model>`).
"""

from __future__ import annotations

from typing import Any

import polars as pl

from taskforge.agents.client import Agents
from taskforge.agents.mle import review_mle_description, write_mle_description

from taskforge.builders.mle.prepare import Competition
from taskforge.graders.mle.grading import frame_from_csv, prediction_columns
from taskforge.graders.mle.metrics import METRICS

DATA_DIR = "data"
SUBMISSION_PATH = "submission/submission.csv"
WRITER = "template"
SYSTEM = ("You are a machine-learning engineer taking part in an offline competition. Work in the workspace you "
          "are given; the network is off. Build a model from the training data and write predictions for every "
          "test row in the required format. Your submission is scored against hidden labels.")


def _column_facts(train: pl.DataFrame, test: pl.DataFrame, column: str) -> dict[str, Any]:
    """Type, missing values and a short summary of one public column (train and test rows together)."""
    values = pl.concat([train[column], test[column]]) if column in test.columns else train[column]
    facts: dict[str, Any] = {"name": column, "missing": int(values.null_count())}
    if values.dtype.is_numeric():
        facts.update(type="number", min=values.min(), max=values.max())
    else:
        facts.update(type="text", distinct=int(values.n_unique()),
                     examples=[str(v) for v in values.drop_nulls().unique(maintain_order=True).head(3)])
    return facts


def _split_notes(split: dict[str, Any]) -> list[str]:
    """What the description says about how the rows were held out and subsampled."""
    notes = []
    if split["strategy"] == "time":
        notes.append(f"the rows are ordered in time by `{split['time_column']}`: `train.csv` runs up to "
                     f"{split['train_until']}, `test.csv` is the later period from {split['test_from']} on")
    if split["duplicates_dropped"]:
        notes.append(f"{split['duplicates_dropped']} rows that repeated another row exactly were left out")
    if split["subsampled"]:
        kept = "its latest period kept" if split["strategy"] == "time" else "subsampled (seeded, stratified)"
        notes.append(f"the dataset ({split['source_rows']} rows) was {kept} to keep the task compact")
    return notes


def description_facts(competition: Competition, title: str, user_description: str | None) -> dict[str, Any]:
    """Everything the description states, computed from the public files and the competition spec."""
    problem = competition.problem
    train = pl.read_csv(competition.public["train.csv"].encode(), infer_schema_length=10000)
    test = pl.read_csv(competition.public["test.csv"].encode(), infer_schema_length=10000)
    sample = frame_from_csv(competition.public["sample_submission.csv"], "sample submission")
    target_facts: dict[str, Any] = {"name": problem.target}
    if problem.task_type == "classification":
        counts = train[problem.target].cast(pl.Utf8).value_counts()
        target_facts["train_counts"] = {str(k): int(v) for k, v in counts.iter_rows()}
        target_facts["classes"] = list(problem.classes)
    else:
        target_facts.update(min=train[problem.target].min(), max=train[problem.target].max())
    metric = METRICS[problem.metric]
    return {
        "title": title, "competition_id": competition.competition_id, "user_description": user_description,
        "task_type": problem.task_type, "target": target_facts, "id_column": competition.id_column,
        "group_column": problem.group_column,
        "files": {"train.csv": [train.height, train.width], "test.csv": [test.height, test.width],
                  "sample_submission.csv": [sample.height, sample.width]},
        "columns": [_column_facts(train, test, c) for c in train.columns if c not in (competition.id_column,
                                                                                       problem.target)],
        "metric": {"name": metric.name, "text": metric.describe(), "is_lower_better": metric.is_lower_better},
        "submission_columns": [competition.id_column, *prediction_columns(competition.grader)],
        "submission_head": "\n".join(competition.public["sample_submission.csv"].splitlines()[:4]),
        "notes": [*problem.notes, *_split_notes(competition.split)],
    }


def _task_sentence(facts: dict[str, Any]) -> str:
    """What to predict, in one sentence."""
    target = facts["target"]["name"]
    if facts["task_type"] == "classification":
        classes = facts["target"]["classes"]
        listed = ", ".join(map(str, classes))
        return f"Predict the class `{target}` ({len(classes)} classes: {listed}) of each test row."
    if facts["task_type"] == "ranking":
        return (f"Score each test row so that, within each `{facts['group_column']}` group, rows with a higher "
                f"relevance `{target}` come first.")
    return f"Predict the numeric value `{target}` of each test row."


def _submission_text(facts: dict[str, Any]) -> str:
    """The submission format: header, what the prediction columns hold, the sample's first rows."""
    columns = facts["submission_columns"]
    metric = METRICS[facts["metric"]["name"]]
    what = {"label": "the predicted class", "value": "the predicted value or score",
            "probability": "the predicted probability of the positive class" if len(columns) == 2
            else "the predicted probability of each class (one column per class)"}[metric.prediction]
    return (f"Write a CSV with the header `{','.join(columns)}` and one row per test id; the prediction "
            f"columns hold {what}. Every test id must appear exactly once, with no missing values. "
            f"The sample submission starts:\n\n```\n{facts['submission_head']}\n```")


def render_description(facts: dict[str, Any]) -> str:
    """The competition description (Markdown), from the facts alone."""
    lines = [f"# {facts['title']}", ""]
    if facts["user_description"]:
        lines += ["## About the data", "", facts["user_description"].strip(), ""]
    lines += ["## Task", "", _task_sentence(facts), ""]
    lines += ["## Files", ""]
    for name, (rows, columns) in facts["files"].items():
        lines.append(f"- `{name}`: {rows} rows, {columns} columns")
    lines += ["", f"Rows are identified by `{facts['id_column']}`; `test.csv` has the columns of `train.csv` "
              f"without `{facts['target']['name']}`.", "", "## Columns", ""]
    for column in facts["columns"]:
        summary = (f"number, {column['min']} to {column['max']}" if column["type"] == "number"
                   else f"text, {column['distinct']} distinct values such as {', '.join(column['examples'])}")
        missing = f", {column['missing']} missing" if column["missing"] else ""
        lines.append(f"- `{column['name']}`: {summary}{missing}")
    target = facts["target"]
    if "train_counts" in target:
        counts = ", ".join(f"{label}: {n}" for label, n in sorted(target["train_counts"].items()))
        lines.append(f"- `{target['name']}` (label, train only): {counts}")
    else:
        lines.append(f"- `{target['name']}` (label, train only): {target['min']} to {target['max']}")
    lines += ["", "## Evaluation", "", f"Submissions are scored by {facts['metric']['text']}.", "",
              "## Submission format", "", _submission_text(facts), ""]
    if facts["notes"]:
        lines += ["## Notes", "", *[f"- {note}" for note in facts["notes"]], ""]
    return "\n".join(lines)


def required_phrases(facts: dict[str, Any]) -> list[str]:
    """What a written description must state verbatim: the files, the id and target columns, the metric,
    the submission header."""
    return [*facts["files"], facts["id_column"], facts["target"]["name"], facts["metric"]["name"],
            ",".join(facts["submission_columns"])]


def describe(facts: dict[str, Any], agents: Agents) -> tuple[str, str, dict[str, list[str]]]:
    """The description, its writer and its provenance: the builder agent's where the reviewer accepts it,
    else the template's (with no provenance). Without a reviewer the builder is not asked."""
    template = render_description(facts)
    if agents.skip_reason("builder") or agents.skip_reason("reviewer"):
        return template, WRITER, {}
    subject = facts["competition_id"]
    written = write_mle_description(agents, facts, must_state=required_phrases(facts), subject=subject)
    if not written.ok:
        return template, WRITER, {}
    review = review_mle_description(agents, written.value.markdown, facts, subject=subject,
                                    built_by=[written.call.call_id])
    if not review.ok or not review.value.accepted:
        return template, WRITER, {}
    text = written.value.markdown.rstrip() + "\n"
    return text, f"builder:{written.call.model}", {"built_by": [written.call.call_id],
                                                   "reviewed_by": [review.call.call_id]}


def user_message(description: str) -> str:
    """The solver's instructions: where the files are and where the submission goes."""
    return (f"{description}\n## Your workspace\n\nThe files `train.csv`, `test.csv` and `sample_submission.csv` "
            f"are in `{DATA_DIR}/`. Write your predictions to `{SUBMISSION_PATH}`.")
