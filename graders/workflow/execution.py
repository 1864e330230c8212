"""Running a workflow task's reference workflow in the sandbox, network off: the run whose outputs are the hidden
reference. The builder runs it to make the reference; the checks run it again to re-derive it.

The workspace holds the public inputs plus the hidden workflow files (`reference.py`,
its helper `wfio.py`), and `params.json`. The harness refuses to run under a
Python other than the pinned one. A run that fails is recorded, not raised: it
is how a broken workflow (or one that fails on evolved inputs) shows up. Only a
failure of the sandbox itself raises.
"""

from __future__ import annotations

import json
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from taskforge import sandbox
from taskforge.graders.workflow.deliverables import read_tree, write_tree
from taskforge.schemas import InfrastructureError
from taskforge.schemas.workflow import OUTPUTS, WorkflowPackage

REFERENCE_TIMEOUT_S = 120.0
STDERR_TAIL = 2000
HARNESS = """import runpy, sys
pinned, found = sys.argv[1], "%d.%d" % sys.version_info[:2]
if pinned and found != pinned:
    sys.exit(f"python {found} found but {pinned} is pinned")
sys.path.insert(0, ".")
runpy.run_path("reference.py", run_name="__main__")
"""


@dataclass
class ReferenceRun:
    """What a reference run produced: every file under outputs/, and how the run went."""

    ok: bool
    outputs: dict[str, str] = field(default_factory=dict)
    detail: dict[str, Any] = field(default_factory=dict)


def run_workflow(workflow: dict[str, str], package: WorkflowPackage, label: str) -> ReferenceRun:
    """Execute the workflow files on the package's inputs and parameters inside the sandbox, network off."""
    with tempfile.TemporaryDirectory(prefix="taskforge-wf-") as tmp:
        workspace, collected = Path(tmp) / "workspace", Path(tmp) / "collected"
        write_tree(str(workspace), {**package.inputs, **workflow, "params.json": json.dumps(package.params)})
        job = sandbox.Job(command=("python3", "-c", HARNESS, package.tools.get("python", "")), workspace=workspace,
                          network=False, timeout_s=REFERENCE_TIMEOUT_S, collect=(OUTPUTS,), label=label)
        result = sandbox.run(job, collect_to=collected)
        if result.infrastructure_error:
            raise InfrastructureError(f"{label}: {result.infrastructure_error}")
        outputs = read_tree(str(collected / OUTPUTS)) if (collected / OUTPUTS).is_dir() else {}
    detail = {"backend": result.backend, "exit_code": result.exit_code, "timed_out": result.timed_out,
              "oom_killed": result.oom_killed, "stderr_tail": result.stderr[-STDERR_TAIL:]}
    return ReferenceRun(ok=result.ok, outputs={f"{OUTPUTS}/{p}": t for p, t in outputs.items()}, detail=detail)
