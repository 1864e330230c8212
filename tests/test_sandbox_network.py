"""No network for jobs; build steps reach a server the test starts (host loopback, or a container on a test network)."""

from __future__ import annotations

import hashlib
import secrets
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from taskforge.sandbox.api import BASE_IMAGE, Job
from taskforge.sandbox.container import DockerSandbox
from taskforge.sandbox.environment import CA_BUNDLE

FETCH = ("python3", "-c", ("import sys, urllib.request\n"
                           "print(urllib.request.urlopen(sys.argv[1], timeout=5).read().decode())"))
FETCH_AND_HASH_CA = ("python3", "-c", ("import hashlib, os, sys, urllib.request\n"
                                       "print(urllib.request.urlopen(sys.argv[1], timeout=5).read().decode())\n"
                                       "print(os.environ['SSL_CERT_FILE'])\n"
                                       "ca = open(os.environ['SSL_CERT_FILE'], 'rb').read()\n"
                                       "print(hashlib.sha256(ca).hexdigest())"))
SERVED = "served by the test"


class Answer(BaseHTTPRequestHandler):
    """Answers every GET with a fixed body."""

    def do_GET(self) -> None:
        """Send the body."""
        body = SERVED.encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args) -> None:
        """Stay quiet."""


@pytest.fixture
def loopback_server():
    """An HTTP server of the test on 127.0.0.1 (an ephemeral port), stopped afterwards."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), Answer)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


@pytest.fixture
def container_server(docker_engine, test_network):
    """An HTTP server in a container of the test, on the test's internal network; its URL by container name."""
    name = f"taskforge-test-web-{secrets.token_hex(4)}"
    script = (f"mkdir -p /srv/www && printf '{SERVED}' > /srv/www/index.txt "
              "&& cd /srv/www && exec python3 -m http.server 8000")
    server = docker_engine.containers.run(BASE_IMAGE, ["sh", "-c", script], name=name, network=test_network.name,
                                          detach=True)
    try:
        deadline = time.monotonic() + 30
        probe = "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/index.txt', timeout=1)"
        while server.exec_run(["python3", "-c", probe]).exit_code != 0:
            assert time.monotonic() < deadline, "the test's HTTP server did not come up"
            time.sleep(0.2)
        yield f"http://{name}:8000/index.txt"
    finally:
        server.remove(force=True)


def test_process_job_cannot_reach_a_server_on_host_loopback(process_sandbox, loopback_server):
    result = process_sandbox.run(Job(command=(*FETCH, loopback_server)))

    assert not result.ok
    assert "Connection refused" in result.stderr


def test_process_build_step_reaches_the_server_on_host_loopback(process_sandbox, loopback_server):
    result = process_sandbox.run(Job(command=(*FETCH, loopback_server), network=True))

    assert result.ok, result
    assert result.stdout.strip() == SERVED


@pytest.mark.docker
def test_container_job_cannot_reach_a_server_on_the_test_network(docker_engine, test_network, container_server,
                                                                 sandbox_temp_root):
    sandbox = DockerSandbox(client=docker_engine, reason="test", build_network=test_network.name,
                            temp_root=sandbox_temp_root)

    result = sandbox.run(Job(command=(*FETCH, container_server)))

    assert not result.ok
    assert "URLError" in result.stderr


@pytest.mark.docker
def test_container_build_step_reaches_the_server_and_trusts_the_hosts_ca(docker_engine, test_network,
                                                                          container_server, sandbox_temp_root):
    sandbox = DockerSandbox(client=docker_engine, reason="test", build_network=test_network.name,
                            temp_root=sandbox_temp_root)
    result = sandbox.run(Job(command=(*FETCH_AND_HASH_CA, container_server), network=True))

    assert result.ok, result
    served, ca_bundle, ca_digest = result.stdout.strip().splitlines()
    assert served == SERVED
    assert ca_bundle == CA_BUNDLE
    assert ca_digest == hashlib.sha256(Path(CA_BUNDLE).read_bytes()).hexdigest()
