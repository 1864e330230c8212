"""The Prefect task runner a flow uses, chosen by name (a CLI flag or a deployment parameter)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from taskforge.schemas import TaskforgeError

if TYPE_CHECKING:
    from prefect.task_runners import TaskRunner

TASK_RUNNERS = ("thread", "dask", "ray")


def share_api_with_workers() -> str:
    """The Prefect API URL that task runs in other processes report to; starts one when none is set.

    Without a configured API, each Dask or Ray worker process would start its
    own ephemeral server (and keep its own state). Starting Prefect's subprocess
    server here and exporting its URL before the cluster starts gives every
    worker the same API.
    """
    import os

    from prefect.settings import PREFECT_API_URL

    url = os.environ.get("PREFECT_API_URL") or PREFECT_API_URL.value()
    if not url:
        from prefect.server.api.server import SubprocessASGIServer

        server = SubprocessASGIServer()
        server.start()
        url = server.api_url
    os.environ["PREFECT_API_URL"] = url
    return url


def make_task_runner(name: str = "thread", address: str | None = None, workers: int | None = None) -> "TaskRunner":
    """A thread pool (default), a Dask cluster (local or at `address`) or Ray (local or at `address`)."""
    if name == "thread":
        from prefect.task_runners import ThreadPoolTaskRunner

        return ThreadPoolTaskRunner(max_workers=workers)
    if name in ("dask", "ray"):
        share_api_with_workers()
    if name == "dask":
        try:
            from prefect_dask import DaskTaskRunner
        except ImportError as exc:
            raise TaskforgeError("task runner 'dask' needs prefect-dask: pip install 'taskforge[scale]'") from exc
        if address:
            return DaskTaskRunner(address=address)
        return DaskTaskRunner(cluster_kwargs={"n_workers": workers or 2, "processes": True})
    if name == "ray":
        try:
            from prefect_ray import RayTaskRunner
        except ImportError as exc:
            raise TaskforgeError("task runner 'ray' needs prefect-ray: pip install 'taskforge[scale]'") from exc
        return RayTaskRunner(address=address) if address else RayTaskRunner()
    raise TaskforgeError(f"unknown task runner {name!r}; choose one of {', '.join(TASK_RUNNERS)}")
