"""One dataset to one MLE task: problem, prepared split, baseline leaderboard, description, envelope."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from taskforge.builders.base import derive_seed
from taskforge.agents.artifact import with_provenance
from taskforge.agents.session import current_agents
from taskforge.builders.mle.description import (DATA_DIR, SUBMISSION_PATH, SYSTEM, describe, description_facts,
                                      user_message)
from taskforge.builders.mle.inference import define_problem
from taskforge.builders.mle.leaderboard import (BASELINE_ENVIRONMENT, Leaderboard, LeaderboardRules, build_leaderboard,
                                                run_baselines)
from taskforge.builders.mle.prepare import Competition, checksum, prepare
from taskforge.builders.mle.source import DatasetSpec, load_table
from taskforge.graders.mle.baseline_runs import search_settings
from taskforge.sandbox import Sandbox
from taskforge.sandbox.images import PYTHON_ENVS
from taskforge.schemas import Lineage, Message, Task, task_id_for

KIND = "tabular_competition"
TIME_BUDGET_S = 3600


@dataclass
class Timings:
    """Seconds spent in each phase of building one task."""

    phases: dict[str, float] = field(default_factory=dict)

    def add(self, phase: str, started: float) -> None:
        """Record the time since `started` (a perf_counter value) under `phase`."""
        self.phases[phase] = self.phases.get(phase, 0.0) + time.perf_counter() - started


def payload_for(competition: Competition, leaderboard: Leaderboard, description: str, title: str,
                writer: str, search: dict[str, int]) -> dict[str, Any]:
    """What defines the task and what the solver's workspace holds: the public files, metric and leaderboard
    (with how its tuned entries searched), and who wrote the description."""
    problem = competition.problem
    files = {"description.md": description, **competition.public}
    return {
        "competition_id": competition.competition_id, "title": title, "task_type": problem.task_type,
        "target_column": problem.target, "id_column": competition.id_column, "group_column": problem.group_column,
        "metric": problem.metric, "is_lower_better": competition.grader["is_lower_better"],
        "storage": "inline", "files": files,
        "checksums": {**{k: v for k, v in competition.checksums.items() if k.startswith("public/")},
                      "public/description.md": checksum(description)},
        "split": competition.split, "dropped_columns": list(problem.dropped_columns),
        "leaderboard": leaderboard.entries, "search": search,
        "thresholds": vars(leaderboard.thresholds),
        "description_writer": writer, "noise": leaderboard.noise.as_record(),
    }


def competition_task(spec: DatasetSpec, sandbox: Sandbox, capability: str, lineage: dict[str, Any], seed: int,
                     timings: Timings | None = None, rules: LeaderboardRules = LeaderboardRules()) -> Task:
    """Build one task from one dataset; raises InputError (bad dataset), BaselineError or InfrastructureError."""
    timings = timings or Timings()
    started = time.perf_counter()
    revision = spec.revision()
    split_seed = derive_seed("mle", revision, seed)
    frame, problem = define_problem(load_table(spec), spec)
    competition = prepare(frame, problem, split_seed, spec.title or spec.name, spec.test_fraction,
                          int(spec.min_test_rows), spec.display)
    timings.add("prepare", started)
    started = time.perf_counter()
    runs = run_baselines(competition, sandbox, split_seed, rules)
    timings.add("baselines", started)
    started = time.perf_counter()
    leaderboard = build_leaderboard(competition, runs, split_seed, rules)
    timings.add("grading", started)
    started = time.perf_counter()
    title = spec.title or spec.name.replace("_", " ").title()
    description, writer, written = describe(description_facts(competition, title, spec.description),
                                            current_agents())
    payload = payload_for(competition, leaderboard, description, title, writer,
                          search_settings(rules.search_iterations))
    timings.add("description", started)
    task = Task(
        task_id=task_id_for("mle", KIND, payload), family="mle", kind=KIND, capability=capability,
        prompt=[Message(role="system", content=SYSTEM), Message(role="user", content=user_message(description))],
        payload=payload,
        reference={"answers": competition.answers, "best_submission": leaderboard.best_submission,
                   "best_entry": leaderboard.best["entry"], "best_score": leaderboard.best["score"],
                   "checksums": {k: v for k, v in competition.checksums.items() if k.startswith("private/")},
                   "baseline_errors": leaderboard.excluded, "baseline_backend": runs.backend},
        grader={**competition.grader, "thresholds": vars(leaderboard.thresholds)},
        environment={"python_env": BASELINE_ENVIRONMENT,
                     "packages": list(PYTHON_ENVS[BASELINE_ENVIRONMENT].requirements), "network": False,
                     "data_dir": DATA_DIR, "submission_path": SUBMISSION_PATH, "time_budget_s": TIME_BUDGET_S},
        lineage=Lineage(**lineage, resource_id=f"dataset-{revision[:16]}", resource_revision=revision,
                        seed=split_seed),
    )
    return with_provenance(task, **written) if written else task
