"""CLI start-up: the temporary Prefect API starts at once and stops with the command, only for commands that run
flows, with a start-up wait that fits a loaded machine and a one-line error when it is overrun.
(Figures: bench/startup.py.)"""

from __future__ import annotations

import os
import subprocess
import sys
import urllib.request
from pathlib import Path

import psutil
import pytest

from taskforge.flows import cli, startup
from taskforge.flows.startup import STARTUP_TIMEOUT, api_configured, prefect_api, prepare_prefect

TRACE = Path(__file__).resolve().parents[1] / "data" / "samples" / "traces" / "ledger_agent.native.jsonl"
TASKFORGE = Path(sys.executable).with_name("taskforge")


@pytest.fixture
def no_api(monkeypatch, tmp_path):
    """No API URL in the environment and a Prefect home without profiles."""
    monkeypatch.delenv("PREFECT_API_URL", raising=False)
    monkeypatch.setenv("PREFECT_HOME", str(tmp_path / "prefect"))
    return tmp_path


def test_the_temporary_api_answers_while_the_command_runs_and_is_gone_after(no_api):
    with prefect_api(needed=True) as api:
        assert os.environ["PREFECT_API_URL"] == api.url
        api.wait()
        with urllib.request.urlopen(f"{api.url}/health", timeout=10) as response:
            assert response.status == 200
    assert api.process.poll() is not None
    assert "PREFECT_API_URL" not in os.environ


def test_no_server_when_one_is_configured_or_not_needed(no_api, monkeypatch):
    with prefect_api(needed=False) as api:
        assert api is None
    (no_api / "prefect").mkdir()
    (no_api / "prefect" / "profiles.toml").write_text(
        'active = "team"\n[profiles.team]\nPREFECT_API_URL = "http://127.0.0.1:4200/api"\n')
    assert api_configured()
    with prefect_api(needed=True) as api:
        assert api is None
    monkeypatch.setenv("PREFECT_PROFILE", "other")
    assert not api_configured()


def test_commands_without_flows_never_start_a_server(no_api, monkeypatch, capsys):
    def refuse():
        raise AssertionError("a command without flows started an API server")

    monkeypatch.setattr(startup, "TemporaryAPI", refuse)
    assert cli.main(["decontam", "list", "--data-dir", str(no_api / "data"), "--json"]) == 0
    assert '"kind": "decontam"' in capsys.readouterr().out


def test_the_start_up_wait_defaults_to_a_loaded_machines_and_keeps_a_users_setting(monkeypatch):
    monkeypatch.delenv(STARTUP_TIMEOUT, raising=False)
    prepare_prefect(json_output=False)
    assert os.environ[STARTUP_TIMEOUT] == "180"
    monkeypatch.setenv(STARTUP_TIMEOUT, "45")
    prepare_prefect(json_output=False)
    assert os.environ[STARTUP_TIMEOUT] == "45"


def test_an_overrun_start_up_wait_is_one_line_and_exit_1(no_api):
    env = {**os.environ, STARTUP_TIMEOUT: "0"}
    run = subprocess.run([str(TASKFORGE), "diagnose", str(TRACE), "--data-dir", str(no_api / "data")],
                         env=env, capture_output=True, text=True, timeout=300)

    assert run.returncode == 1
    assert run.stderr.strip().splitlines()[-1] == (
        f"taskforge: error: the Prefect API server did not answer within 0 s (raise {STARTUP_TIMEOUT}, "
        "or set PREFECT_API_URL to a running server)")
    assert "Traceback" not in run.stderr


def test_an_incomplete_run_is_summed_up_in_one_line():
    failures = [{"stage": "build", "batch": "workflow-1", "reason": "build of workflow-1: infrastructure failed "
                 "3 time(s), last: no sandbox can run here\nsecond line", "attempts": 3}] * 2
    assert cli.incomplete_reason({"kind": "cycle", "cycle_id": "c-1", "infrastructure_failures": failures}) == (
        "cycle c-1 ended incomplete: 2 batch(es) failed on infrastructure on every attempt (first: build of "
        "workflow-1: infrastructure failed 3 time(s), last: no sandbox can run here); run the same command "
        "again to resume")
    assert cli.incomplete_reason({"kind": "cycle", "infrastructure_failures": []}) is None


def test_serve_has_no_json_option_and_starts_no_temporary_api(no_api, monkeypatch):
    from taskforge.flows import serve

    monkeypatch.setattr(startup, "TemporaryAPI", lambda: pytest.fail("serve started a temporary API"))
    monkeypatch.setattr(serve, "serve", lambda host, port, database_url: port)
    assert cli.main(["serve", "--port", "4321"]) == 4321


def test_a_killed_command_leaves_no_api_server_behind(no_api):
    holder = subprocess.Popen([sys.executable, "-c", (
        "import sys, time\n"
        "from taskforge.flows.startup import prefect_api\n"
        "with prefect_api(needed=True) as api:\n"
        "    print(api.process.pid, flush=True)\n"
        "    time.sleep(600)\n")], stdout=subprocess.PIPE, text=True, env=os.environ.copy())
    server = psutil.Process(int(holder.stdout.readline()))
    holder.kill()
    holder.wait()

    server.wait(timeout=30)  # psutil.TimeoutExpired if the server outlives the command
    assert not server.is_running()
