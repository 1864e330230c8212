"""The SWE family's reward entry: a reply's unified diff, graded like the reference check grades the solution —
applied to the task's base commit, the held-out test patch over it, the test files run with network off,
SWE-bench's FULL resolution as 1 or 0.

The tests run in one of two places, the same way:
- the task's **instance image** (`taskforge export swebench` builds it), when a docker
  engine has it: the eval script the SWE-bench harness runs, after the reply's diff is
  applied in `/testbed`. This is what the small reward install (`taskforge-reward`) uses on
  a trainer machine; it needs the docker SDK (`taskforge-reward[swe]`) and the image.
- else the **sandbox** over the task's snapshot and environment in the SWE cache
  (`$TASKFORGE_SWE_CACHE`) of the machine that built the task, as the validators ran them
  (the full taskforge install).
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import PurePosixPath
from typing import Any

from taskforge.errors import TaskforgeError
from taskforge.graders.base import decoded
from taskforge.graders.replies import DiffReply
from taskforge.graders.swe.eval_script import PATCH_REFUSED, eval_script, image_name, submission_script, test_output
from taskforge.graders.swe.grading import LOG_PARSERS, StatusMap, grade

IMAGE_RUN_TIMEOUT_S = 900.0
IMAGE_MEMORY = "2g"


class SweRewardUnavailable(TaskforgeError):
    """Neither the task's instance image nor the sandbox and SWE cache are here to run its tests."""


def instance_image(payload: dict[str, Any], environment: dict[str, Any]) -> str:
    """The instance image of a task: named by its instance id, snapshot and environment (both content ids)."""
    snapshot, env = PurePosixPath(environment["snapshot"]).name, PurePosixPath(environment["env"]).parent.name
    return image_name(payload["instance_id"], f"{snapshot}-{env}")


def task_eval_script(payload: dict[str, Any], reference: dict[str, Any], grader: dict[str, Any]) -> str:
    """The eval script of a task (its held-out test patch and test files, its recipe)."""
    return eval_script(payload["base_commit"], reference["test_patch"], list(grader["test_files"]),
                       payload["environment_recipe"])


@lru_cache(maxsize=1)
def _docker_client() -> Any:
    """A docker client when the docker SDK is installed and an engine answers, else None (asked once per
    process)."""
    try:
        import docker
    except ImportError:
        return None
    try:
        client = docker.from_env()
        client.ping()
    except docker.errors.DockerException:
        return None
    return client


def _has_image(client: Any, image: str) -> bool:
    import docker

    try:
        client.images.get(image)
    except docker.errors.ImageNotFound:
        return False
    return True


def run_in_image(image: str, script: str, timeout_s: float) -> tuple[int | None, str]:
    """Run a bash script in a fresh container of `image` (network off, memory and process limits), removed
    afterwards; returns its exit code (None on timeout) and its output. Through `taskforge.sandbox` when it is
    installed, else through the docker SDK."""
    try:
        from taskforge import sandbox
    except ImportError:
        return _run_with_sdk(image, script, timeout_s)
    job = sandbox.Job(command=("bash", "-c", script), image=image, network=False, timeout_s=timeout_s,
                      memory_mb=2048, pids=512, label="swe-reward-image")
    result = sandbox.get_sandbox("docker").run(job)
    if result.infrastructure_error:
        raise SweRewardUnavailable(f"the instance image {image} did not run: {result.infrastructure_error}")
    return (None if result.timed_out else result.exit_code), result.stdout + "\n" + result.stderr


def _run_with_sdk(image: str, script: str, timeout_s: float) -> tuple[int | None, str]:
    import requests

    client = _docker_client()
    if client is None:
        raise SweRewardUnavailable("no docker engine answers: the SWE reward runs the task's instance image")
    container = client.containers.run(image, ["bash", "-c", script], detach=True, network_mode="none",
                                      mem_limit=IMAGE_MEMORY, memswap_limit=IMAGE_MEMORY, pids_limit=512,
                                      security_opt=["no-new-privileges"], init=True)
    try:
        try:
            code = container.wait(timeout=timeout_s)["StatusCode"]
        except requests.exceptions.RequestException:
            container.kill()
            code = None
        return code, container.logs(stdout=True, stderr=True).decode("utf-8", errors="replace")
    finally:
        container.remove(force=True)


class SweScorer:
    """Grades a reply's diff against the held-out tests of the task; an empty diff is the empty patch."""

    reader = DiffReply()

    def score(self, solution: str, reference: dict[str, Any], grader: dict[str, Any],
              extra_info: dict[str, Any]) -> float:
        payload, environment = decoded(extra_info.get("payload")), decoded(extra_info.get("environment"))
        image = instance_image(payload, environment)
        client = _docker_client()
        if client is not None and _has_image(client, image):
            statuses = self._image_statuses(image, solution, payload, reference, grader)
        else:
            statuses = self._sandbox_statuses(image, solution, payload, reference, grader, environment)
        if statuses is None:
            return 0.0
        return grade(statuses, payload["FAIL_TO_PASS"], payload["PASS_TO_PASS"]).score

    def _image_statuses(self, image: str, solution: str, payload: dict[str, Any], reference: dict[str, Any],
                        grader: dict[str, Any]) -> StatusMap | None:
        """The test statuses after the submission, in the instance image (None: it did not apply, or timed out)."""
        script = submission_script(solution, task_eval_script(payload, reference, grader))
        timeout = float(grader.get("timeout_s", 300.0)) + 120.0
        code, log = run_in_image(image, script, min(timeout, IMAGE_RUN_TIMEOUT_S))
        if code in (None, PATCH_REFUSED):
            return None
        return LOG_PARSERS[payload["environment_recipe"]["log_parser"]](test_output(log))

    def _sandbox_statuses(self, image: str, solution: str, payload: dict[str, Any], reference: dict[str, Any],
                          grader: dict[str, Any], environment: dict[str, Any]) -> StatusMap | None:
        """The test statuses after the submission, in the sandbox over the SWE cache (None: it did not apply)."""
        try:
            # the full install's path: the sandbox and the SWE cache are not part of the small reward install
            from taskforge.graders.swe.harness import TaskBed, grading_session
        except ImportError:
            raise SweRewardUnavailable(f"the SWE reward needs the task's instance image {image} on a docker engine "
                                       "(build it with `taskforge export swebench`)") from None
        test_patch = reference["test_patch"]
        bed = TaskBed.of(payload, grader, environment)
        patches = {"test": test_patch, **({"submission": solution} if solution.strip() else {})}
        with grading_session(bed, patches, label="swe-reward") as live:
            if not live.submit("test", test_patch, "submission" if "submission" in patches else None):
                return None
            return live.run_tests().statuses

    def reference_submission(self, reference: dict[str, Any], grader: dict[str, Any]) -> str:
        return reference["patch"]

    def noop_submissions(self, grader: dict[str, Any]) -> list[str]:
        return [""]
