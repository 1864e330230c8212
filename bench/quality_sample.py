"""Build a quality sample of accepted workflow and MLE tasks at full size and write what a solver sees.

For each task: the prompt exactly as the solver gets it, the workspace files
(head of each, and its size), and the task's figures (validation status, for
MLE the leaderboard, thresholds and bootstrap noise; for workflow the input
sizes and the reference deliverables' sizes, never their content). Output:
`<out>/<family>.md`. Run: `.venv/bin/python bench/quality_sample.py [--out data/out/quality]`.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from taskforge import sandbox  # noqa: E402
from taskforge.builders.base import BuildContext  # noqa: E402
from taskforge.builders.mle import MleBuilder  # noqa: E402
from taskforge.builders.workflow import WorkflowBuilder  # noqa: E402
from taskforge.schemas import PlanItem, Quarantined  # noqa: E402
from taskforge.store.layout import DEFAULT_DATA_DIR, SAMPLES_DIR  # noqa: E402
from taskforge.validators.runner import validate  # noqa: E402

HEAD_LINES = 8


def _head(text: str) -> str:
    lines = text.splitlines()
    shown = "\n".join(lines[:HEAD_LINES])
    return shown + (f"\n[… {len(lines) - HEAD_LINES} more lines …]" if len(lines) > HEAD_LINES else "")


def solver_view(task, files: dict[str, str]) -> list[str]:
    """The prompt and the workspace, as the solver sees them."""
    lines = []
    for message in task.prompt:
        lines += [f"**{message.role}**", "", "```", message.content, "```", ""]
    for name, text in files.items():
        lines += [f"`{name}` ({len(text.encode()):,} bytes, {len(text.splitlines()):,} lines)", "", "```",
                  _head(text), "```", ""]
    return lines


def workflow_sample(out: Path) -> None:
    item = PlanItem(family="workflow", capability="general", quota=4, gap_ids=[], priority=1.0)
    started = time.perf_counter()
    built = list(WorkflowBuilder().build(item, BuildContext(cycle_id="quality", options={
        "source": str(SAMPLES_DIR / "workflow_seeds")})))
    lines = ["# Workflow quality sample (full scale)", "", f"built in {time.perf_counter() - started:.0f} s", ""]
    for task in built:
        if isinstance(task, Quarantined):
            lines += [f"## quarantined {task.source}: {task.reason}", ""]
            continue
        decided = validate(task)
        evolution = task.payload.get("evolution") or {}
        lines += [f"## {task.payload['seed_id']} (generation {task.payload['generation']}, capability "
                  f"{task.capability}, status {decided.status})", "",
                  f"operators: {evolution.get('operators')}, axes: {evolution.get('axes')}; reasons: {decided.reasons}",
                  f"reference deliverables: " + ", ".join(f"{p} {len(t.splitlines())} lines"
                                                          for p, t in task.reference["deliverables"].items()), ""]
        lines += solver_view(task, task.payload["inputs"])
    (out / "workflow.md").write_text("\n".join(lines), encoding="utf-8")


def mle_sample(out: Path, data_dir: Path) -> None:
    item = PlanItem(family="mle", capability="general", quota=2, gap_ids=[], priority=1.0)
    started = time.perf_counter()
    built = list(MleBuilder().build(item, BuildContext(cycle_id="quality", data_dir=str(data_dir), options={
        "source": str(SAMPLES_DIR / "mle"), "sandbox": "process"})))
    lines = ["# MLE quality sample (real datasets, full rules)", "", f"built in {time.perf_counter() - started:.0f} s",
             ""]
    for task in built:
        if isinstance(task, Quarantined):
            lines += [f"## quarantined {task.source}: {task.reason}", ""]
            continue
        decided = validate(task)
        board = task.payload["leaderboard"]
        lines += [f"## {task.payload['title']} ({task.payload['metric']}, status {decided.status}, capability "
                  f"{task.capability})", "", f"reasons: {decided.reasons}", "",
                  f"split: {json.dumps(task.payload['split'])}", f"thresholds: {json.dumps(task.payload['thresholds'])}",
                  f"noise: {json.dumps(task.payload['noise'])}", "", "| rank | entry | score |", "|---|---|---|",
                  *[f"| {e['rank']} | {e['entry']} | {e['score']} |" for e in board], ""]
        lines += solver_view(task, task.payload["files"])
    (out / "mle.md").write_text("\n".join(lines), encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", type=Path, default=DEFAULT_DATA_DIR / "quality")
    parser.add_argument("--family", choices=("workflow", "mle"), action="append")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    chosen = sandbox.get_sandbox("process")
    sandbox.default_sandbox = lambda: chosen
    for family in args.family or ("workflow", "mle"):
        workflow_sample(args.out) if family == "workflow" else mle_sample(args.out, DEFAULT_DATA_DIR)
        print(f"wrote {args.out / (family + '.md')}")


if __name__ == "__main__":
    main()
