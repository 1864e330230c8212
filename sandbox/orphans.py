"""Containers left behind by a process that was killed (SIGKILL, a lost machine) before it could remove them.

Every container carries an owner label — this host's name, the owning process's
pid and its start time — so that the next process choosing the docker backend on
this host removes the containers whose owner is gone (and only those: a live
cycle's containers, or another host's, are never touched). Images committed from a
sandbox container have the label emptied; a container that still inherits one from
its image (an image committed before that, run by another tool such as the SWE-bench
harness) was not created by a sandbox and is never removed.
"""

from __future__ import annotations

import logging
import os
import socket

import docker
import requests
from docker.errors import DockerException, NotFound

OWNER_LABEL = "taskforge.owner"

log = logging.getLogger(__name__)


def _start_ticks(pid: int) -> str | None:
    """The process's start time in clock ticks since boot (field 22 of /proc/PID/stat), or None if it is gone."""
    try:
        stat = open(f"/proc/{pid}/stat", encoding="ascii").read()
    except (FileNotFoundError, ProcessLookupError):
        return None
    return stat.rsplit(")", 1)[1].split()[19]


def owner_tag() -> str:
    """This process as a container owner: `host:pid:start ticks` (read each time: worker processes fork)."""
    return f"{socket.gethostname()}:{os.getpid()}:{_start_ticks(os.getpid())}"


def owner_alive(tag: str) -> bool:
    """Whether the owner a label names still runs; owners on other hosts are taken to be alive."""
    host, _, rest = tag.partition(":")
    pid, _, ticks = rest.partition(":")
    if host != socket.gethostname() or not pid.isdigit():
        return True
    return _start_ticks(int(pid)) == ticks


def inherited_owner(client: docker.DockerClient, container: dict) -> bool:
    """Whether the container's owner label is its image's (set when the image was committed, not by a sandbox)."""
    try:
        image_labels = client.api.inspect_image(container["ImageID"])["Config"]["Labels"] or {}
    except NotFound:
        return False
    return image_labels.get(OWNER_LABEL) == container["Labels"].get(OWNER_LABEL)


def sweep_orphans(client: docker.DockerClient) -> int:
    """Remove this host's containers whose owner process is gone; how many were removed."""
    removed = 0
    try:
        for container in client.api.containers(all=True, filters={"label": OWNER_LABEL}):
            if owner_alive(container["Labels"].get(OWNER_LABEL, "")) or inherited_owner(client, container):
                continue
            try:
                client.api.remove_container(container["Id"], force=True, v=True)
            except NotFound:
                continue
            removed += 1
    except (DockerException, requests.RequestException) as error:
        log.warning("could not sweep containers left by processes that are gone: %s", error)
    if removed:
        log.warning("removed %d sandbox container(s) left by processes that are gone", removed)
    return removed
