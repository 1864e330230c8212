"""MLE reference check: intact files, answers consistent with the public files and the grader, and the leaderboard,
its thresholds and its best baseline as the baselines give them when run again (`rederive.py`)."""

from __future__ import annotations

import hashlib

from taskforge.graders.mle.grading import MIN_LEADERBOARD, frame_from_csv, grade, reaches
from taskforge.schemas import Task, ValidationResult
from taskforge.schemas.mle import MleGrader, MlePayload, MleReference
from taskforge.validators.mle.rederive import (LeaderboardUnavailable, RederivedLeaderboard, rederived_grader,
                                               rederived_leaderboard)

SCORE_TOLERANCE = 1e-5
"""Scores are kept to five decimals: a re-run score this close to the recorded one is the same score."""


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


def _answer_problems(task: Task) -> list[str]:
    """What the stored private answers give must be what the task states: the answer ids are the public test ids
    (and the sample submission's), every label is one of the grader's classes, and the classes are the labels
    train and answers hold."""
    payload, grader = MlePayload.of(task), MleGrader.of(task)
    answers = frame_from_csv(MleReference.of(task).answers, "answers")
    train, test = frame_from_csv(payload.files.train, "train.csv"), frame_from_csv(payload.files.test, "test.csv")
    sample = frame_from_csv(payload.files.sample_submission, "sample_submission.csv")
    problems = [f"the answers have no {column!r} column" for column in (grader.id_column, grader.target_column)
                if column not in answers.columns]
    if problems:
        return problems
    ids = answers[grader.id_column].to_list()
    if len(set(ids)) != len(ids):
        problems.append("the answers repeat ids")
    for name, frame in (("test.csv", test), ("sample_submission.csv", sample)):
        if grader.id_column in frame.columns and set(frame[grader.id_column].to_list()) != set(ids):
            problems.append(f"the answer ids are not the ids of {name}")
    if grader.classes:
        labels = set(answers[grader.target_column].to_list()) | set(train[grader.target_column].to_list())
        if labels != set(grader.classes):
            problems.append(f"the grader's classes {sorted(grader.classes)} are not the labels of train and the "
                            f"answers {sorted(labels, key=str)}")
    return problems


def _same(left: float, right: float) -> bool:
    return abs(left - right) <= SCORE_TOLERANCE


def _leaderboard_problems(task: Task, board: RederivedLeaderboard) -> list[str]:
    """Stored leaderboard scores and thresholds that the re-run baselines do not give, and thresholds that do
    not separate or are out of order."""
    payload, grader = MlePayload.of(task), MleGrader.of(task)
    lower = grader.is_lower_better
    if len(payload.leaderboard) < MIN_LEADERBOARD:
        return [f"the leaderboard has {len(payload.leaderboard)} entries, fewer than {MIN_LEADERBOARD}"]
    problems = []
    for entry in payload.leaderboard:
        again = board.scores.get(entry.entry)
        if again is None:
            problems.append(f"baseline {entry.entry} fails when run again: {board.errors.get(entry.entry, 'no output')}")
        elif not _same(again, entry.score):
            problems.append(f"baseline {entry.entry} scores {again} when run again, the leaderboard records {entry.score}")
    derived = vars(board.thresholds)
    for where, stored in (("grader", grader.thresholds), ("payload", payload.thresholds)):
        if any(not _same(stored.model_dump()[k], v) for k, v in derived.items()):
            problems.append(f"the {where}'s thresholds {stored.model_dump()} are not the ones the re-run baselines "
                            f"give {derived}")
    order = [board.thresholds.gold, board.thresholds.silver, board.thresholds.bronze, board.thresholds.median]
    if not all(reaches(better, worse, lower) for better, worse in zip(order, order[1:])):
        problems.append(f"thresholds out of order for {'lower' if lower else 'higher'}-is-better: {derived}")
    if board.thresholds.gold == board.thresholds.median:
        problems.append("the leaderboard does not separate: the gold threshold equals the median "
                        "(the baselines found no signal)")
    return problems


def _best_submission_problems(task: Task, board: RederivedLeaderboard) -> list[str]:
    """The best baseline's submission must be valid, be the re-run leaderboard's best, score what it scores,
    and reach the re-derived gold threshold."""
    reference = MleReference.of(task)
    report = grade(reference.best_submission, task.reference, rederived_grader(task))
    if not report.valid_submission:
        return [f"the best baseline's submission is invalid: {report.message}"]
    problems = []
    best, best_score = board.best, board.scores[board.best]
    if reference.best_entry != best or not _same(reference.best_score, best_score) \
            or not _same(report.score, best_score):
        problems.append(f"the re-run leaderboard's best is {best} at {best_score}; the reference names "
                        f"{reference.best_entry} at {reference.best_score}, whose submission regrades to {report.score}")
    if not report.gold_medal:
        problems.append(f"the best baseline's score {report.score} does not reach the gold threshold "
                        f"{report.gold_threshold}")
    return problems


class MleReferenceCheck:
    """Fails a competition whose files changed, whose answers disagree with its public files and grader, whose
    stored leaderboard and thresholds are not what its baselines give when run again (or whose baselines cannot
    be graded again at all, as when the answers name ids the test file does not hold), or whose best baseline
    is not the re-run leaderboard's best."""

    name = "mle_reference"

    def applies_to(self, task: Task) -> bool:
        return task.family == "mle"

    def run(self, task: Task) -> ValidationResult:
        problems = _checksum_problems(task) + _answer_problems(task)
        try:
            board = rederived_leaderboard(task)
        except LeaderboardUnavailable as error:
            problems.append(f"the leaderboard cannot be derived again: {error}")
            return ValidationResult(check=self.name, passed=False, score=0.0, reason="; ".join(problems),
                                    detail={"problems": problems})
        problems += _leaderboard_problems(task, board) + _best_submission_problems(task, board)
        return ValidationResult(check=self.name, passed=not problems, score=board.scores[board.best],
                                reason="; ".join(problems) or None,
                                detail={"problems": problems, "thresholds": vars(board.thresholds),
                                        "scores": board.scores, "runs_cached": board.cached})
