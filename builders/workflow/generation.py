"""Generated inputs: a seed's `generate.py` run in the sandbox, network off, to write the task's input files.

The generator (standard library only, beside the `wfio.py` helper) reads
`params.json`: the seed's `"generator"` parameters plus `seed` (the data
seed) and `scale` (a factor on the sizes it generates: 1.0 builds the full task,
a small scale builds the same task small, e.g. in tests). It writes every input
file under `inputs/`; the same parameters always give the same bytes. A
generator that fails, or writes files the seed does not declare, makes the seed
unusable: an InputError naming it and the reason.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from taskforge import sandbox
from taskforge.builders.workflow.execute import WFIO_SOURCE
from taskforge.builders.workflow.seeds import GENERATOR_FILE, WorkflowSeed, check_package, check_size
from taskforge.graders.workflow.deliverables import read_tree, write_tree
from taskforge.schemas import InfrastructureError, InputError
from taskforge.schemas.workflow import INPUTS

GENERATOR_TIMEOUT_S = 120.0
HARNESS = """import runpy, sys
pinned, found = sys.argv[1], "%d.%d" % sys.version_info[:2]
if pinned and found != pinned:
    sys.exit(f"python {found} found but {pinned} is pinned")
sys.path.insert(0, ".")
runpy.run_path("generate.py", run_name="__main__")
"""


def generated(seed: WorkflowSeed, data_seed: int, scale: float = 1.0) -> WorkflowSeed:
    """The seed with its inputs generated (a seed whose inputs are shipped is returned as it is)."""
    if not seed.pending:
        return seed
    package = seed.package
    params = {**(seed.generator_params or {}), "seed": data_seed, "scale": scale}
    with tempfile.TemporaryDirectory(prefix="taskforge-wfgen-") as tmp:
        workspace, collected = Path(tmp) / "workspace", Path(tmp) / "collected"
        write_tree(str(workspace), {GENERATOR_FILE: seed.generator or "", "wfio.py": WFIO_SOURCE,
                                    "params.json": json.dumps(params)})
        job = sandbox.Job(command=("python3", "-c", HARNESS, package.tools.get("python", "")), workspace=workspace,
                          network=False, timeout_s=GENERATOR_TIMEOUT_S, collect=(INPUTS,),
                          label=f"workflow-generator:{package.seed_id}")
        result = sandbox.run(job, collect_to=collected)
        if result.infrastructure_error:
            raise InfrastructureError(f"input generator of {package.seed_id}: {result.infrastructure_error}")
        if not result.ok:
            raise InputError(f"{package.seed_id}/{GENERATOR_FILE}",
                             f"the generator failed (exit {result.exit_code}): {result.stderr.strip()[-500:]}")
        inputs = read_tree(str(collected / INPUTS)) if (collected / INPUTS).is_dir() else {}
    inputs = {f"{INPUTS}/{path}": text for path, text in inputs.items()}
    check_size(inputs, package.seed_id)
    package = package.model_copy(update={"inputs": inputs})
    check_package(package, package.seed_id)
    return WorkflowSeed(package=package, workflow=seed.workflow)
