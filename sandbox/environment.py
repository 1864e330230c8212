"""The environment variables a job sees: a clean, fixed set plus its own, never the host's."""

from __future__ import annotations

from taskforge.sandbox.api import Job

CA_BUNDLE = "/etc/ssl/certs/ca-certificates.crt"
SANDBOX_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
CA_VARIABLES = ("SSL_CERT_FILE", "REQUESTS_CA_BUNDLE", "PIP_CERT", "CURL_CA_BUNDLE", "GIT_SSL_CAINFO")


def job_environment(job: Job, extra: tuple[tuple[str, str], ...] = ()) -> dict[str, str]:
    """Variables for a job: the locale, and for build steps the CA bundle that the host trusts; then the job's own."""
    env = {"LANG": "C.UTF-8"}
    if job.network:
        env.update({name: CA_BUNDLE for name in CA_VARIABLES})
    env.update(dict(job.env))
    env.update(dict(extra))
    return env
