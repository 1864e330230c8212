"""The SWE family: issue-repair tasks in SWE-bench's format, mined from a repository's history.

For each candidate change (see `mining`), the builder makes the solver's
snapshot at the base commit, builds (or reuses) the environment of the
repository version, runs the held-out tests in the sandbox (network off) once
at the base commit with the test patch and `repeats` times with the solution
too, and keeps FAIL_TO_PASS / PASS_TO_PASS with flaky tests dropped. A
candidate whose environment would not build, or whose tests could not be run
(the project does not install, a patch does not apply), is yielded as a
`Quarantined` record with the log tail, and the build goes on.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

from taskforge.agents.session import current_agents
from taskforge.builders.base import BuildContext
from taskforge.sandbox.filelock import locked
from taskforge.builders.swe.assemble import KIND, TIME_BUDGET_S, instance_id, payload_for, prompt_for
from taskforge.builders.swe.environment import EnvironmentRecord, build_environment
from taskforge.builders.swe.mining import Candidate, Limits, mine
from taskforge.builders.swe.problem import Issue, load_issues, problem_statement
from taskforge.builders.swe.recipe import Recipe, detect_recipe
from taskforge.builders.swe.repair import TASK_RULES, repair
from taskforge.builders.swe.snapshot import make_snapshot
from taskforge.builders.swe.source import SourceRepository, open_source
from taskforge.builders.swe.versioning import version_at
from taskforge.graders.swe.grading import harvest
from taskforge.graders.swe.harness import BedError, InstallFailed, Outcomes, TaskBed, cache_root, run_empty_and_solution
from taskforge.schemas import InputError, Lineage, PlanItem, Quarantined, Task, content_id, task_id_for

ISSUES_FILE = "issues.jsonl"
DEFAULT_REPEATS = 3
DEFAULT_TEST_TIMEOUT_S = 300.0


def snapshot_path(repo: str, commit: str) -> str:
    """A snapshot's folder relative to the cache root."""
    return f"snapshots/{content_id({'repo': repo, 'commit': commit}, prefix='snap-')}"


def ensure_snapshot(source: SourceRepository, commit: str) -> Path:
    """The solver's snapshot of a commit, made once and kept in the cache."""
    path = cache_root() / snapshot_path(source.name, commit)
    with locked(path):
        if not path.exists():
            make_snapshot(Path(source.repo.git_dir), commit, path)
    return path


def issues_for(source: SourceRepository, option: str | None) -> dict[int, Issue]:
    """Issue texts: the `issues` option's file, else `issues.jsonl` in the repository's git folder, else none."""
    path = Path(option) if option else Path(source.repo.git_dir) / ISSUES_FILE
    if option and not path.exists():
        raise InputError(option, "issues file not found")
    return load_issues(path) if path.exists() else {}


def setup_commits(source: SourceRepository, candidates: list[Candidate]) -> tuple[dict[str, str], dict[str, str]]:
    """Each candidate's version, and each version's environment setup commit (its newest base commit)."""
    versions = {c.fix_commit: version_at(source.repo, c.base_commit) for c in candidates}
    setup: dict[str, str] = {}
    for candidate in candidates:
        setup.setdefault(versions[candidate.fix_commit], candidate.base_commit)
    return versions, setup


class SweBuilder:
    """Builds issue-repair tasks from a git repository (`source` option: a local path, a clone URL, or the
    shipped sample script `data/samples/swe/calc_history.py`).

    There is no default source: a run must name the repository (a cycle that plans SWE tasks without
    one quarantines them with that reason), because every SWE task costs sandbox sessions and the first
    of a repository version an environment build.

    Options: `source`, `issues` (issues export), `repeats` (runs with the solution, at least 3),
    `max_files`, `max_hunks`, `max_commits`, `test_timeout_s`.
    """

    family = "swe"
    name = "swe.git_history"
    version = "0.1.0"
    default_source = None

    def build(self, item: PlanItem, context: BuildContext) -> Iterator[Task | Quarantined]:
        options = context.options
        if not options.get("source"):
            raise InputError("swe", "no repository given: pass `--source PATH_OR_URL` to `taskforge build swe`, "
                                    "or `--source swe=PATH_OR_URL` to a cycle")
        source = open_source(str(options["source"]), cache_root())
        limits = Limits(**{k: int(options[k]) for k in ("max_files", "max_hunks", "max_commits") if k in options})
        candidates = mine(source.repo, source.head, limits).candidates
        versions, setup = setup_commits(source, candidates)
        issues = issues_for(source, options.get("issues"))
        records: dict[str, EnvironmentRecord] = {}
        for candidate in candidates[context.first_index:context.first_index + item.quota]:
            version = versions[candidate.fix_commit]
            if version not in records:
                records[version] = build_environment(
                    source.name, version, setup[version], detect_recipe(source.repo, setup[version]),
                    ensure_snapshot(source, setup[version]))
            yield self._task(source, candidate, version, setup[version], records[version], issues, item, context)

    def _task(self, source: SourceRepository, candidate: Candidate, version: str, setup_commit: str,
              record: EnvironmentRecord, issues: dict[int, Issue], item: PlanItem,
              context: BuildContext) -> Task | Quarantined:
        options = context.options
        where = f"repo:{source.name}@{candidate.fix_commit[:12]}"
        if not record.ok:
            return _quarantined(where, f"the environment of {source.name} {version} did not build after "
                                       f"{record.attempts} attempt(s) (stage {record.failed_stage})",
                                {"log_tail": record.log_tail, "recipe": record.recipe, "version": version})
        repeats = max(DEFAULT_REPEATS, int(options.get("repeats", DEFAULT_REPEATS)))
        grader = {"harness": "swe", "log_parser": record.recipe["log_parser"], "test_files": list(candidate.test_files),
                  "timeout_s": float(options.get("test_timeout_s", DEFAULT_TEST_TIMEOUT_S)), "repeats": repeats}
        environment: dict[str, Any] = {
            "snapshot": snapshot_path(source.name, candidate.base_commit), "env": record.env_path,
            "python": record.python, "network": False, "time_budget_s": TIME_BUDGET_S,
            "build": {"key": record.key, "attempts": record.attempts},
        }
        ensure_snapshot(source, candidate.base_commit)
        try:
            recipe, outcomes = _harvest_runs(record.recipe, grader, environment, candidate, repeats)
        except BedError as exc:
            return _quarantined(where, str(exc), {"version": version})
        if not outcomes.solution_applied:
            return _quarantined(where, "the solution patch does not apply over the test patch", {"version": version})
        harvested = harvest(outcomes.empty.statuses, [run.statuses for run in outcomes.solution])
        environment["harvest"] = {**outcomes.summary(), "flaky": harvested.flaky,
                                  "FAIL_TO_FAIL": harvested.fail_to_fail, "PASS_TO_FAIL": harvested.pass_to_fail}
        statement = problem_statement(candidate.message, issues, candidate.diff.patch + candidate.diff.test_patch,
                                      source.name, candidate.first_commit_at, instance_id(source.name, candidate),
                                      current_agents())
        environment["statement_rewrite"] = {"status": statement.rewrite, "reason": statement.rewrite_reason}
        payload = payload_for(source.name, candidate, statement, version, setup_commit, recipe, harvested)
        return Task(
            task_id=task_id_for(self.family, KIND, payload), family=self.family, kind=KIND,
            capability=item.capability, prompt=prompt_for(source.name, candidate, statement), payload=payload,
            reference={"patch": candidate.diff.patch, "test_patch": candidate.diff.test_patch,
                       "fix_commit": candidate.fix_commit},
            grader=grader, environment=environment,
            lineage=Lineage(cycle_id=context.cycle_id, gap_ids=item.gap_ids, resource_id=f"repo:{source.name}",
                            resource_revision=source.head, builder=self.name, builder_version=self.version),
        )


def _harvest_runs(recipe: dict[str, Any], grader: dict[str, Any], environment: dict[str, Any], candidate: Candidate,
                  repeats: int) -> tuple[dict[str, Any], Outcomes]:
    """The harvest runs of a candidate, with the version's recipe or, when the project does not install at this
    commit, with the recipe the repair rules revise from the install log; returns the recipe that ran too."""

    def runs(with_recipe: dict[str, Any]) -> Outcomes:
        bed = TaskBed.of({"environment_recipe": with_recipe}, grader, environment)
        return run_empty_and_solution(bed, candidate.diff.patch, candidate.diff.test_patch, repeats,
                                      label="swe-harvest")

    try:
        return recipe, runs(recipe)
    except InstallFailed as exc:
        revised = repair(Recipe.from_dict(recipe), "install_project", exc.log, TASK_RULES)
        if revised is None:
            raise
        return revised.to_dict(), runs(revised.to_dict())


def _quarantined(source: str, reason: str, detail: dict[str, Any]) -> Quarantined:
    """A candidate that could not be built, with why (and the log tail where there is one)."""
    return Quarantined(item_id=content_id({"stage": "build", "source": source, "reason": reason}, prefix="q-"),
                       stage="build", source=source, error_type="SweCandidateNotBuilt", reason=reason, detail=detail)
