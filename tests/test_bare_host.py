"""`make run`'s command on a host with no bubblewrap and no Docker engine: the families land through the
sandbox that is always there (util-linux unshare); with no sandbox at all, one line and a non-zero exit.

Each run happens in a private mount namespace where `bwrap` is covered by /dev/null (not executable), /run
(the Docker socket) is an empty tmpfs and no Docker variable is set. A family whose builder has no shipped
default source and that the run quarantined for a missing source (SWE, until a default repository ships) is
the only one allowed not to land; every other planned family must land at least one accepted task.

The MLE family builds from one small fixture dataset (`SMALL_MLE`, given with `--source`, as an operator would)
instead of the shipped bike-sharing sample: what is asserted is that its baselines run in the fallback sandbox and
its task lands, which 500 rows searched with 2 candidates show as well as 17,379 hours searched with 10, in seconds
instead of minutes of leaderboard jobs. A 1,500-hour sample of the shipped data is built in
tests/test_mle_process.py; the full sample is built by bench/quality_sample.py.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from taskforge.builders.registry import builder_for

ROOT = Path(__file__).resolve().parents[1]
TASKFORGE = Path(sys.executable).with_name("taskforge")
HIDE_SANDBOXES = """
set -e
for tool in {tools}; do
  found=$(command -v "$tool" || true)
  if [ -n "$found" ]; then mount --bind /dev/null "$(readlink -f "$found")"; fi
done
mount -t tmpfs bare-run /run
if [ -d /var/run ] && [ ! -L /var/run ]; then mount -t tmpfs bare-var-run /var/run; fi
"$@"
"""
DOCKER_VARIABLES = ("DOCKER_HOST", "TASKFORGE_DOCKER_HOSTS", "TASKFORGE_SANDBOX", "PREFECT_API_URL")
NO_SOURCE = "no repository given"
SMALL_MLE = ROOT / "tests" / "fixtures" / "mle" / "orchard_yield"
"""A 500-row synthetic dataset whose settings search 2 candidates and relax the size, gap and linear rules."""
RUN_LIMIT_S = 1500
"""A guard against a hung run, not a timing: the whole cycle took 599 s on the shared 2-core machine under load
with the shipped MLE sample (its leaderboard jobs, built and re-derived, were most of it)."""


def _can_make_mount_namespaces() -> bool:
    return shutil.which("unshare") is not None and subprocess.run(
        ["unshare", "--mount", *([] if os.geteuid() == 0 else ["--map-root-user"]), "true"],
        capture_output=True).returncode == 0


pytestmark = pytest.mark.skipif(not _can_make_mount_namespaces(), reason="cannot make a mount namespace here")


@pytest.fixture(scope="module")
def prefect_home(tmp_path_factory) -> Path:
    """One Prefect home for the module's runs (its database is migrated once)."""
    return tmp_path_factory.mktemp("prefect-home")


def _bare_run(prefect_home: Path, hidden: str, *args: str, env: dict[str, str] | None = None
              ) -> subprocess.CompletedProcess:
    """Run a command with the given tools hidden, in a mount namespace of its own, with no Prefect API set."""
    environment = {k: v for k, v in os.environ.items() if k not in DOCKER_VARIABLES}
    environment.update({"PREFECT_HOME": str(prefect_home), **(env or {})})
    user = [] if os.geteuid() == 0 else ["--map-root-user"]
    return subprocess.run(
        ["unshare", "--mount", "--propagation", "private", *user, "sh", "-c", HIDE_SANDBOXES.format(tools=hidden),
         "bare-run", *args], cwd=ROOT, env=environment, capture_output=True, text=True, timeout=RUN_LIMIT_S)


def _small_mle_source(folder: Path) -> Path:
    """A folder holding only `SMALL_MLE`'s dataset and settings (the builder takes one dataset per quota)."""
    folder.mkdir()
    for suffix in (".csv", ".json"):
        shutil.copyfile(SMALL_MLE.with_suffix(suffix), folder / SMALL_MLE.with_suffix(suffix).name)
    return folder


def test_make_run_lands_every_family_with_a_source_without_bubblewrap_or_docker(tmp_path, prefect_home):
    choice = _bare_run(prefect_home, "bwrap", sys.executable, "-c",
                       "from taskforge.sandbox.choose import get_sandbox; print(get_sandbox().reason)")
    mle = _small_mle_source(tmp_path / "mle")
    run = _bare_run(prefect_home, "bwrap", str(TASKFORGE), "cycle", "--data-dir", str(tmp_path / "out"),
                    "--source", f"mle={mle}", "--json")

    assert "util-linux unshare" in choice.stdout, choice.stdout + choice.stderr
    assert run.returncode == 0, run.stderr[-2000:]
    assert "Traceback" not in run.stderr
    summary = json.loads(run.stdout)
    planned = {item["family"] for item in summary["plan"]}
    without_source = {q["source"].split(":")[0] for q in summary["quarantine"] if NO_SOURCE in q["reason"]}
    expected = {f for f in planned if not (builder_for(f).default_source is None and f in without_source)}
    landed = {f for f, counts in summary["families"].items() if counts["accepted"] > 0}
    assert {"literature", "long_context", "mle", "workflow"} <= expected
    assert expected <= landed, summary["families"]
    assert summary["infrastructure_failures"] == []


def test_with_no_sandbox_at_all_the_run_ends_with_one_line_and_a_non_zero_exit(tmp_path, prefect_home):
    run = _bare_run(prefect_home, "bwrap unshare setpriv", str(TASKFORGE), "cycle", "--family", "workflow",
                    "--budget", "1", "--data-dir", str(tmp_path / "out"),
                    env={"TASKFORGE_INFRA_ATTEMPTS": "1", "PREFECT_LOGGING_LEVEL": "CRITICAL"})

    assert run.returncode == 1
    assert "Traceback" not in run.stderr
    last = run.stderr.strip().splitlines()[-1]
    assert last.startswith("taskforge: error: cycle ") and "ended incomplete: 1 batch(es)" in last
    assert "no sandbox can run here: bubblewrap is not installed and util-linux unshare/setpriv are missing" in last
