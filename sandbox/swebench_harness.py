"""The official SWE-bench harness (`swebench` from PyPI) with every container it starts sandboxed as ours are.

swebench's `run_evaluation` creates each instance's container on the engine's default
(bridge) network and adds CAP_SYS_ADMIN, then runs the repository's tests in it: untrusted
code, which taskforge runs only with the network off. This launcher runs swebench's own
command line unchanged, with docker-py's container creation forced to `network_mode="none"`,
no capability added, the docker sandbox's capabilities dropped and no new privileges:

    python -m taskforge.sandbox.swebench_harness --dataset_name instances.jsonl --predictions_path gold --run_id check

swebench is not a dependency of taskforge: install it beside it (`make swebench-venv`).
"""

from __future__ import annotations

import runpy
import sys
from functools import wraps
from typing import Any, Callable

from docker.models.containers import ContainerCollection

from taskforge.sandbox.container import DROPPED_CAPABILITIES

HARNESS = "swebench.harness.run_evaluation"
SANDBOXED = {"network_mode": "none", "cap_drop": DROPPED_CAPABILITIES, "security_opt": ["no-new-privileges"]}
"""What every container of the harness is created with (the docker sandbox's settings for untrusted code)."""


def sandboxed(create: Callable[..., Any]) -> Callable[..., Any]:
    """`ContainerCollection.create` with the harness's network and added capabilities replaced by `SANDBOXED`."""

    @wraps(create)
    def create_sandboxed(self: ContainerCollection, *args: Any, **options: Any) -> Any:
        for granted in ("network", "networking_config", "cap_add", "privileged"):
            options.pop(granted, None)
        return create(self, *args, **{**options, **SANDBOXED})

    return create_sandboxed


def main(argv: list[str] | None = None) -> None:
    """Run swebench's `run_evaluation` command line (`argv`, default this process's arguments), containers sandboxed."""
    ContainerCollection.create = sandboxed(ContainerCollection.create)
    sys.argv = [HARNESS, *(sys.argv[1:] if argv is None else argv)]
    runpy.run_module(HARNESS, run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
