"""How the process backend enters a sandbox: bubblewrap where it is installed, else util-linux `unshare`.

Both give a job fresh mount, pid, ipc and uts namespaces (and a network namespace
with no interfaces up unless it is a build step), a read-only root made of the
host's system folders, `/workspace` and `/tmp` as the only writable places, and
no home folders, `/run` (the Docker socket) or project tree. `unshare` and
`setpriv` come with util-linux, which every Linux system has, so the process
backend works on a machine with nothing installed: as root the mounts are made
in a private mount namespace and the job then runs as the session's throwaway
uid; as another user an unprivileged user namespace is entered and every
capability is dropped before the job starts.

A launcher turns (session folders, command) into one command line. The launcher
reports on a status pipe: bubblewrap writes its JSON lines (`child-pid`,
`exit-code`) to the fd it is given; the unshare setup gets the pipe as its
standard input, writes `{"setup": "done"}` there just before it starts the job
(whose standard input is then /dev/null), so a failure before that line is the
sandbox's, not the job's.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Protocol

from taskforge.sandbox.api import WORKSPACE
from taskforge.sandbox.images.recipe import VENV

SYSTEM_DIRS = ("usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32", "etc", "var")
DEVICES = ("null", "zero", "full", "random", "urandom", "tty")
SETUP_DONE = "setup"
PROBE_TIMEOUT_S = 10
HOSTNAME = "sandbox"


@dataclass(frozen=True)
class Mounts:
    """What a session exposes to its job: the folders bound writable, the Python environment and the job's shared
    folders (host folder, sandbox path) bound read-only."""

    root: Path
    workspace: Path
    tmp: Path
    python_env: Path | None
    network: bool
    uid: int
    shared: tuple[tuple[str, str], ...] = ()


class Launcher(Protocol):
    """Builds the command line that runs one command inside a fresh sandbox."""

    name: str
    switches_uid: bool
    status_on_stdin: bool

    def argv(self, mounts: Mounts, command: tuple[str, ...], status_fd: int) -> list[str]:
        """The command line (without rlimits) that sets up the sandbox and runs `command` in /workspace; the status
        pipe is `status_fd`, or standard input where `status_on_stdin`."""
        ...


def system_mounts() -> list[str]:
    """bubblewrap arguments exposing the host's system folders read-only (symlinks such as /bin stay symlinks)."""
    args: list[str] = []
    for name in SYSTEM_DIRS:
        path = Path("/") / name
        if path.is_symlink():
            args += ["--symlink", os.readlink(path), str(path)]
        elif path.is_dir():
            args += ["--ro-bind", str(path), str(path)]
    return args


@dataclass(frozen=True)
class Bubblewrap:
    """bubblewrap (`bwrap`): namespaces, mounts and the uid change in one setuid-free program."""

    path: str = "bwrap"
    name: str = "bubblewrap"
    switches_uid: bool = False
    status_on_stdin: bool = False

    def argv(self, mounts: Mounts, command: tuple[str, ...], status_fd: int) -> list[str]:
        isolation = ["--unshare-pid", "--as-pid-1", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
                     "--die-with-parent"]
        if not mounts.network:
            isolation.append("--unshare-net")
        venv = ["--ro-bind", str(mounts.python_env), VENV] if mounts.python_env else []
        shared = [arg for host, target in mounts.shared for arg in ("--ro-bind", host, target)]
        binds = system_mounts() + venv + [
            "--ro-bind", "/sys", "/sys", "--proc", "/proc", "--dev", "/dev",
            "--bind", str(mounts.workspace), WORKSPACE, "--bind", str(mounts.tmp), "/tmp", *shared,
            "--remount-ro", "/", "--chdir", WORKSPACE, "--hostname", HOSTNAME,
        ]
        return [self.path, *isolation, *binds, "--json-status-fd", str(status_fd), "--", *command]


# The setup run inside the new namespaces, before the job: a tmpfs root holding the host's system folders
# read-only, /workspace and /tmp bound writable, a fresh /proc, a minimal /dev; then pivot_root so nothing of
# the host's tree stays reachable, and the job started with no capabilities (as the session's uid when root).
# Standard input is the status pipe. Positional arguments: root folder, workspace, tmp, python env ("" for
# none), uid ("" to keep), the shared folders (lines of "host<TAB>sandbox path", bound read-only), then the
# job's command.
UNSHARE_SETUP = r"""
set -eu
job_path=$PATH
PATH=/usr/sbin:/usr/bin:/sbin:/bin
root=$1 workspace=$2 tmp=$3 venv=$4 uid=$5 shared=$6
shift 6
mount -t tmpfs -o mode=0755 sandbox-root "$root"
for name in usr bin sbin lib lib32 lib64 libx32 etc var; do
  if [ -L "/$name" ]; then ln -s "$(readlink "/$name")" "$root/$name"
  elif [ -d "/$name" ]; then mkdir "$root/$name"; mount --rbind "/$name" "$root/$name"
    mount -o remount,bind,ro "$root/$name"; fi
done
mkdir -p "$root/workspace" "$root/tmp" "$root/proc" "$root/sys" "$root/dev" "$root/.host"
mount --bind "$workspace" "$root/workspace"
mount --bind "$tmp" "$root/tmp"
mount -t proc proc "$root/proc"
mount --rbind /sys "$root/sys"
mount -o remount,bind,ro "$root/sys" 2>/dev/null || true
mount -t tmpfs -o mode=0755 sandbox-dev "$root/dev"
for device in null zero full random urandom tty; do
  touch "$root/dev/$device"; mount --bind "/dev/$device" "$root/dev/$device"
done
mkdir "$root/dev/shm" "$root/dev/pts"
ln -s /proc/self/fd "$root/dev/fd"; ln -s /proc/self/fd/0 "$root/dev/stdin"
ln -s /proc/self/fd/1 "$root/dev/stdout"; ln -s /proc/self/fd/2 "$root/dev/stderr"
if [ -n "$venv" ]; then mkdir -p "$root/opt/venv"; mount --bind "$venv" "$root/opt/venv"
  mount -o remount,bind,ro "$root/opt/venv"; fi
tab=$(printf '\t')
printf '%s\n' "$shared" | while IFS="$tab" read -r host target; do
  [ -n "$host" ] || continue
  mkdir -p "$root$target"; mount --bind "$host" "$root$target"; mount -o remount,bind,ro "$root$target"
done
hostname sandbox 2>/dev/null || true
command -v ip >/dev/null && ip link set lo up 2>/dev/null || true
cd "$root"
pivot_root . .host
umount -l /.host
rmdir /.host
mount -o remount,bind,ro /
cd /workspace
printf '{"setup": "done"}\n' >&0
exec 0</dev/null
PATH=$job_path
if [ -n "$uid" ]; then
  exec setpriv --reuid="$uid" --regid="$uid" --clear-groups --no-new-privs --inh-caps=-all --bounding-set=-all \
    --pdeathsig KILL -- "$@"
fi
exec setpriv --no-new-privs --inh-caps=-all --bounding-set=-all --pdeathsig KILL -- "$@"
"""


@dataclass(frozen=True)
class Unshare:
    """util-linux `unshare` + `setpriv`: always there on Linux; root, or unprivileged user namespaces, needed."""

    as_root: bool = True
    name: str = "unshare"
    status_on_stdin: bool = True

    @property
    def switches_uid(self) -> bool:
        """As root the setup runs as root and hands the job to the session's uid itself."""
        return self.as_root

    def argv(self, mounts: Mounts, command: tuple[str, ...], status_fd: int) -> list[str]:
        namespaces = ["--mount", "--propagation", "private", "--pid", "--fork", "--kill-child", "--ipc", "--uts"]
        if not mounts.network:
            namespaces.append("--net")
        if not self.as_root:
            namespaces.append("--map-root-user")
        new_root = mounts.root / "root"
        return ["setpriv", "--pdeathsig", "KILL", "--", "unshare", *namespaces, "--", "/bin/sh", "-c", UNSHARE_SETUP,
                "setup", str(new_root), str(mounts.workspace), str(mounts.tmp), str(mounts.python_env or ""),
                str(mounts.uid) if self.as_root else "",
                "\n".join(f"{host}\t{target}" for host, target in mounts.shared), *command]


def _works(argv: list[str]) -> bool:
    """Whether a command line runs to a zero exit (a probe of what this host allows)."""
    try:
        return subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              timeout=PROBE_TIMEOUT_S).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


@cache
def find_launcher() -> tuple[Launcher | None, str]:
    """The launcher this host can use and a sentence saying why (or, with None, why there is none)."""
    bwrap = shutil.which("bwrap")
    if bwrap and _works([bwrap, "--ro-bind", "/", "/", "--unshare-net", "--unshare-pid", "true"]):
        return Bubblewrap(bwrap), "bubblewrap"
    missing = "bubblewrap is not installed" if not bwrap else "bubblewrap cannot create namespaces here"
    if not (shutil.which("unshare") and shutil.which("setpriv")):
        return None, f"{missing} and util-linux unshare/setpriv are missing"
    as_root = os.geteuid() == 0
    user = [] if as_root else ["--map-root-user"]
    if _works(["unshare", "--mount", "--pid", "--fork", "--net", *user, "true"]):
        return Unshare(as_root=as_root), f"{missing}; util-linux unshare" + ("" if as_root else " (user namespace)")
    return None, (f"{missing} and unshare cannot create namespaces "
                  + ("(run as root, or allow unprivileged user namespaces)" if not as_root else "here"))
