"""Fixed cost of one sandboxed job: a trivial command bare on the host, in the process backend, in a container.

    .venv/bin/python bench/sandbox.py [--runs N]

Prints, side by side, the wall time of `true` run N times each way: bare
(`subprocess.run`), in the process backend (bubblewrap, from workspace creation
to its deletion), in a fresh container (from create to removal), and as one
`exec` in a container session that is already running (the start paid once).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable

from figures import emit

# Run as `python bench/sandbox.py`, this file's folder comes first on sys.path and
# this file would shadow the `sandbox` package it measures: drop that folder.
sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != Path(__file__).resolve().parent]

from taskforge.sandbox.api import Job
from taskforge.sandbox.choose import probe_engine
from taskforge.sandbox.container import DockerSandbox
from taskforge.sandbox.launchers import Bubblewrap, Unshare
from taskforge.sandbox.process import ProcessSandbox

TRIVIAL = ("true",)


def timed(action: Callable[[], object], runs: int) -> list[float]:
    """Wall seconds of each of `runs` calls (after one warm-up call)."""
    action()
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        action()
        times.append(time.perf_counter() - started)
    return times


def checked(result) -> None:
    """Fail loudly if a benchmarked job did not succeed (a fast failure would flatter the figures)."""
    if not result.ok:
        raise SystemExit(f"benchmark job failed: {result}")


def main() -> None:
    """Measure each way of running the command and print the table."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=20)
    runs = parser.parse_args().runs
    job = Job(command=TRIVIAL)
    rows: list[tuple[str, list[float] | None]] = [
        ("bare on the host (subprocess.run)", timed(lambda: subprocess.run(TRIVIAL, check=True), runs)),
        ("process backend (bubblewrap)", timed(lambda: checked(ProcessSandbox(launcher=Bubblewrap()).run(job)), runs)),
        ("process backend (util-linux unshare)",
         timed(lambda: checked(ProcessSandbox(launcher=Unshare(as_root=os.geteuid() == 0)).run(job)), runs)),
    ]
    client, finding = probe_engine()
    if client is None:
        rows += [(f"docker: {finding}", None)]
    else:
        docker_sandbox = DockerSandbox(client=client)
        rows.append(("docker container (create → removal)", timed(lambda: checked(docker_sandbox.run(job)), runs)))
        with docker_sandbox.session(job) as session:
            rows.append(("docker session exec (started once)", timed(lambda: checked(session.exec(TRIVIAL)), runs)))
    bare = statistics.median(rows[0][1])
    title = f"`{' '.join(TRIVIAL)}`, {runs} runs each"
    print(f"{title:<38} {'median ms':>9} {'mean ms':>9} {'× bare':>8}")
    for name, times in rows:
        if times is None:
            print(f"{name}")
            continue
        median = statistics.median(times)
        print(f"{name:<38} {median * 1000:>9.1f} {statistics.mean(times) * 1000:>9.1f} {median / bare:>8.0f}")
        if times is not rows[0][1]:
            emit(f"sandbox fixed cost: {name}", median, bare, "s", "", "the same command bare on the host, median")


if __name__ == "__main__":
    main()
