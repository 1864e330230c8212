"""Inspect AI tasks of a release: one per family, from the release's RL rows, scored by the same reward.

A release ships `inspect_tasks.py` (written by `inspect_tasks_file`), so a user runs

    inspect eval <release>/inspect_tasks.py@literature --model openai/<model>
    inspect eval <release>/inspect_tasks.py@swe --model mockllm/model -T solver=reference

Each task's samples are the family's RL rows (the prompt, with its graded reply
format; the hidden reference and grader in the sample's metadata, which the model
never sees). The scorer is `taskforge.graders.reward.compute_score` on the final
reply. Solvers (`-T solver=…`):
- `agent` (default): the model answers, calling the task's tools as often as it
  likes first: literature's `search`/`read` over the collection the release ships;
  `bash`/`python` in the task's sandbox for workspace families (workflow: its input
  files under `inputs/`; mle: its data under `data/` with the science environment;
  swe: the repository in `/testbed` of its instance image, built by
  `taskforge export swebench`); none for long-context;
- `reference`: replies with the task's reference submission (what the reward's
  reference check submits), for checking a release end to end.
Sandboxes are taskforge's own (`taskforge.sandbox.inspect_provider`), network off.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pyarrow.parquet as pq
from inspect_ai import Task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessageSystem, ChatMessageUser, ModelOutput
from inspect_ai.scorer import Score, Target, mean, scorer
from inspect_ai.solver import Generate, Solver, TaskState, generate, solver, use_tools
from inspect_ai.tool import Tool, ToolDef, ToolParams, bash, python
from inspect_ai.util import SandboxEnvironmentSpec

from taskforge.graders.base import decoded
from taskforge.graders.literature.environment import ENVIRONMENT_KIND as LITERATURE_SEARCH, environment_for
from taskforge.graders.reward import compute_score, family_of, reward_entry
from taskforge.graders.swe.eval_script import TESTBED
from taskforge.graders.swe.reward import instance_image
from taskforge.sandbox.inspect_provider import PROVIDER, SandboxConfig

TASKS_FILE = "inspect_tasks.py"
SOLVERS = ("agent", "reference")
WORKSPACE_FAMILIES = ("workflow", "mle", "swe")


def family_rows(release: Path, family: str) -> list[dict[str, Any]]:
    """The RL rows of one family of a release, in file order."""
    files = sorted((release / "data" / family).glob("*.parquet"))
    if not files:
        raise FileNotFoundError(f"{release}: the release has no rows of family {family!r}")
    return [row for path in files for row in pq.read_table(path).to_pylist()]


def sandbox_config(family: str, payload: dict[str, Any], environment: dict[str, Any]) -> SandboxConfig | None:
    """Where a workspace family's sample works (None: a family that needs no sandbox)."""
    if family == "swe":
        return SandboxConfig(image=instance_image(payload, environment), workdir=TESTBED)
    if family == "mle":
        return SandboxConfig(python_env=environment.get("python_env"))
    if family == "workflow":
        return SandboxConfig()
    return None


def workspace_files(family: str, payload: dict[str, Any], environment: dict[str, Any]) -> dict[str, str]:
    """The files a sample's workspace starts with: a workflow's inputs, an MLE competition's public data."""
    if family == "workflow":
        return dict(payload.get("inputs", {}))
    if family == "mle":
        folder = environment.get("data_dir", "data")
        return {f"{folder}/{name}": text for name, text in payload.get("files", {}).items()}
    return {}


def to_sample(row: dict[str, Any]) -> Sample:
    """One RL row as an Inspect sample (the reward's inputs in its metadata)."""
    info = row["extra_info"]
    family = family_of(row["data_source"], info)
    payload, environment = decoded(info["payload"]), decoded(info["environment"])
    messages = [ChatMessageSystem(content=m["content"]) if m["role"] == "system" else ChatMessageUser(content=m["content"])
                for m in row["prompt"]]
    config = sandbox_config(family, payload, environment)
    return Sample(
        id=info["task_id"], input=messages,
        metadata={"data_source": row["data_source"], "ground_truth": row["reward_model"]["ground_truth"],
                  "extra_info": json.dumps(info, sort_keys=True)},
        sandbox=SandboxEnvironmentSpec(PROVIDER, config) if config else None,
        files=workspace_files(family, payload, environment) or None,
    )


def literature_tools(environment: dict[str, Any], release: Path) -> list[Tool]:
    """Inspect tools calling a literature task's search environment, rebuilt from the release's snapshot."""
    search = environment_for(environment, release)

    def calling(name: str) -> Any:
        async def execute(**arguments: Any) -> str:
            return search.call(name, arguments)
        return execute

    return [ToolDef(calling(spec["function"]["name"]), name=spec["function"]["name"],
                    description=spec["function"]["description"],
                    parameters=ToolParams.model_validate(spec["function"]["parameters"])).as_tool()
            for spec in environment["tools"]]


def agent_tools(family: str, rows: list[dict[str, Any]], release: Path) -> list[Tool]:
    """The tools of a family's agent solver (every sample of a family shares them)."""
    if family in WORKSPACE_FAMILIES:
        return [bash(timeout=600), python(timeout=600)]
    environment = decoded(rows[0]["extra_info"]["environment"])
    if environment.get("kind") == LITERATURE_SEARCH:
        return literature_tools(environment, release)
    return []


@solver
def reference_solver() -> Solver:
    """Replies with the sample's reference submission."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        info = json.loads(state.metadata["extra_info"])
        entry = reward_entry(family_of(state.metadata["data_source"], info))
        answer = entry.reference_submission(decoded(state.metadata["ground_truth"]), decoded(info["grader"]))
        state.output = ModelOutput.from_content(model="taskforge/reference", content=answer)
        state.messages.append(state.output.message)
        return state

    return solve


@scorer(metrics=[mean()])
def reward_scorer():
    """The task's reward (`compute_score`) of the final reply."""

    async def score(state: TaskState, target: Target) -> Score:
        info = json.loads(state.metadata["extra_info"])
        reply = state.output.completion
        value = await anyio.to_thread.run_sync(compute_score, state.metadata["data_source"], reply,
                                               state.metadata["ground_truth"], info)
        return Score(value=value, answer=reply[-500:])

    return score


def release_task(release: Path, family: str, solver: str = "agent") -> Task:
    """The Inspect task of one family of a release."""
    if solver not in SOLVERS:
        raise ValueError(f"unknown solver {solver!r}; choose one of {', '.join(SOLVERS)}")
    rows = family_rows(release, family)
    plan = [reference_solver()] if solver == "reference" else [use_tools(agent_tools(family, rows, release)),
                                                                 generate()]
    return Task(dataset=MemoryDataset([to_sample(row) for row in rows], name=f"taskforge-{family}"),
                solver=plan, scorer=reward_scorer(), name=family)


def inspect_tasks_file(families: list[str]) -> str:
    """The `inspect_tasks.py` of a release: one `@task` per family, reading the rows beside the file."""
    tasks = "\n\n".join(f'@task\ndef {family}(solver: str = "agent") -> Task:\n'
                        f'    """taskforge {family} tasks of this release."""\n'
                        f'    return release_task(RELEASE, "{family}", solver)\n' for family in families)
    return (f'"""Inspect AI tasks of this taskforge release (needs taskforge installed):\n\n'
            f'    inspect eval {TASKS_FILE}@<family> --model <model> [-T solver=agent|reference]\n"""\n\n'
            "from pathlib import Path\n\nfrom inspect_ai import Task, task\n\n"
            "from taskforge.store.inspect_export import release_task\n\n"
            "RELEASE = Path(__file__).resolve().parent\n\n\n" + tasks)
