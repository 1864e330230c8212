"""CPU time of the sandbox containers this process starts, which `os.times` does not see (the engine runs them).

A background thread reads, every `period_s`, the cgroup v1 `cpuacct.usage` of each container under the engine's
cgroup folder that carries this process's owner label (`sandbox/orphans.py`), and keeps each one's last reading:
a container's final `period_s` before it is removed is missed. Where that folder is missing (cgroup v2, a
remote engine, the process backend) `available` is False and the figure stays 0.
"""

from __future__ import annotations

import threading
from pathlib import Path

import docker
from docker.errors import DockerException

from taskforge.sandbox.orphans import OWNER_LABEL, owner_tag

CGROUP = Path("/sys/fs/cgroup/cpuacct/docker")


class ContainerCpu:
    """Sums the CPU seconds of this process's sandbox containers while running (use as a context manager)."""

    def __init__(self, period_s: float = 0.2):
        self.period_s = period_s
        self.available = CGROUP.is_dir()
        self._usage_ns: dict[str, int] = {}
        self._ours: dict[str, bool] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._poll, daemon=True)
        self._owner = owner_tag()

    def __enter__(self) -> "ContainerCpu":
        if self.available:
            self._client = docker.from_env()
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()

    @property
    def seconds(self) -> float:
        """CPU seconds read so far."""
        return sum(self._usage_ns.values()) / 1e9

    def _is_ours(self, container_id: str) -> bool:
        if container_id not in self._ours:
            try:
                labels = self._client.containers.get(container_id).labels
            except DockerException:
                return False
            self._ours[container_id] = labels.get(OWNER_LABEL) == self._owner
        return self._ours[container_id]

    def _poll(self) -> None:
        while not self._stop.wait(self.period_s):
            for folder in CGROUP.iterdir():
                if folder.is_dir() and self._is_ours(folder.name):
                    try:
                        self._usage_ns[folder.name] = int((folder / "cpuacct.usage").read_text())
                    except (OSError, ValueError):
                        continue
