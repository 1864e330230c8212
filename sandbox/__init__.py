"""Where untrusted code runs: Docker containers, or a network namespace where there is no engine."""

from sandbox.api import BASE_IMAGE, Job, Result, Sandbox, Session

__all__ = ["BASE_IMAGE", "Job", "Result", "Sandbox", "Session"]
