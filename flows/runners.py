"""The Prefect task runner a flow uses, chosen by name (a CLI flag or a deployment parameter)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from schemas import TaskforgeError

if TYPE_CHECKING:
    from prefect.task_runners import TaskRunner

TASK_RUNNERS = ("thread", "dask", "ray")


def make_task_runner(name: str = "thread", address: str | None = None, workers: int | None = None) -> "TaskRunner":
    """A thread pool (default), a Dask cluster (local or at `address`) or Ray (local or at `address`)."""
    if name == "thread":
        from prefect.task_runners import ThreadPoolTaskRunner

        return ThreadPoolTaskRunner(max_workers=workers)
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
