"""Measure how often an outside solver solves landed tasks: stage what a solver sees, then grade its work.

A solver (a person, or a strong agent working by hand) gets each sampled task
exactly as a trainer's solver does, never its reference:

    stage  --release R --out DIR [--per-family N]
        DIR/<task_id>/PROMPT.md   the RL prompt (the messages, the graded reply stated)
        DIR/<task_id>/workspace/  the workspace of swe, mle and workflow tasks, as the tools stage it
        DIR/<task_id>/TOOLS.md    how to call the task's tools (literature: search and read)
    tool   DIR/<task_id> search '{"query": "..."}'   a literature task's tool, as its solver calls it
    grade  --release R DIR
        reads DIR/<task_id>/answer.txt (literature, long_context), workspace/outputs/ (workflow),
        the submission CSV (mle) or the repository's diff against its base commit (swe), grades it with the
        task's own reward (`score_task`, graders in the sandbox) and prints solve rates per family.

The solver's own commands stay its business; every grader runs in the sandbox as
in training. Run: `.venv/bin/python bench/solver_sample.py stage --release data/releases/v1 --out /tmp/solve`.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

import pyarrow.parquet as pq

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.figures import emit  # noqa: E402
from taskforge.graders.task_reward import score_task  # noqa: E402
from taskforge.schemas import FAMILIES, Task  # noqa: E402
from taskforge.schemas.arrow import from_table  # noqa: E402
from taskforge.store.rl_view import rl_prompt  # noqa: E402
from taskforge.tools import WORKSPACE_FAMILIES, task_tools  # noqa: E402
from taskforge.tools.release import task_in_release  # noqa: E402

ANSWER_FILE, PROMPT_FILE, TOOLS_FILE, WORKSPACE_DIR = "answer.txt", "PROMPT.md", "TOOLS.md", "workspace"
SOLVED = 1.0


def released_tasks(release: Path) -> dict[str, list[Task]]:
    """Every task envelope of a release folder, by family."""
    tasks: dict[str, list[Task]] = defaultdict(list)
    for family in FAMILIES:
        for path in sorted((release / "envelope" / family).glob("*.parquet")):
            tasks[family] += from_table(pq.read_table(path), Task)
    return tasks


def sample(tasks: dict[str, list[Task]], per_family: int, seed: int) -> list[Task]:
    """Up to `per_family` tasks of each family, drawn with a fixed seed."""
    rng = random.Random(seed)
    return [task for family in sorted(tasks) for task in rng.sample(tasks[family], min(per_family, len(tasks[family])))]


def _tools_note(task: Task, release: Path) -> str:
    """What the solver is told about calling the task's tools here."""
    tools = task_tools(task, data_dir=str(release)).tools
    names = [tool["function"]["name"] for tool in tools]
    lines = [f"Tools of this task: {', '.join(names)}."]
    if task.family == "literature":
        lines.append("Call search/read with: `.venv/bin/python bench/solver_sample.py tool <this folder> search "
                     "'{\"query\": \"...\"}'` (read: `read '{\"paper_id\": \"...\"}'`, arguments as the tool "
                     "schema below says). Write your final reply into answer.txt.")
    elif task.family in WORKSPACE_FAMILIES:
        lines.append("Work in workspace/ (it is the sandbox's /workspace); your outputs there are what is graded.")
    else:
        lines.append("Write your final reply into answer.txt.")
    return "\n".join(lines) + "\n\n```json\n" + json.dumps(tools, indent=1) + "\n```\n"


def stage(release: Path, out: Path, per_family: int, seed: int) -> None:
    """Write each sampled task's prompt, tool note and workspace under `out`. The workspace is a plain copy: a
    SWE snapshot is staged as hard links into the SWE cache, which a solver editing files in place would change."""
    for task in sample(released_tasks(release), per_family, seed):
        folder = out / task.task_id
        folder.mkdir(parents=True, exist_ok=True)
        prompt = "\n\n".join(f"## {m['role']}\n\n{m['content']}" for m in rl_prompt(task))
        (folder / PROMPT_FILE).write_text(prompt + "\n")
        (folder / TOOLS_FILE).write_text(_tools_note(task, release))
        if task.family in WORKSPACE_FAMILIES:
            with tempfile.TemporaryDirectory() as staged:
                task_tools(task).stage(Path(staged))
                shutil.copytree(staged, folder / WORKSPACE_DIR, symlinks=True, dirs_exist_ok=True)
        print(f"{task.family:13} {folder}")


def call_tool(release: Path, folder: Path, name: str, arguments: str) -> str:
    """A literature task's search or read, as its solver's tool call returns it."""
    return task_tools(task_in_release(str(release), folder.name), data_dir=str(release)).call(name, arguments)


def submission_of(task: Task, folder: Path) -> str:
    """What the solver left in `folder`, as the task's reward reads a submission."""
    workspace = folder / WORKSPACE_DIR
    if task.family == "swe":
        repo = workspace / "repo"
        subprocess.run(["git", "-C", str(repo), "add", "-A", "--", ".", ":(exclude)*.egg-info"], check=True)
        base = task.payload["base_commit"]
        return subprocess.run(["git", "-C", str(repo), "diff", "--cached", base], check=True, capture_output=True,
                              text=True).stdout
    if task.family in ("mle", "workflow"):
        tools = task_tools(task)
        try:
            for path in sorted(p for p in workspace.rglob("*") if p.is_file()):
                tools.write_file(str(path.relative_to(workspace)), path.read_text(errors="replace"))
            return tools.submission()
        finally:
            tools.close()
    answer = folder / ANSWER_FILE
    return answer.read_text() if answer.exists() else ""


def grade(release: Path, out: Path) -> None:
    """Grade every staged task's submission with its own reward; print per-family solve rates."""
    scores: dict[str, list[float]] = defaultdict(list)
    for folder in sorted(p for p in out.iterdir() if (p / PROMPT_FILE).exists()):
        task = task_in_release(str(release), folder.name)
        score = float(score_task(task, submission_of(task, folder)))
        scores[task.family].append(score)
        print(f"{task.family:13} {task.task_id:40} {score:.3f}")
    solved = total = 0
    for family, values in sorted(scores.items()):
        full = sum(v >= SOLVED for v in values)
        solved, total = solved + full, total + len(values)
        print(f"{family:13} solved {full}/{len(values)}, mean score {sum(values) / len(values):.3f}")
    print(f"{'all':13} solved {solved}/{total}")
    emit("solver sample solve rate (bench/solver_sample.py)", ours=solved / max(total, 1), floor=1.0, unit="share",
         goal="well below 1: a task a strong solver always solves teaches nothing",
         note=f"{solved} of {total} sampled tasks fully solved")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    staged = commands.add_parser("stage")
    staged.add_argument("--release", type=Path, required=True)
    staged.add_argument("--out", type=Path, required=True)
    staged.add_argument("--per-family", type=int, default=4)
    staged.add_argument("--seed", type=int, default=0)
    tool = commands.add_parser("tool")
    tool.add_argument("folder", type=Path)
    tool.add_argument("name")
    tool.add_argument("arguments")
    tool.add_argument("--release", type=Path)
    graded = commands.add_parser("grade")
    graded.add_argument("--release", type=Path, required=True)
    graded.add_argument("out", type=Path)
    args = parser.parse_args()
    if args.command == "stage":
        stage(args.release, args.out, args.per_family, args.seed)
        (args.out / ".release").write_text(str(args.release.resolve()))
    elif args.command == "tool":
        release = args.release or Path((args.folder.parent / ".release").read_text())
        print(call_tool(release, args.folder, args.name, args.arguments))
    else:
        grade(args.release, args.out)


if __name__ == "__main__":
    main()
