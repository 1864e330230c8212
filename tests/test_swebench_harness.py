"""The official SWE-bench harness (swebench from PyPI, in `.venv-swebench`: `make swebench-venv`) evaluates what
`taskforge export swebench` writes, run exactly as users are told to (`python -m taskforge.sandbox.swebench_harness`,
swebench's own command line): gold predictions resolve every instance, empty and no-op predictions none, and every
container the harness started had no network. About a minute warm (SWE tasks built and checked in the process
sandbox, instance images built once)."""

from __future__ import annotations

import json
import subprocess
import time
import uuid
from pathlib import Path

import docker
import pytest

from taskforge import sandbox
from taskforge.flows.cli import main
from taskforge.store.layout import DataDir
from conftest import REPO
from factories import land_validated, swe_tasks

SWEBENCH_PYTHON = REPO / ".venv-swebench" / "bin" / "python"
LAUNCHER = "taskforge.sandbox.swebench_harness"
NOOP_PATCH = """diff --git a/NOTES.md b/NOTES.md
new file mode 100644
--- /dev/null
+++ b/NOTES.md
@@ -0,0 +1 @@
+Nothing in the code changes.
"""
"""A prediction that applies everywhere and repairs nothing."""

pytestmark = pytest.mark.docker


@pytest.fixture(scope="module")
def exported(tmp_path_factory, docker_engine) -> tuple[Path, list[dict], set[str]]:
    """The sample history's SWE tasks built, checked and landed (process sandbox), then exported by the CLI with
    their instance images: the run folder, the instances and the ids of the accepted tasks."""
    assert SWEBENCH_PYTHON.exists(), "the SWE-bench harness is installed apart: run `make swebench-venv`"
    root = tmp_path_factory.mktemp("swebench")
    data = DataDir(root / "data")
    with pytest.MonkeyPatch.context() as patch:
        chosen = sandbox.get_sandbox("process")
        patch.setattr(sandbox, "default_sandbox", lambda: chosen)
        decided = land_validated(data, swe_tasks(5))
    out = root / "instances.jsonl"
    assert main(["export", "swebench", "--out", str(out), "--data-dir", str(data.root), "--json"]) == 0
    accepted = {task.payload["instance_id"] for task in decided if task.status == "accepted"}
    assert 2 <= len(accepted) < len(decided), "the sample history has accepted and rejected candidates"
    return root, [json.loads(line) for line in out.read_text().splitlines()], accepted


def harness(client: docker.DockerClient, root: Path, predictions: str, kind: str) -> tuple[str, dict, dict]:
    """Run the harness through the launcher on the exported file (a run id of its own: the harness replaces any
    container of the same name); the run id, its run report and, for each container it created, the networks the
    engine connected it to."""
    run_id = f"{kind}-{uuid.uuid4().hex[:8]}"
    started = int(time.time())
    run = subprocess.run([str(SWEBENCH_PYTHON), "-m", LAUNCHER, "--dataset_name", str(root / "instances.jsonl"),
                          "--predictions_path", predictions, "--run_id", run_id, "--max_workers", "2",
                          "--timeout", "300"], cwd=root, capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    (report,) = root.glob(f"*.{run_id}.json")
    networks: dict[str, list[str]] = {}
    for event in client.events(since=started, until=int(time.time()) + 1, decode=True):
        attributes = event["Actor"]["Attributes"]
        if event["Type"] == "container" and event["Action"] == "create" and run_id in attributes["name"]:
            networks[event["Actor"]["ID"]] = []
        elif event["Type"] == "network" and event["Action"] == "connect" and attributes["container"] in networks:
            networks[attributes["container"]].append(attributes["name"])
    return run_id, json.loads(report.read_text()), networks


def run_logs(root: Path, run_id: str) -> str:
    """The end of every instance log of a run (what an assertion shows when an instance is not resolved)."""
    logs = sorted((root / "logs" / "run_evaluation" / run_id).glob("*/*/run_instance.log"))
    return "\n".join(f"{log.parent.name}: ...{log.read_text()[-1500:]}" for log in logs)


def predictions_file(root: Path, instances: list[dict], patch: str, model: str) -> str:
    """A predictions file giving every instance `patch`."""
    path = root / f"{model}.jsonl"
    path.write_text("".join(json.dumps({"instance_id": instance["instance_id"], "model_name_or_path": model,
                                        "model_patch": patch}) + "\n" for instance in instances))
    return str(path)


def test_the_export_holds_the_accepted_tasks_with_their_images(exported, docker_engine):
    _, instances, accepted = exported
    assert {instance["instance_id"] for instance in instances} == accepted
    for instance in instances:
        docker_engine.images.get(instance["image"])
        assert instance["image_name"] == instance["image"] and instance["log_parser"] == "parse_log_pytest"


def test_gold_predictions_resolve_every_instance_with_the_network_off(exported, docker_engine):
    root, instances, accepted = exported
    run_id, report, networks = harness(docker_engine, root, "gold", "gold")
    assert report["resolved_ids"] == report["completed_ids"] == sorted(accepted), run_logs(root, run_id)
    assert report["error_ids"] == report["unresolved_ids"] == report["empty_patch_ids"] == []
    for instance in instances:
        path = root / "logs" / "run_evaluation" / run_id / "gold" / instance["instance_id"] / "report.json"
        verdict = json.loads(path.read_text())[instance["instance_id"]]
        assert verdict["resolved"] is True and verdict["patch_successfully_applied"] is True
        assert verdict["tests_status"]["FAIL_TO_PASS"] == {"success": json.loads(instance["FAIL_TO_PASS"]),
                                                           "failure": []}
    assert len(networks) == len(accepted), "one container per instance"
    assert all(connected == ["none"] for connected in networks.values()), networks


def test_empty_and_no_op_predictions_resolve_none(exported, docker_engine):
    root, instances, accepted = exported
    _, empty, _ = harness(docker_engine, root, predictions_file(root, instances, "", "empty"), "empty")
    assert empty["resolved_ids"] == empty["completed_ids"] == [] and empty["empty_patch_ids"] == sorted(accepted)
    _, noop, networks = harness(docker_engine, root, predictions_file(root, instances, NOOP_PATCH, "noop"), "noop")
    assert noop["resolved_ids"] == [] and noop["error_ids"] == []
    assert noop["unresolved_ids"] == noop["completed_ids"] == sorted(accepted), "the tests ran and failed"
    assert all(connected == ["none"] for connected in networks.values()) and len(networks) == len(accepted)
