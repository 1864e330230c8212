"""S3 test fixtures (a plugin of tests/conftest.py): an S3 API served on loopback by moto in server mode.

The server is a separate process speaking the S3 HTTP protocol; s3fs (and so
every fsspec URL `s3://…`) reaches it through the standard `AWS_*` variables,
which worker processes started afterwards inherit.
"""

from __future__ import annotations

import os
import secrets
import socket
import subprocess
import sys
import time

import pytest

from taskforge.schemas.locations import filesystem

CREDENTIALS = {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_DEFAULT_REGION": "us-east-1"}


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="session")
def s3_endpoint():
    """The URL of a moto S3 server on loopback; `AWS_*` point every S3 client of this session (and its
    worker processes) at it."""
    port = _free_port()
    server = subprocess.Popen([sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            time.sleep(0.1)
    else:
        server.kill()
        pytest.fail("the moto S3 server did not start")
    saved = {key: os.environ.get(key) for key in (*CREDENTIALS, "AWS_ENDPOINT_URL")}
    os.environ.update({**CREDENTIALS, "AWS_ENDPOINT_URL": url})
    yield url
    for key, value in saved.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value
    server.terminate()
    server.wait(timeout=10)


@pytest.fixture
def s3_data_dir(s3_endpoint) -> str:
    """A data dir URL in a fresh bucket of the moto server."""
    bucket = f"taskforge-{secrets.token_hex(4)}"
    fs, _ = filesystem(f"s3://{bucket}")
    fs.mkdir(bucket)
    return f"s3://{bucket}/data"
