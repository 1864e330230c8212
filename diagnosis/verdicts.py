"""Verdicts from outside the trace: which episodes resolved their task, as an evaluation harness reported it.

SWE-agent, mini-swe-agent and OpenHands runs record what they submitted, not
whether it was right: the SWE-bench harness decides that later. A verdict file
gives that decision, matched to episodes by episode id, else by task (instance)
id. Understood files:

- a SWE-bench run report (`resolved_ids`, `unresolved_ids`, `error_ids`,
  `empty_patch_ids`, `completed_ids`/`submitted_ids`), or an experiments-style
  `results.json` (`{"resolved": [ids], ...}`);
- a per-instance `report.json` of the harness (`{instance_id: {"resolved": …}}`,
  or the flat `{"resolved": …}` named by its folder), the harness's per-instance
  `run_instance.log` (its `report: {…}` line), and a folder holding such files;
  their `tests_status` (which FAIL_TO_PASS and PASS_TO_PASS tests passed or failed)
  and whether the patch applied are kept with the verdict and carried onto the
  episode's outcome (`Outcome.tests`): the evidence of why a run failed;
- a JSON object `{id: true/false/score}`;
- JSON lines or CSV with an id column (`episode_id`, `instance_id`, `task_id` or
  `id`) and `resolved`/`success` (true/false) or `score` (full marks = resolved).

An evaluation error (`error_ids`) leaves the episode ungraded. A broken file
raises an InputError naming it; the same id with two different verdicts is
recorded as a conflict and the first verdict stands (a later file with the same
verdict and the per-test results the first lacked adds those results).
"""

from __future__ import annotations

import ast
import csv
import io
import json
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Iterable, Iterator

from taskforge.schemas import Episode, HarnessTests, InputError, Outcome, Quarantined

ID_KEYS = ("episode_id", "instance_id", "task_id", "id")
REPORT_LISTS = {"resolved_ids": True, "resolved": True, "unresolved_ids": False, "empty_patch_ids": False,
                "error_ids": None}
"""Run-report lists and the verdict each gives (None: the evaluation itself failed)."""
COMPLETED_LISTS = ("completed_ids", "submitted_ids")
TRUE_WORDS = {"true", "1", "yes", "resolved", "pass", "passed", "success"}
FALSE_WORDS = {"false", "0", "no", "unresolved", "fail", "failed", "failure"}
VERDICT_SUFFIXES = (".json", ".jsonl", ".csv")
HARNESS_LOG = "run_instance.log"
"""The SWE-bench harness's log of one instance's evaluation: its `report: {…}` line is the instance report."""
LOG_REPORT = re.compile(r"\breport: (\{.*?)\s*$", re.M)


@dataclass(frozen=True)
class Verdict:
    """One id's verdict: resolved (True/False; None when its evaluation errored), a score, and the file it came from."""

    key: str
    resolved: bool | None
    source: str
    score: float | None = None
    tests: HarnessTests | None = None


@dataclass
class Verdicts:
    """Verdicts by id, the files they came from, and the problems met while loading them."""

    by_key: dict[str, Verdict] = field(default_factory=dict)
    files: list[str] = field(default_factory=list)
    problems: list[Quarantined] = field(default_factory=list)

    def add(self, verdict: Verdict) -> None:
        """Keep the first verdict of an id; a different later one is recorded as a conflict, the same one adds
        the per-test results the first lacked."""
        kept = self.by_key.setdefault(verdict.key, verdict)
        if kept is not verdict and kept.resolved == verdict.resolved and kept.tests is None and verdict.tests:
            self.by_key[verdict.key] = replace(kept, tests=verdict.tests)
        elif kept is not verdict and kept.resolved != verdict.resolved:
            problem = InputError(f"{verdict.source}#{verdict.key}",
                                 f"conflicting verdict ({_word(verdict.resolved)}); {kept.source} says "
                                 f"{_word(kept.resolved)}, which stands")
            self.problems.append(Quarantined.from_error(problem, "verdicts", problem.source))

    def match(self, episode: Episode) -> Verdict | None:
        """The verdict of an episode: by its episode id, else by its task (instance) id."""
        return self.by_key.get(episode.episode_id) or self.by_key.get(episode.task_id)

    def __len__(self) -> int:
        return len(self.by_key)


def _word(resolved: bool | None) -> str:
    return "evaluation error" if resolved is None else "resolved" if resolved else "not resolved"


def load_verdicts(paths: Iterable[str | Path]) -> Verdicts:
    """Every verdict in the given files and folders; a broken file is recorded (quarantine) and the rest is read."""
    verdicts = Verdicts()
    for given in map(Path, paths):
        files = sorted(p for p in given.rglob("*") if p.is_file() and _verdict_file(p)) if given.is_dir() else [given]
        for path in files:
            name = path.name if path == given else f"{given.name}/{path.relative_to(given).as_posix()}"
            verdicts.files.append(name)
            try:
                for verdict in read_verdict_file(path, name):
                    verdicts.add(verdict)
            except InputError as exc:
                verdicts.problems.append(Quarantined.from_error(exc, "verdicts", name))
    return verdicts


def _verdict_file(path: Path) -> bool:
    """Whether a file in a verdict folder is read: JSON, JSON lines, CSV, and the harness's instance logs."""
    return path.suffix in VERDICT_SUFFIXES or path.name == HARNESS_LOG


def read_verdict_file(path: Path, name: str) -> Iterator[Verdict]:
    """The verdicts in one file, by its content (see the module docstring)."""
    try:
        text = path.read_text()
    except FileNotFoundError as exc:
        raise InputError(name, "no such verdict file") from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(name, f"cannot read the verdict file ({type(exc).__name__})") from exc
    stripped = text.lstrip()
    if not stripped:
        raise InputError(name, "empty verdict file")
    if path.name == HARNESS_LOG:
        yield from _harness_log(text, path, name)
        return
    if path.suffix == ".csv" or not stripped.startswith(("{", "[")):
        yield from _rows(csv.DictReader(io.StringIO(text)), name)
        return
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        yield from _rows(_json_lines(text, name), name)
        return
    if isinstance(data, list):
        yield from _rows(data, name)
    elif isinstance(data, dict) and (path.suffix == ".jsonl" or any(k in data for k in ID_KEYS)):
        yield from _rows([data], name)
    elif isinstance(data, dict):
        yield from _object(data, path, name)
    else:
        raise InputError(name, f"expected a JSON object or list of verdicts, found {type(data).__name__}")


def _harness_log(text: str, path: Path, name: str) -> Iterator[Verdict]:
    """The instance report a harness log printed (`report: {…}`, a Python literal); a log of an evaluation that
    never graded the instance (no report line) gives no verdict."""
    found = LOG_REPORT.findall(text)
    if not found:
        return
    try:
        report = ast.literal_eval(found[-1])
    except (ValueError, SyntaxError) as exc:
        raise InputError(name, f"the report line is not a readable literal ({type(exc).__name__})") from exc
    if not isinstance(report, dict):
        raise InputError(name, f"the report line holds a {type(report).__name__}, not a report")
    yield from _object(report, path, name)


def _json_lines(text: str, name: str) -> Iterator[dict[str, Any]]:
    """Records of a JSON-lines file; a broken line raises an InputError naming it."""
    for number, line in enumerate(text.splitlines(), start=1):
        if line.strip():
            try:
                yield json.loads(line)
            except json.JSONDecodeError as exc:
                raise InputError(f"{name}:{number}", f"not valid JSON ({exc.msg})") from exc


def _object(data: dict[str, Any], path: Path, name: str) -> Iterator[Verdict]:
    """A run report, a flat per-instance report, or a mapping of ids to verdicts."""
    lists = {key: data[key] for key in (*REPORT_LISTS, *COMPLETED_LISTS) if isinstance(data.get(key), list)}
    if lists:
        given: set[str] = set()
        for key, resolved in REPORT_LISTS.items():
            for instance in lists.get(key, []):
                given.add(str(instance))
                yield Verdict(str(instance), resolved, name)
        for key in COMPLETED_LISTS:
            for instance in lists.get(key, []):
                if str(instance) not in given and "resolved_ids" in lists:
                    given.add(str(instance))
                    yield Verdict(str(instance), False, name)
        return
    if "resolved" in data and not isinstance(data["resolved"], (dict, list)):
        yield _verdict_of(path.parent.name, data, name)
        return
    for key, value in data.items():
        if isinstance(value, dict):
            yield _verdict_of(str(key), value, name)
        else:
            yield _scored(str(key), value, name)


def _rows(rows: Iterable[Any], name: str) -> Iterator[Verdict]:
    """Records with an id column and a verdict column."""
    for number, row in enumerate(rows, start=1):
        if not isinstance(row, dict):
            raise InputError(f"{name}:{number}", f"expected a record, found {type(row).__name__}")
        key = next((str(row[k]) for k in ID_KEYS if row.get(k) not in (None, "")), None)
        if key is None:
            raise InputError(f"{name}:{number}", f"no id column (one of {', '.join(ID_KEYS)})")
        yield _verdict_of(key, row, f"{name}")


def _verdict_of(key: str, record: dict[str, Any], name: str) -> Verdict:
    """A verdict from a record's `resolved`/`success` or `score` field."""
    for field_name in ("resolved", "success", "is_correct"):
        if record.get(field_name) not in (None, ""):
            score = _number(record.get("score"))
            return Verdict(key, _resolved(record[field_name], f"{name}#{key}"), name, score, harness_tests(record))
    if record.get("score") not in (None, ""):
        return _scored(key, record["score"], name)
    raise InputError(f"{name}#{key}", "no verdict field (resolved, success or score)")


def harness_tests(report: dict[str, Any]) -> HarnessTests | None:
    """The per-test results of a harness instance report (`tests_status`, `patch_successfully_applied`), if any."""
    status = report.get("tests_status")
    applied = report.get("patch_successfully_applied")
    if not isinstance(status, dict) and not isinstance(applied, bool):
        return None
    status = status if isinstance(status, dict) else {}

    def names(group: str, side: str) -> list[str]:
        part = status.get(group)
        values = part.get(side) if isinstance(part, dict) else None
        return [str(v) for v in values] if isinstance(values, list) else []

    return HarnessTests(fail_to_pass_failed=names("FAIL_TO_PASS", "failure"),
                        fail_to_pass_passed=names("FAIL_TO_PASS", "success"),
                        pass_to_pass_failed=names("PASS_TO_PASS", "failure"),
                        pass_to_pass_passed=names("PASS_TO_PASS", "success"),
                        patch_applied=applied if isinstance(applied, bool) else None)


def _scored(key: str, value: Any, name: str) -> Verdict:
    """A bare value as a verdict: a boolean or word, else a score where full marks (1.0) resolve."""
    if isinstance(value, bool) or str(value).strip().lower() in TRUE_WORDS | FALSE_WORDS:
        return Verdict(key, _resolved(value, f"{name}#{key}"), name)
    score = _number(value)
    if score is None:
        raise InputError(f"{name}#{key}", f"verdict {value!r} is neither true/false nor a score")
    return Verdict(key, score >= 1.0, name, score)


def _resolved(value: Any, where: str) -> bool:
    """A true/false field, written as a boolean, a number or a word."""
    if isinstance(value, bool):
        return value
    word = str(value).strip().lower()
    if word in TRUE_WORDS or word not in FALSE_WORDS and _number(value) == 1.0:
        return True
    if word in FALSE_WORDS or _number(value) == 0.0:
        return False
    raise InputError(where, f"verdict {value!r} is not true/false")


def _number(value: Any) -> float | None:
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def graded_by(episode: Episode, verdict: Verdict) -> Episode:
    """The episode with the verdict as its outcome.

    Resolved: a success. Not resolved: a failure, the model's unless the run itself
    broke (an infrastructure exit stays the infrastructure's). An evaluation error:
    ungraded, since nothing says whether the submission was right. The harness's
    per-test results, when the verdict has them, go with it (`Outcome.tests`).
    """
    before = episode.outcome
    detail = f"{before.detail + '; ' if before.detail else ''}verdict from {verdict.source}: {_word(verdict.resolved)}"
    if verdict.resolved is None:
        outcome = Outcome(score=None, success=False, graded=False, failure_origin="none", detail=detail)
    elif verdict.resolved:
        outcome = Outcome(score=verdict.score if verdict.score is not None else 1.0, success=True,
                          failure_origin="none", detail=detail, tests=verdict.tests)
    else:
        origin = "infrastructure" if before.failure_origin == "infrastructure" else "model"
        outcome = Outcome(score=verdict.score if verdict.score is not None else 0.0, success=False,
                          failure_origin=origin, detail=detail, tests=verdict.tests)
    return episode.model_copy(update={"outcome": outcome,
                                      "metadata": {**episode.metadata, "verdict_source": verdict.source}})


def unmatched(verdicts: Verdicts, matched: set[str], without_verdict: list[tuple[str, str]]) -> list[Quarantined]:
    """Records of both sides left unmatched: verdict ids no episode took, and ungraded episodes no verdict named
    (`without_verdict` holds (episode id, source file) pairs)."""
    records = [Quarantined.from_error(InputError(f"{v.source}#{key}", f"verdict for {key} matches no episode read"),
                                      "verdicts", f"{v.source}#{key}")
               for key, v in sorted(verdicts.by_key.items()) if key not in matched]
    records += [Quarantined.from_error(InputError(source, f"no verdict names episode {episode_id}; it stays ungraded"),
                                       "verdicts", f"{source}#{episode_id}")
                for episode_id, source in without_verdict]
    return records
