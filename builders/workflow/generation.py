"""Generated inputs: a seed's `generate.py` run in the sandbox, network off, to write the task's input files.

The generator (standard library only, beside the `wfio.py` helper) reads
`params.json`: the seed's `"generator"` parameters plus `seed` (the data
seed) and `scale` (a factor on the sizes it generates: 1.0 builds the full task,
a small scale builds the same task small, e.g. in tests). It writes every input
file under `inputs/`; the same parameters always give the same bytes. A
generator that fails, or writes files the seed does not declare, makes the seed
unusable: an InputError naming it and the reason.

A descendant of a generated seed gets inputs of its own: `regenerator` is an
evolution operator (the data axis, leading the others) that runs the generator
again with a new data seed, so no two tasks of a build share the inputs from
which one task's answer would give another's.
"""

from __future__ import annotations

import json
import random
import tempfile
from pathlib import Path

from taskforge import sandbox
from taskforge.builders.workflow.execute import WFIO_SOURCE
from taskforge.builders.workflow.operators import Operator
from taskforge.builders.workflow.seeds import GENERATOR_FILE, WorkflowSeed, check_package, check_size
from taskforge.graders.workflow.deliverables import read_tree, write_tree
from taskforge.schemas import InfrastructureError, InputError
from taskforge.schemas.workflow import INPUTS, WorkflowPackage

GENERATOR_TIMEOUT_S = 120.0
REGENERATE = "regenerate_inputs"
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


def regenerator(seed: WorkflowSeed, scale: float) -> Operator:
    """The evolution operator that writes a descendant's inputs afresh with `seed`'s generator (still pending,
    i.e. not yet generated) and a data seed drawn from the evolution's random generator."""
    def apply(package: WorkflowPackage, rng: random.Random) -> WorkflowPackage:
        fresh = WorkflowSeed(package=package.model_copy(update={"inputs": {}}), workflow=seed.workflow,
                             generator=seed.generator, generator_params=seed.generator_params)
        return generated(fresh, rng.randrange(2 ** 31), scale).package

    return Operator(REGENERATE, "data", applies=lambda package: True, apply=apply, lead=True)
