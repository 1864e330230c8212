"""Choosing a backend: docker where an engine answers and the base image is there, else the process backend
(bubblewrap where it works, else util-linux unshare: `taskforge.sandbox.launchers`).

With `TASKFORGE_DOCKER_HOSTS` set, every listed engine is probed and jobs spread
over those that answer with the base image (`taskforge.sandbox.engines`).
"""

from __future__ import annotations

import logging
import os
from functools import cache
from pathlib import Path

import docker

from taskforge.sandbox.api import BASE_IMAGE, Sandbox
from taskforge.sandbox.container import ENGINE_ERRORS, DockerSandbox
from taskforge.sandbox.engines import HOSTS_VARIABLE, SpreadDockerSandbox, endpoints_from, jobs_per_engine
from taskforge.sandbox.launchers import find_launcher
from taskforge.sandbox.orphans import sweep_orphans
from taskforge.sandbox.process import ProcessSandbox
from taskforge.schemas.errors import InfrastructureError

log = logging.getLogger(__name__)

KINDS = ("auto", "docker", "process")
KIND_VARIABLE = "TASKFORGE_SANDBOX"
PROBE_TIMEOUT_S = 5


def probe_engine(endpoint: str | None = None) -> tuple[docker.DockerClient | None, str]:
    """Ask a Docker engine (`endpoint`, a `DOCKER_HOST` value; default: the environment's) for its version;
    the client (or None) and a sentence saying what happened."""
    environment = {**os.environ, **({"DOCKER_HOST": endpoint} if endpoint else {})}
    try:
        client = docker.from_env(timeout=PROBE_TIMEOUT_S, environment=environment)
        version = client.version()["Version"]
    except ENGINE_ERRORS as error:
        return None, f"no docker engine answered ({error.__class__.__name__})"
    client.api.timeout = docker.constants.DEFAULT_TIMEOUT_SECONDS
    try:
        client.images.get(BASE_IMAGE)
    except ENGINE_ERRORS:
        return None, f"docker engine {version} answered but has no {BASE_IMAGE} (python -m taskforge.sandbox.images base)"
    return client, f"docker engine {version} answered and has {BASE_IMAGE}"


def get_sandbox(kind: str | None = None, temp_root: Path | None = None, build_network: str = "bridge") -> Sandbox:
    """The sandbox of the given kind (default: $TASKFORGE_SANDBOX, else auto); the choice is logged with its reason."""
    kind = kind or os.environ.get(KIND_VARIABLE, "auto")
    if kind not in KINDS:
        raise ValueError(f"unknown sandbox kind {kind!r}: one of {', '.join(KINDS)}")
    if kind == "process":
        sandbox: Sandbox = _process_sandbox("process backend asked for", temp_root)
    elif endpoints_from():
        sandbox = _spread_sandbox(kind, endpoints_from(), temp_root, build_network)
    else:
        client, finding = probe_engine()
        if client is not None:
            sweep_orphans(client)
            sandbox = DockerSandbox(client=client, reason=f"{kind}: {finding}", build_network=build_network,
                                    temp_root=temp_root)
        elif kind == "docker":
            raise InfrastructureError(f"docker backend asked for, but {finding}")
        else:
            sandbox = _process_sandbox(f"auto: {finding}; using the process backend", temp_root)
    log.info("sandbox backend %s (%s)", sandbox.backend, sandbox.reason)
    return sandbox


def _spread_sandbox(kind: str, endpoints: list[str], temp_root: Path | None, build_network: str) -> Sandbox:
    """The docker backend over every listed engine that answers with the base image; endpoints are named by
    position only (an endpoint may be a host path)."""
    clients = []
    for position, endpoint in enumerate(endpoints):
        client, finding = probe_engine(endpoint)
        if client is None:
            log.warning("docker endpoint %d of %d left out: %s", position + 1, len(endpoints), finding)
        else:
            clients.append(client)
    finding = f"docker engines at {len(clients)} of {len(endpoints)} endpoints answered and have {BASE_IMAGE}"
    if clients:
        for client in clients:
            sweep_orphans(client)
        return SpreadDockerSandbox(clients, [jobs_per_engine(c) for c in clients], reason=f"{kind}: {finding}",
                                   build_network=build_network, temp_root=temp_root)
    if kind == "docker":
        raise InfrastructureError(f"docker backend asked for, but {finding}")
    return _process_sandbox(f"auto: {finding}; using the process backend", temp_root)


def _process_sandbox(reason: str, temp_root: Path | None) -> ProcessSandbox:
    """The process backend with the launcher this host can use, named in the reason; InfrastructureError (saying
    what is missing) when none can run here."""
    launcher, finding = find_launcher()
    if launcher is None:
        raise InfrastructureError(f"{reason}, but no sandbox can run here: {finding}")
    return ProcessSandbox(reason=f"{reason} ({finding})", temp_root=temp_root, launcher=launcher)


SETTINGS = (KIND_VARIABLE, "DOCKER_HOST", HOSTS_VARIABLE)
"""The environment variables that decide the default sandbox."""


@cache
def _sandbox_for(settings: tuple[str | None, ...]) -> Sandbox:
    return get_sandbox()


def default_sandbox() -> Sandbox:
    """The sandbox that `taskforge.sandbox.run` and `taskforge.sandbox.session` use: chosen once per process for
    each setting of the variables that decide it (a changed DOCKER_HOST gets its own)."""
    return _sandbox_for(tuple(os.environ.get(name) for name in SETTINGS))


default_sandbox.cache_clear = _sandbox_for.cache_clear  # type: ignore[attr-defined]
