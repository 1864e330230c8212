"""Several Docker engines behind one sandbox: jobs spread over the endpoints, each engine capped at a number of jobs.

`TASKFORGE_DOCKER_HOSTS=unix:///var/run/docker.sock,tcp://10.0.0.2:2375` lists
the endpoints (values `DOCKER_HOST` would take); `TASKFORGE_DOCKER_JOBS_PER_HOST`
caps the jobs (containers or sessions) one engine runs at once for this process
(default: the engine's CPU count). A job goes to the least busy engine that has
its image, and waits while every such engine is at its cap. The cap counts the
jobs of one process: with W worker processes sharing an engine, it sees at most
W × cap jobs. An image is looked for on each engine, so every engine needs the
images its jobs use (`DOCKER_HOST=… python -m taskforge.sandbox.images base`).
"""

from __future__ import annotations

import logging
import os
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, Mapping

import docker

from taskforge.sandbox.api import Backend, Job, Result
from taskforge.sandbox.container import ENGINE_ERRORS, DockerSandbox, DockerSession

log = logging.getLogger(__name__)

HOSTS_VARIABLE = "TASKFORGE_DOCKER_HOSTS"
LIMIT_VARIABLE = "TASKFORGE_DOCKER_JOBS_PER_HOST"


def endpoints_from(env: Mapping[str, str] = os.environ) -> list[str]:
    """The endpoints `TASKFORGE_DOCKER_HOSTS` lists (comma-separated), in order, without repeats."""
    return list(dict.fromkeys(e.strip() for e in env.get(HOSTS_VARIABLE, "").split(",") if e.strip()))


def jobs_per_engine(client: docker.DockerClient, env: Mapping[str, str] = os.environ) -> int:
    """The cap on jobs at once for one engine: `TASKFORGE_DOCKER_JOBS_PER_HOST`, else the engine's CPU count."""
    value = env.get(LIMIT_VARIABLE)
    limit = int(value) if value else int(client.info().get("NCPU") or 1)
    if limit < 1:
        raise ValueError(f"{LIMIT_VARIABLE} must be at least 1, got {limit}")
    return limit


class SpreadDockerSandbox:
    """The docker backend over several engines; `run` and `session` each hold one engine slot while they last.

    Results carry the engine's position among the engines in use as `extra["engine"]`
    (never the endpoint itself, which may be a host path).
    """

    backend: Backend = "docker"

    def __init__(self, clients: list[docker.DockerClient], limits: list[int], reason: str,
                 build_network: str = "bridge", temp_root: Path | None = None):
        if not clients or len(clients) != len(limits):
            raise ValueError("one job limit per engine client is needed")
        self.engines = [DockerSandbox(client=c, reason=reason, build_network=build_network, temp_root=temp_root)
                        for c in clients]
        self.limits = limits
        self.reason = reason
        self._running = [0] * len(clients)
        self._given = [0] * len(clients)
        self._images: set[tuple[int, str]] = set()
        self._changed = threading.Condition()

    def _has_image(self, index: int, image: str) -> bool:
        """Whether an engine holds an image (a found image is remembered; a missing one is asked again)."""
        if (index, image) in self._images:
            return True
        try:
            self.engines[index].client.images.get(image)
        except ENGINE_ERRORS:
            return False
        self._images.add((index, image))
        return True

    @contextmanager
    def _slot(self, image: str) -> Iterator[int]:
        """Hold a slot on the least busy engine that has `image` (any engine when none has it) until the block ends."""
        holders = [i for i in range(len(self.engines)) if self._has_image(i, image)] or list(range(len(self.engines)))
        with self._changed:
            while not (free := [i for i in holders if self._running[i] < self.limits[i]]):
                self._changed.wait()
            index = min(free, key=lambda i: (self._running[i] / self.limits[i], self._given[i], i))
            self._running[index] += 1
            self._given[index] += 1
        try:
            yield index
        finally:
            with self._changed:
                self._running[index] -= 1
                self._changed.notify_all()

    def run(self, job: Job, collect_to: Path | None = None) -> Result:
        """Run one job on an engine with a free slot, as the single-engine backend would."""
        with self._slot(job.image) as index:
            result = self.engines[index].run(job, collect_to=collect_to)
        result.extra["engine"] = index
        return result

    @contextmanager
    def session(self, job: Job) -> Iterator[DockerSession]:
        """A running container on an engine with a free slot, holding the slot until the session ends."""
        with self._slot(job.image) as index, self.engines[index].session(job) as session:
            yield session
