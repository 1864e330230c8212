"""MLE reference check: intact files, a consistent leaderboard, and the best baseline regraded as recorded."""

from __future__ import annotations

import hashlib

from taskforge.graders.mle.grading import MIN_LEADERBOARD, grade, reaches, thresholds_from_leaderboard
from taskforge.schemas import Task, ValidationResult
from taskforge.schemas.mle import MleGrader, MlePayload, MleReference


def _checksum_problems(task: Task) -> list[str]:
    """Files whose content no longer matches the checksum recorded when the competition was prepared."""
    payload, reference = MlePayload.of(task), MleReference.of(task)
    files = {f"public/{name}": text for name, text in payload.files.by_name().items()}
    files["private/answers.csv"] = reference.answers
    recorded = {**payload.checksums, **reference.checksums}
    problems = [f"{name}: no such file" for name in recorded if name not in files]
    problems += [f"{name}: content does not match its checksum" for name, digest in recorded.items()
                 if name in files and hashlib.sha256(files[name].encode("utf-8")).hexdigest() != digest]
    problems += [f"{name}: no checksum recorded" for name in files if name not in recorded]
    return problems


def _leaderboard_problems(task: Task) -> list[str]:
    """A leaderboard too small, thresholds not derived from it, or thresholds out of order."""
    payload, grader = MlePayload.of(task), MleGrader.of(task)
    lower = grader.is_lower_better
    entries = payload.leaderboard
    if len(entries) < MIN_LEADERBOARD:
        return [f"the leaderboard has {len(entries)} entries, fewer than {MIN_LEADERBOARD}"]
    problems = []
    derived = thresholds_from_leaderboard([e.score for e in entries], lower)
    if grader.thresholds.model_dump() != vars(derived) or payload.thresholds.model_dump() != vars(derived):
        problems.append(f"the thresholds {grader.thresholds.model_dump()} are not the ones the leaderboard gives "
                        f"{vars(derived)}")
    order = [derived.gold, derived.silver, derived.bronze, derived.median]
    if not all(reaches(better, worse, lower) for better, worse in zip(order, order[1:])):
        problems.append(f"thresholds out of order for {'lower' if lower else 'higher'}-is-better: {vars(derived)}")
    if derived.gold == derived.median:
        problems.append("the leaderboard does not separate: the gold threshold equals the median "
                        "(the baselines found no signal)")
    return problems


def _best_submission_problems(task: Task) -> list[str]:
    """The best baseline's submission must be valid, score what the leaderboard says, and reach gold."""
    reference = MleReference.of(task)
    report = grade(reference.best_submission, task.reference, task.grader)
    expected = reference.best_score
    top = MlePayload.of(task).leaderboard[0]
    if not report.valid_submission:
        return [f"the best baseline's submission is invalid: {report.message}"]
    problems = []
    if report.score != expected or top.score != expected or top.entry != reference.best_entry:
        problems.append(f"the best baseline {reference.best_entry} regrades to {report.score}, the "
                        f"leaderboard records {top.entry} at {top.score} and the reference {expected}")
    if not report.gold_medal:
        problems.append(f"the best baseline's score {report.score} does not reach the gold threshold "
                        f"{report.gold_threshold}")
    return problems


class MleReferenceCheck:
    """Fails a competition whose files changed, whose leaderboard and thresholds disagree, or whose best
    baseline does not regrade to its recorded score."""

    name = "mle_reference"

    def applies_to(self, task: Task) -> bool:
        return task.family == "mle"

    def run(self, task: Task) -> ValidationResult:
        problems = _checksum_problems(task) + _leaderboard_problems(task) + _best_submission_problems(task)
        return ValidationResult(check=self.name, passed=not problems, score=MleReference.of(task).best_score,
                                reason="; ".join(problems) or None, detail={"problems": problems})
