"""Each workspace family's workspace as its solver sees it, and where its submission is read back.

- swe: `repo/` (the task's snapshot at the base commit, its git history
  holding nothing past it) with the repository version's environment at
  `env/` (first on PATH; bound read-only when prepared, else copied and the
  project installed into it when the workspace opens). The submission is the
  diff of the repository against the base commit, new files included.
- mle: the public files under `data/` (description, train, test, sample
  submission), the task's Python environment (`science`: numpy, pandas,
  scikit-learn) first on PATH. The submission is the CSV written to the task's
  `submission_path`.
- workflow: the input files under `inputs/`, an empty `outputs/`. The
  submission is every file under `outputs/` as a JSON mapping of paths to text
  (what the workflow reward grades).

Nothing hidden (reference, held-out tests, private answers, grader program) is
ever staged.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from taskforge.graders.swe.harness import (ENV_DIR, PATCH_DIR, REPO_DIR, TaskBed, install_command, python_env,
                                           shared_env, stage_workspace)
from taskforge.graders.workflow.deliverables import write_tree
from taskforge.sandbox.api import WORKSPACE
from taskforge.schemas.mle import MlePayload
from taskforge.schemas.swe import SwePayload
from taskforge.schemas.workflow import OUTPUTS, WorkflowPackage
from taskforge.tools.base import ToolEnvironmentError
from taskforge.tools.workspace import WorkspaceEnvironment

SUBMISSION_DIFF = ".taskforge-submission.diff"
MLE_DATA_DIR, MLE_SUBMISSION = "data", "submission/submission.csv"
MLE_PYTHON_ENV = "science"


class SweWorkspace(WorkspaceEnvironment):
    """A SWE task's repository at its base commit, with its environment."""

    family = "swe"
    workdir = REPO_DIR

    def __init__(self, payload: dict[str, Any], environment: dict[str, Any], label: str, **limits: Any):
        super().__init__(label, **limits)
        self.instance = SwePayload.parse(payload, "swe")
        self.bed = TaskBed.of(payload, {}, environment, test_files=())
        if not self.bed.snapshot.is_dir() or not self.bed.env.is_dir():
            raise ToolEnvironmentError(f"{label}: the task's snapshot or environment is missing from the SWE cache "
                                       "($TASKFORGE_SWE_CACHE); build the task on this machine first")

    def stage(self, folder: Path) -> None:
        stage_workspace(self.bed, {}, folder)
        shutil.rmtree(folder / PATCH_DIR)

    def mounts(self) -> tuple[tuple[str, str], ...]:
        return ((str(shared_env(self.bed.env)), f"{WORKSPACE}/{ENV_DIR}"),) if self.bed.ready else ()

    def variables(self) -> tuple[tuple[str, str], ...]:
        return python_env(self.bed.recipe)

    def path_first(self) -> str | None:
        return f"{WORKSPACE}/{ENV_DIR}/bin"

    def setup(self) -> str | None:
        command = None if self.bed.ready else install_command(self.bed.recipe)
        return command.replace(f"cd {REPO_DIR} && ", "", 1) if command else None

    def collect(self) -> str:
        """The diff of the repository (new files included, install metadata left out) against the base commit."""
        script = (f"git add -A -- . ':(exclude)*.egg-info' && "
                  f"git diff --cached {self.instance.base_commit} > ../{SUBMISSION_DIFF}")
        result = self.execute(script, 60.0)
        if not result.ok:
            return ""
        return self.read_text(SUBMISSION_DIFF) or ""


class MleWorkspace(WorkspaceEnvironment):
    """An MLE competition's public files, with the science environment."""

    family = "mle"

    def __init__(self, payload: dict[str, Any], environment: dict[str, Any], label: str, **limits: Any):
        super().__init__(label, **limits)
        self.files = MlePayload.parse(payload, "mle").files.by_name()
        self.data_dir = str(environment.get("data_dir") or MLE_DATA_DIR)
        self.submission_path = str(environment.get("submission_path") or MLE_SUBMISSION)
        self.python_env = str(environment.get("python_env") or MLE_PYTHON_ENV)

    def stage(self, folder: Path) -> None:
        write_tree(str(folder), {f"{self.data_dir}/{name}": text for name, text in self.files.items()})
        (folder / self.submission_path).parent.mkdir(parents=True, exist_ok=True)

    def collect(self) -> str:
        return self.read_text(self.submission_path) or ""


class WorkflowWorkspace(WorkspaceEnvironment):
    """A workflow task's input files and an empty outputs folder."""

    family = "workflow"

    def __init__(self, payload: dict[str, Any], label: str, **limits: Any):
        super().__init__(label, **limits)
        self.inputs = WorkflowPackage.parse(payload, "workflow").inputs

    def stage(self, folder: Path) -> None:
        write_tree(str(folder), self.inputs)
        (folder / OUTPUTS).mkdir(exist_ok=True)

    def collect(self) -> str:
        files = self.read_folder(OUTPUTS)
        return json.dumps({f"{OUTPUTS}/{path}": text for path, text in files.items()}, ensure_ascii=False)
