"""A dockerd of its own beside the machine's engine (own socket, data root, exec root and containerd
namespace, no bridge), holding the base image; tests start, stop and restart it for real."""

from __future__ import annotations

import signal
import subprocess
import time
from pathlib import Path

import docker

from taskforge.sandbox.api import BASE_IMAGE


def answers(endpoint: str) -> bool:
    """Whether a docker engine answers at `endpoint`."""
    try:
        docker.DockerClient(base_url=endpoint, timeout=2).version()
    except docker.errors.DockerException:
        return False
    return True


class PrivateEngine:
    """One private dockerd named `name`; `start` is a no-op when it already answers."""

    def __init__(self, name: str):
        self.run_dir = Path(f"/run/taskforge-{name}")
        self.data_root = Path(f"/var/lib/taskforge-{name}")
        self.name = name
        self.endpoint = f"unix://{self.run_dir}/docker.sock"
        self.process: subprocess.Popen | None = None

    def start(self, timeout_s: float = 60) -> None:
        """Start the engine (unless it answers already) and wait until it answers."""
        if answers(self.endpoint):
            return
        self.run_dir.mkdir(parents=True, exist_ok=True)
        log = open(self.run_dir / "dockerd.log", "ab")
        self.process = subprocess.Popen(
            ["dockerd", "--host", self.endpoint, "--data-root", str(self.data_root),
             "--exec-root", str(self.run_dir / "exec"), "--pidfile", str(self.run_dir / "docker.pid"),
             "--bridge", "none", "--iptables=false", "--shutdown-timeout", "1",
             "--containerd-namespace", self.name, "--containerd-plugins-namespace", f"{self.name}-plugins"],
            stdout=log, stderr=log)
        deadline = time.monotonic() + timeout_s
        while not answers(self.endpoint):
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"dockerd {self.name} did not start: see {self.run_dir / 'dockerd.log'}")
            time.sleep(0.2)

    def stop(self, timeout_s: float = 60) -> None:
        """Stop the engine as an operator or a crash of the host's service would (SIGTERM), and wait for it."""
        pid_file = self.run_dir / "docker.pid"
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            self.process.wait(timeout=timeout_s)
        elif pid_file.exists():
            pid = int(pid_file.read_text())
            subprocess.run(["kill", "-TERM", str(pid)], check=False)
            deadline = time.monotonic() + timeout_s
            while Path(f"/proc/{pid}").exists() and time.monotonic() < deadline:
                time.sleep(0.1)
        self.process = None

    def load_base_image(self, from_client: docker.DockerClient) -> None:
        """Copy the base image from the machine's engine in, unless it is there already."""
        wanted = from_client.images.get(BASE_IMAGE).id
        client = docker.DockerClient(base_url=self.endpoint)
        try:
            if wanted in {image.id for image in client.images.list()}:
                return
        finally:
            client.close()
        save = subprocess.Popen(["docker", "save", BASE_IMAGE], stdout=subprocess.PIPE)
        subprocess.run(["docker", "-H", self.endpoint, "load", "-q"], stdin=save.stdout, check=True,
                       stdout=subprocess.DEVNULL)
        assert save.wait() == 0
