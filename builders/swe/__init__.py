"""The SWE family: issue-repair tasks in SWE-bench's format, mined from a repository's history.

For each candidate change (see `mining`: after the `since` cutoff, multi-hunk
fixes first, one task per function), the builder makes the solver's snapshot at
the base commit, builds (or reuses) the environment of the candidate's recipe
(one per range of commits whose dependency files give the same recipe), runs
the held-out tests in one sandbox session (network off) once at the base
commit with the test patch and `repeats` times with the solution too (cached by
content hash, so the checks re-derive from the same runs), keeps
FAIL_TO_PASS / PASS_TO_PASS with flaky tests dropped, and writes the statement
from the symptoms (see `problem`). A candidate whose environment would not
build, or whose tests could not be run (the project does not install, a patch
does not apply, git cannot read a commit), is yielded as a `Quarantined`
record with the reason, and the build goes on; so is each commit at the
boundary of a shallow clone (its parent is missing).
"""

from __future__ import annotations

from functools import lru_cache, partial
from pathlib import Path
from typing import Any, Iterator

import git

from taskforge.agents.session import current_agents
from taskforge.builders.base import BuildContext
from taskforge.sandbox.filelock import locked
from taskforge.builders.swe.assemble import KIND, TIME_BUDGET_S, instance_id, payload_for, prompt_for
from taskforge.builders.swe.environment import EnvironmentRecord, build_environment
from taskforge.builders.swe.interpreter import declared_at
from taskforge.builders.swe.mining import Candidate, Limits, MiningReport, mine, select
from taskforge.builders.swe.problem import Issue, Symptom, load_issues, problem_statement, shown_tests
from taskforge.builders.swe.recipe import Recipe, dependency_files_id, detect_recipe
from taskforge.builders.swe.repair import TASK_RULES, repair
from taskforge.builders.swe.snapshot import make_snapshot
from taskforge.builders.swe.source import SourceRepository, open_source, repository_licence
from taskforge.builders.swe.versioning import version_at
from taskforge.graders.swe.expectations import hidden_test_expectations, touched_tests
from taskforge.graders.swe.grading import harvest
from taskforge.graders.swe.safe_git import GitError, line_counts, names_in_tree, text_in_tree
from taskforge.graders.swe.harness import BedError, InstallFailed, Outcomes, TaskBed, cache_root, cached_runs
from taskforge.graders.swe.patch import held_out_targets, split_files
from taskforge.graders.swe.statement import interface_specs, new_interface, patch_names
from taskforge.schemas import InputError, Lineage, PlanItem, Quarantined, Task, content_id, task_id_for

ISSUES_FILE = "issues.jsonl"
DEFAULT_REPEATS = 3
DEFAULT_TEST_TIMEOUT_S = 300.0
DEFAULT_SINCE = "2025-01-01"
"""The default cutoff: changes committed before it are not mined (set `since` to the trained model's
knowledge cutoff; `since=` with no date mines the whole history)."""
MAX_SYMPTOMS = 4


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


@lru_cache(maxsize=8)
def mined(git_dir: str, head: str, limits: Limits, shallow: frozenset[str]) -> tuple[MiningReport, list[Candidate]]:
    """The mining report of a history and its candidates in build order (every batch of a build shares them)."""
    report = mine(git.Repo(git_dir), head, limits, shallow)
    return report, select(report.candidates)


def recipes_for(source: SourceRepository, candidates: list[Candidate]) -> dict[str, Recipe]:
    """Each candidate's recipe by base commit, read once per set of dependency files."""
    by_files: dict[str, Recipe] = {}
    recipes = {}
    for candidate in candidates:
        files = dependency_files_id(source.repo, candidate.base_commit)
        if files not in by_files:
            by_files[files] = detect_recipe(source.repo, candidate.base_commit)
        recipes[candidate.base_commit] = by_files[files]
    return recipes


def setup_commits(candidates: list[Candidate], recipes: dict[str, Recipe]) -> dict[Recipe, str]:
    """Each recipe's environment setup commit: the base commit of its most recently committed candidate."""
    setup: dict[Recipe, str] = {}
    for candidate in sorted(candidates, key=lambda c: c.committed_at, reverse=True):
        setup.setdefault(recipes[candidate.base_commit], candidate.base_commit)
    return setup


def limits_from(options: dict[str, Any], usable_since: str | None = None) -> Limits:
    """The mining limits a build's options give (`since` defaults to `DEFAULT_SINCE`; never before the source's
    `usable_since`)."""
    sizes = {k: int(options[k]) for k in ("max_files", "max_hunks", "max_commits") if k in options}
    since = max(filter(None, [str(options.get("since", DEFAULT_SINCE)), usable_since]), default=None)
    return Limits(**sizes, since=since)


class SweBuilder:
    """Builds issue-repair tasks from a git repository (`source` option: a local path or shallow clone, a clone
    URL, a git bundle, or the scripted sample `data/samples/swe/calc_history.py`). The default source is
    the shipped history of a real library, `data/samples/swe/tomlkit.bundle`.

    Options: `source`, `since` (ISO date; default `DEFAULT_SINCE`), `issues` (issues export), `repeats`
    (runs with the solution, at least 3), `max_files`, `max_hunks`, `max_commits`, `test_timeout_s`.
    """

    family = "swe"
    name = "swe.git_history"
    version = "0.2.0"
    default_source = "swe/tomlkit.bundle"

    def build(self, item: PlanItem, context: BuildContext) -> Iterator[Task | Quarantined]:
        options = context.options
        if not options.get("source"):
            raise InputError("swe", "no repository given: pass `--source PATH_OR_URL` to `taskforge build swe`, "
                                    "or `--source swe=PATH_OR_URL` to a cycle")
        source = open_source(str(options["source"]), cache_root())
        report, candidates = mined(source.repo.git_dir, source.head, limits_from(options, source.usable_since),
                                   source.shallow_boundary)
        if context.first_index == 0:
            yield from (_quarantined(f"repo:{source.name}@{sha[:12]}", "the commit's parent is not in the shallow "
                                     "clone (deepen it with `git fetch --deepen N` to mine this change)", {})
                        for sha in report.boundary)
        chosen = candidates[context.first_index:context.first_index + item.quota]
        recipes = recipes_for(source, candidates)
        setup = setup_commits(candidates, recipes)
        issues = issues_for(source, options.get("issues"))
        records: dict[Recipe, EnvironmentRecord] = {}
        for candidate in chosen:
            where = f"repo:{source.name}@{candidate.fix_commit[:12]}"
            recipe = recipes[candidate.base_commit]
            try:
                if recipe not in records:
                    records[recipe] = build_environment(source.name, setup[recipe], recipe,
                                                        ensure_snapshot(source, setup[recipe]),
                                                        declared_at(source.repo, setup[recipe], recipe.python))
                yield self._task(source, candidate, records[recipe], issues, item, context)
            except (GitError, git.GitCommandError) as exc:
                yield _quarantined(where, f"git could not read this change: {exc}", {})

    def _task(self, source: SourceRepository, candidate: Candidate, record: EnvironmentRecord,
              issues: dict[int, Issue], item: PlanItem, context: BuildContext) -> Task | Quarantined:
        options = context.options
        where = f"repo:{source.name}@{candidate.fix_commit[:12]}"
        version = version_at(source.repo, candidate.base_commit)
        if not record.ok:
            return _quarantined(where, f"the environment of {source.name} at {record.setup_commit[:12]} did not "
                                       f"build after {record.attempts} attempt(s) (stage {record.failed_stage})",
                                {"log_tail": record.log_tail, "recipe": record.recipe, "version": version})
        repeats = max(DEFAULT_REPEATS, int(options.get("repeats", DEFAULT_REPEATS)))
        snapshot = ensure_snapshot(source, candidate.base_commit)
        test_patch = candidate.diff.test_patch
        targets = held_out_targets(test_patch, line_counts(snapshot, [f.old_path for f in split_files(test_patch)]))
        grader = {"harness": "swe", "log_parser": record.recipe["log_parser"], "test_files": targets,
                  "timeout_s": float(options.get("test_timeout_s", DEFAULT_TEST_TIMEOUT_S)), "repeats": repeats}
        environment: dict[str, Any] = {
            "snapshot": snapshot_path(source.name, candidate.base_commit), "env": record.env_path,
            "python": record.python, "network": False, "time_budget_s": TIME_BUDGET_S,
            "env_ready": record.ready, "build": {"key": record.key, "attempts": record.attempts},
            **({"image": record.image} if record.image else {}),
        }
        try:
            recipe, outcomes = _harvest_runs(record.recipe, grader, environment, candidate, repeats)
        except BedError as exc:
            return _quarantined(where, str(exc), {"version": version})
        if not outcomes.solution_applied:
            return _quarantined(where, "the solution patch does not apply over the test patch", {"version": version})
        harvested = harvest(outcomes.empty.statuses, [run.statuses for run in outcomes.solution])
        environment["harvest"] = {**outcomes.summary(), "flaky": harvested.flaky,
                                  "FAIL_TO_FAIL": harvested.fail_to_fail, "PASS_TO_FAIL": harvested.pass_to_fail}
        patch, test_patch = candidate.diff.patch, candidate.diff.test_patch
        needed = new_interface(patch, test_patch, names_in_tree(snapshot, patch_names(patch, test_patch, snapshot)),
                               snapshot)
        interface = {name: interface_specs(patch, needed).get(name, []) for name in needed}
        read_base = partial(text_in_tree, snapshot)
        expected = hidden_test_expectations(test_patch, read_base, harvested.fail_to_pass)
        about = touched_tests(test_patch, read_base, harvested.fail_to_pass)
        symptoms = [Symptom(test, outcomes.empty.shown_by(test), tuple(expected.get(test, ())))
                    for test in shown_tests(harvested.fail_to_pass, about, MAX_SYMPTOMS)]
        statement = problem_statement(candidate.message, issues, patch + test_patch, source.name,
                                      candidate.first_commit_at, instance_id(source.name, candidate),
                                      current_agents(), symptoms, interface, expected)
        environment["statement_rewrite"] = {"status": statement.rewrite, "reason": statement.rewrite_reason}
        payload = payload_for(source.name, candidate, statement, version, record.setup_commit, recipe, harvested)
        payload["source"] = {"kind": "repository", "license": repository_licence(source.repo, candidate.base_commit)}
        return Task(
            task_id=task_id_for(self.family, KIND, payload), family=self.family, kind=KIND,
            capability=item.capability, prompt=prompt_for(source.name, candidate, statement), payload=payload,
            reference={"patch": patch, "test_patch": test_patch, "fix_commit": candidate.fix_commit,
                       "fix_message": candidate.message},
            grader=grader, environment=environment,
            lineage=Lineage(cycle_id=context.cycle_id, gap_ids=item.gap_ids, resource_id=f"repo:{source.name}",
                            resource_revision=source.head, builder=self.name, builder_version=self.version),
        )


def _harvest_runs(recipe: dict[str, Any], grader: dict[str, Any], environment: dict[str, Any], candidate: Candidate,
                  repeats: int) -> tuple[dict[str, Any], Outcomes]:
    """The harvest runs of a candidate (from the run cache or one sandbox session), with the recipe's
    environment or, when the project does not install at this commit, with the recipe the repair rules revise
    from the install log; returns the recipe that ran too."""

    def runs(with_recipe: dict[str, Any]) -> Outcomes:
        bed = TaskBed.of({"environment_recipe": with_recipe}, grader, environment)
        return cached_runs(bed, candidate.diff.patch, candidate.diff.test_patch, repeats, label="swe-harvest")

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
