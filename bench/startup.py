"""CLI start-up: wall time and peak memory of one small command, beside the bare floors.

    .venv/bin/python bench/startup.py [--runs N]

Rows (each a fresh process, no PREFECT_API_URL, the same fresh PREFECT_HOME whose
database is migrated by a first, unmeasured run):

- `python -c pass`: the interpreter's floor;
- bare Prefect flow: a one-task flow, with Prefect's own temporary API server (the floor of any Prefect run);
- diagnose, Prefect's lazy server: the diagnose flow called as the CLI called it before: Prefect starts its
  temporary server when the flow starts, after every import;
- `taskforge diagnose`: the CLI now (`flows/startup.py`): the server process starts as soon as the command line
  is parsed and boots while the flow's modules import;
- `taskforge --help`, `taskforge decontam list`: commands that start no server.

Each command reads one small trace file (the shipped native JSONL sample). Peak memory is sampled every 20 ms:
the command's own process, and all its processes together (the API server included).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil
from figures import emit

ROOT = Path(__file__).resolve().parents[1]
TRACE = ROOT / "data" / "samples" / "traces" / "ledger_agent.native.jsonl"
TASKFORGE = str(Path(sys.executable).with_name("taskforge"))
SAMPLE_S = 0.02
MIB = 1024 * 1024
BARE_FLOW = """
from prefect import flow, task
@task
def read(path):
    return len(open(path).read())
@flow
def bare(path):
    return read(path)
bare({trace!r})
"""
LAZY_DIAGNOSE = """
from taskforge.flows.diagnose import diagnose_traces
diagnose_traces(traces=[{trace!r}], data_dir={data!r})
"""


def measure(argv: list[str], env: dict[str, str]) -> tuple[float, float, float]:
    """(wall seconds, peak MiB of the command's process, peak MiB of all its processes) of one run."""
    started = time.monotonic()
    process = psutil.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT)
    own = total = 0
    while process.poll() is None:
        try:
            tree = [process, *process.children(recursive=True)]
            sizes = [p.memory_info().rss for p in tree]
        except psutil.Error:
            continue
        own, total = max(own, sizes[0]), max(total, sum(sizes))
        time.sleep(SAMPLE_S)
    wall = time.monotonic() - started
    if process.returncode != 0:
        raise SystemExit(f"{' '.join(argv[:3])} … exited {process.returncode}")
    return wall, own / MIB, total / MIB


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="taskforge-startup-"))
    env = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_API")}
    env.update({"PREFECT_HOME": str(scratch / "prefect"), "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
                "PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS": "180"})
    data = str(scratch / "data")
    commands = [
        ("python -c pass (floor)", [sys.executable, "-c", "pass"]),
        ("bare Prefect flow, one task (floor)", [sys.executable, "-c", BARE_FLOW.format(trace=str(TRACE))]),
        ("diagnose, Prefect's lazy server (before)",
         [sys.executable, "-c", LAZY_DIAGNOSE.format(trace=str(TRACE), data=data + "-lazy")]),
        ("taskforge diagnose (now)", [TASKFORGE, "diagnose", str(TRACE), "--data-dir", data, "--json"]),
        ("taskforge --help", [TASKFORGE, "--help"]),
        ("taskforge decontam list (no flow)", [TASKFORGE, "decontam", "list", "--data-dir", str(scratch / "empty")]),
    ]
    measure(commands[1][1], env)
    print(f"{'command':44} {'wall s (median)':>16} {'own MiB':>9} {'all MiB':>9}   load {os.getloadavg()[0]:.1f}")
    medians = {}
    for label, argv in commands:
        walls, owns, totals = zip(*(measure(argv, env) for _ in range(args.runs)))
        medians[label] = statistics.median(walls)
        print(f"{label:44} {medians[label]:16.2f} {max(owns):9.0f} {max(totals):9.0f}")
    emit("CLI start-up: taskforge diagnose of one trace", medians[commands[3][0]], medians[commands[1][0]], "s",
         "<= 1x", "a bare one-task Prefect flow, wall")
    emit("CLI start-up: taskforge --help", medians[commands[4][0]], medians[commands[0][0]], "s", "",
         "python -c pass, wall")
    shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
