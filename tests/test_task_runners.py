"""The same cycle on the thread pool, a local Dask cluster (worker processes) and a local Ray instance
gives identical catalogs and identical shards."""

from __future__ import annotations

import pytest

from catalog_state import data_dir_state
from flows.cycle import cycle

pytestmark = pytest.mark.usefixtures("prefect_server")


@pytest.fixture
def shared_api(monkeypatch):
    """Worker processes reach the session's test server through the environment."""
    from prefect.settings import PREFECT_API_URL

    monkeypatch.setenv("PREFECT_API_URL", PREFECT_API_URL.value())


def _run(data_dir, task_runner: str) -> dict:
    summary = cycle(data_dir=str(data_dir), budget=5, families=["long_context"], target_tokens=4096,
                    task_runner=task_runner)
    assert summary["families"]["long_context"]["accepted"] == 5
    return data_dir_state(data_dir)


def test_thread_dask_and_ray_land_the_same_catalog_and_shards(tmp_path, shared_api):
    thread = _run(tmp_path / "thread", "thread")
    assert thread["files"], "the thread-pool run wrote no shard"
    assert _run(tmp_path / "dask", "dask") == thread
    assert _run(tmp_path / "ray", "ray") == thread
