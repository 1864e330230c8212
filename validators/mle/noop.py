"""MLE no-op check: submitting the sample submission unchanged must not beat the median of the leaderboard as its
baselines give it when run again."""

from __future__ import annotations

from taskforge.graders.mle.grading import grade
from taskforge.schemas import Task, ValidationResult
from taskforge.schemas.mle import MlePayload
from taskforge.validators.mle.rederive import rederived_grader


class MleNoOpCheck:
    """Grades the public sample submission; it must be valid, win no medal and score at or below the median."""

    name = "mle_noop"

    def applies_to(self, task: Task) -> bool:
        return task.family == "mle"

    def run(self, task: Task) -> ValidationResult:
        report = grade(MlePayload.of(task).files.sample_submission, task.reference, rederived_grader(task))
        if not report.valid_submission:
            reason = f"the sample submission is not a valid submission: {report.message}"
        elif report.any_medal:
            reason = f"the sample submission wins a medal (score {report.score}, gold at {report.gold_threshold})"
        elif report.above_median:
            reason = (f"the sample submission scores {report.score}, beyond the median threshold "
                      f"{report.median_threshold}")
        else:
            reason = None
        return ValidationResult(check=self.name, passed=reason is None, score=report.score, reason=reason,
                                detail={"report": report.to_dict()})
