"""The same cycle on the thread pool, a local Dask cluster (worker processes) and a local Ray instance
gives identical catalogs and identical shards; so does a Dask cycle whose data dir is an S3 bucket."""

from __future__ import annotations

from pathlib import Path

import pytest

from catalog_state import data_dir_state
from taskforge.flows.cycle import cycle

pytestmark = pytest.mark.usefixtures("prefect_server")


@pytest.fixture(scope="module")
def thread_state(tmp_path_factory) -> dict:
    """The catalog and shards of the cycle on the default thread pool, with a local data dir."""
    state = _run(tmp_path_factory.mktemp("thread"), "thread")
    assert state["files"], "the thread-pool run wrote no shard"
    return state


def _run(data_dir, task_runner: str, catalog: Path | None = None) -> dict:
    summary = cycle(data_dir=str(data_dir), budget=5, families=["long_context"], target_tokens=4096,
                    task_runner=task_runner, catalog_path=str(catalog) if catalog else None)
    assert summary["families"]["long_context"]["accepted"] == 5
    return data_dir_state(data_dir, catalog)


def test_thread_dask_and_ray_land_the_same_catalog_and_shards(tmp_path, thread_state):
    assert _run(tmp_path / "dask", "dask") == thread_state
    assert _run(tmp_path / "ray", "ray") == thread_state


def test_dask_workers_writing_to_s3_land_the_same_shards_as_a_local_run(tmp_path, thread_state, s3_data_dir):
    on_s3 = _run(s3_data_dir, "dask", catalog=tmp_path / "catalog.duckdb")
    assert on_s3 == thread_state
    assert set(on_s3["files"]) >= {"shards/manifest.json"}
    assert not (tmp_path / "work").exists() and not (tmp_path / "shards").exists(), "nothing went to a local folder"


def test_dask_workers_share_the_llm_limit_and_every_row_is_committed_once(tmp_path, monkeypatch):
    """Two diagnose batches on two worker processes, each diagnosing with as many threads as the limit,
    ask for up to twice the limit at once: the endpoint never sees more than the limit in flight, and the catalog
    holds each call, episode, diagnosis and task exactly once."""
    import taskforge.flows.stages as flows_stages
    from llm_server import Canned, ChatServer
    from taskforge.store.catalog import Catalog
    from test_agents import endpoint_env
    from test_llm_cycle import _respond

    monkeypatch.setattr(flows_stages, "FILES_PER_DIAGNOSE_BATCH", 1)

    def slow(body: dict) -> Canned:
        reply = _respond(body)
        reply.delay_s = 0.3
        return reply

    with ChatServer(slow) as server:
        for name, value in endpoint_env(server, tmp_path, TASKFORGE_LLM_DIAGNOSIS="all",
                                        TASKFORGE_LLM_CONCURRENCY="2").items():
            monkeypatch.setenv(name, value)
        summary = cycle(data_dir=str(tmp_path / "data"), budget=8, target_tokens=4096, families=["long_context"],
                        task_runner="dask")
    assert server.max_in_flight == 2, f"{server.max_in_flight} requests in flight at once (limit 2)"
    with Catalog(tmp_path / "data" / "catalog.duckdb", read_only=True) as catalog:
        count = lambda sql: catalog.query(sql)[0]["n"]  # noqa: E731
        assert count("SELECT count(*) AS n FROM llm_calls") == len(server.requests)
        assert count("SELECT count(DISTINCT call_id) AS n FROM llm_calls") == len(server.requests)
        assert count("SELECT count(*) AS n FROM diagnoses WHERE diagnoser = 'llm'") == 9
        assert count("SELECT count(*) AS n FROM episodes") == summary["episodes"] == 14
        assert count("SELECT count(*) AS n FROM tasks") == summary["families"]["long_context"]["candidates"]
        assert count("SELECT sum(rows) AS n FROM shards") == summary["families"]["long_context"]["accepted"]
        assert count("SELECT count(*) AS n FROM (SELECT DISTINCT task_id, \"check\" FROM validations)") == \
            count("SELECT count(*) AS n FROM validations")
    assert summary["families"]["long_context"]["accepted"] == 8
    assert summary["llm_steps"]["review"].startswith("ran: 8 call(s)")
