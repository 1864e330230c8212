"""One job per sandbox, on both backends: workspace in, outputs out, and every limit doing its job."""

from __future__ import annotations

import hashlib
import secrets
import shutil
import tempfile
from pathlib import Path

import pytest

from taskforge.sandbox.api import OUTPUT_TAIL_BYTES, Job

FORK_UNTIL_REFUSED = """
import os, time
children = 0
try:
    while children < 1000:
        if os.fork() == 0:
            time.sleep(60)
            os._exit(0)
        children += 1
except OSError as error:
    print("refused after", children, type(error).__name__)
"""


def python(code: str) -> tuple[str, ...]:
    """A job command running Python code."""
    return ("python3", "-c", code)


def test_job_runs_in_a_copy_of_its_workspace_and_outputs_come_back(any_sandbox, tmp_path):
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "solve.py").write_text("import pathlib\npathlib.Path('out').mkdir()\n"
                                        "pathlib.Path('out/answer.txt').write_text('42')\nprint('solved')\n")
    job = Job(command=("python3", "solve.py"), workspace=workspace, collect=("out/answer.txt", "absent.txt"))

    result = any_sandbox.run(job, collect_to=tmp_path / "collected")

    assert result.ok, result
    assert result.stdout == "solved\n"
    assert (tmp_path / "collected" / "out" / "answer.txt").read_text() == "42"
    assert result.extra["not_collected"] == ["absent.txt"]
    assert not (workspace / "out").exists(), "the job must work on a copy, not on the caller's folder"
    assert result.backend == any_sandbox.backend and result.backend_reason == "test"
    assert result.setup_s > 0 and result.run_s > 0 and result.teardown_s > 0


def test_exit_code_and_output_of_a_failing_job_are_kept(any_sandbox):
    result = any_sandbox.run(Job(command=("sh", "-c", "echo out; echo err >&2; exit 3")))

    assert (result.exit_code, result.stdout, result.stderr) == (3, "out\n", "err\n")
    assert not result.ok and result.infrastructure_error is None


def test_a_missing_command_is_the_job_failing_not_the_sandbox(any_sandbox):
    result = any_sandbox.run(Job(command=("no-such-command-here",)))

    assert result.exit_code == 127
    assert result.infrastructure_error is None


def test_output_is_bounded_and_keeps_its_tail(any_sandbox):
    code = "import sys\nfor i in range(40000): print(f'line {i:06d}')\nprint('THE END')"

    result = any_sandbox.run(Job(command=python(code)))

    assert result.ok
    assert len(result.stdout.encode()) == OUTPUT_TAIL_BYTES
    assert result.stdout.endswith("line 039999\nTHE END\n")


def test_infinite_loop_is_killed_at_its_timeout(any_sandbox):
    result = any_sandbox.run(Job(command=python("while True: pass"), timeout_s=2))

    assert result.timed_out and not result.ok
    assert result.exit_code is None
    assert 2 <= result.run_s < 6


@pytest.mark.docker
def test_memory_hog_is_oom_killed_in_a_container(docker_sandbox):
    result = docker_sandbox.run(Job(command=python("blocks = [bytearray(16 << 20) for _ in range(64)]"),
                                    memory_mb=128))

    assert result.oom_killed and not result.ok
    assert result.exit_code == 137


def test_memory_hog_is_refused_its_memory_by_the_process_backend(process_sandbox):
    result = process_sandbox.run(Job(command=python("blocks = [bytearray(16 << 20) for _ in range(64)]"),
                                     memory_mb=128))

    assert not result.ok and result.exit_code != 0
    assert "MemoryError" in result.stderr
    assert not result.oom_killed, "an address-space limit refuses the allocation; nothing is OOM-killed"


def test_fork_bomb_is_contained_by_the_pids_limit(any_sandbox):
    result = any_sandbox.run(Job(command=python(FORK_UNTIL_REFUSED), pids=64, timeout_s=30))

    assert result.exit_code == 0, result
    refused, after, children, error = result.stdout.split()
    assert (refused, after, error) == ("refused", "after", "BlockingIOError")
    assert 0 < int(children) < 64
    assert result.run_s < 20, "the children (sleeping 60 s) must die with the job"


def test_a_file_bigger_than_the_file_size_limit_cannot_be_written(any_sandbox):
    code = "open('big', 'wb').write(bytes(3 << 20))"

    result = any_sandbox.run(Job(command=python(code), file_size_mb=1))

    assert not result.ok
    assert "File too large" in result.stderr or result.exit_code == 128 + 25


def test_job_cannot_touch_the_hosts_files(any_sandbox):
    host_dir = Path(tempfile.mkdtemp(prefix="taskforge-sentinel-", dir="/var/tmp"))
    sentinel = host_dir / "sentinel.txt"
    sentinel.write_text("host data")
    probe = Path("/etc") / f"taskforge-sandbox-probe-{secrets.token_hex(4)}"
    attempts = (f"echo pwned > {sentinel}; rm -f {sentinel}; rm -rf {host_dir}; touch {probe}; "
                "echo pwned >> /etc/hostname; echo done")
    hostname_before = hashlib.sha256(Path("/etc/hostname").read_bytes()).hexdigest()
    try:
        result = any_sandbox.run(Job(command=("sh", "-c", attempts)))

        assert result.stdout == "done\n"
        assert sentinel.read_text() == "host data"
        assert not probe.exists()
        assert hashlib.sha256(Path("/etc/hostname").read_bytes()).hexdigest() == hostname_before
    finally:
        probe.unlink(missing_ok=True)
        shutil.rmtree(host_dir)


def test_links_planted_by_the_job_do_not_bring_host_files_out(any_sandbox, tmp_path):
    plant = "mkdir out && echo mine > out/mine.txt && ln -s /etc/hostname out/host && ln -s /etc out/etc"
    job = Job(command=("sh", "-c", plant), collect=("out", "out/host"))

    result = any_sandbox.run(job, collect_to=tmp_path / "collected")

    assert result.ok
    assert sorted(p.name for p in (tmp_path / "collected").rglob("*")) == ["mine.txt", "out"]
    assert result.extra["not_collected"] == ["out/host"]
