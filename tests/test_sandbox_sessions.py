"""Sessions: one sandbox for several commands (SWE validation runs the tests four times or more)."""

from __future__ import annotations

import secrets
from pathlib import Path

import pytest

from taskforge.sandbox.api import Job
from taskforge.sandbox.container import SANDBOX_LABEL


def test_session_keeps_its_workspace_across_commands_and_moves_files(any_sandbox, tmp_path):
    workspace = tmp_path / "repo"
    workspace.mkdir()
    (workspace / "test_count.py").write_text("import pathlib\np = pathlib.Path('runs.txt')\n"
                                             "p.write_text(p.read_text() + 'x' if p.exists() else 'x')\n"
                                             "print(len(p.read_text()))\n")
    patch = tmp_path / "patch"
    patch.mkdir()
    (patch / "fix.txt").write_text("the fix")

    with any_sandbox.session(Job(command=(), workspace=workspace)) as session:
        counts = [session.exec(("python3", "test_count.py")).stdout.strip() for _ in range(4)]
        session.put(patch, "incoming/patch")
        applied = session.exec(("sh", "-c", "cat incoming/patch/fix.txt && touch incoming/patch/applied"))
        session.get("runs.txt", tmp_path / "out")

    assert counts == ["1", "2", "3", "4"]
    assert applied.ok and applied.stdout == "the fix"
    assert (tmp_path / "out" / "runs.txt").read_text() == "xxxx"


def test_session_command_past_its_timeout_is_killed_and_the_session_goes_on(any_sandbox):
    with any_sandbox.session(Job(command=(), timeout_s=30)) as session:
        session.exec(("sh", "-c", "echo kept > state.txt"))
        stuck = session.exec(("sh", "-c", "sleep 1000 & while true; do sleep 1; done"), timeout_s=1.5)
        after = session.exec(("cat", "state.txt"))

    assert stuck.timed_out and stuck.exit_code is None
    assert stuck.run_s < 15
    assert after.ok and after.stdout == "kept\n"


def test_process_session_put_does_not_follow_a_link_out_of_the_workspace(process_sandbox, tmp_path):
    name = f"taskforge-payload-{secrets.token_hex(4)}.txt"
    source = tmp_path / name
    source.write_text("payload")
    try:
        with process_sandbox.session(Job(command=())) as session:
            session.exec(("ln", "-s", "/etc", "escape"))
            with pytest.raises(ValueError):
                session.put(source, f"escape/{name}")
    finally:
        landed = Path("/etc") / name
        assert not landed.exists()
        landed.unlink(missing_ok=True)


@pytest.mark.docker
def test_docker_session_starts_one_container_and_removes_it(docker_sandbox, docker_engine):
    label = f"session-test-{secrets.token_hex(4)}"
    ours = {"label": f"{SANDBOX_LABEL}={label}"}
    with docker_sandbox.session(Job(command=(), label=label)) as session:
        session.container.reload()
        started_at = session.container.attrs["State"]["StartedAt"]
        results = [session.exec(("true",)) for _ in range(4)]
        session.container.reload()
        restarted_at = session.container.attrs["State"]["StartedAt"]
        during = docker_engine.containers.list(all=True, filters=ours)

    assert all(result.ok for result in results)
    assert [container.id for container in during] == [session.container.id]
    assert restarted_at == started_at
    assert docker_engine.containers.list(all=True, filters=ours) == []


@pytest.mark.docker
def test_docker_session_reports_an_oom_kill_for_that_command_only(docker_sandbox):
    with docker_sandbox.session(Job(command=(), memory_mb=128)) as session:
        hog = session.exec(("python3", "-c", "blocks = [bytearray(16 << 20) for _ in range(64)]"))
        fine = session.exec(("python3", "-c", "print('fine')"))

    assert hog.oom_killed and hog.exit_code == 137
    assert fine.ok and not fine.oom_killed
