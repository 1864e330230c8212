"""The DuckDB catalog: one record of every cycle, input, diagnosis, gap and task, accepted or not.

DuckDB allows one writing process, so only the flow (never a worker) opens the
catalog for writing. Every insert is keyed by a content id and ignores rows that
are already there, so landing the same thing twice never duplicates it.
"""

from __future__ import annotations

import datetime as dt
import json
from importlib import resources
from pathlib import Path
from typing import Any, Iterable, Sequence

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from taskforge.schemas import Diagnosis, Episode, Gap, LLMCall, PlanItem, Quarantined, canonical_json, to_row
from taskforge.store.crashpoints import crash_point
from taskforge.store.shards import ShardFile


def _now() -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc)


class Catalog:
    """A DuckDB catalog file; use as a context manager so the connection is closed."""

    def __init__(self, path: Path, read_only: bool = False):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.con = duckdb.connect(str(self.path), read_only=read_only)
        if not read_only:
            self.con.execute(resources.files("taskforge.store").joinpath("catalog_schema.sql").read_text())

    def __enter__(self) -> "Catalog":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.con.close()

    def _insert(self, table: str, rows: Sequence[dict[str, Any]]) -> int:
        """Insert rows, skipping those whose key is already present; returns rows added."""
        return self._insert_table(table, pa.Table.from_pylist(list(rows))) if rows else 0

    def _insert_table(self, table: str, incoming: pa.Table) -> int:
        """Insert an Arrow table's rows in one statement, skipping those whose key is already present; returns
        rows added (the count the statement itself returns: counting the table before and after scanned it)."""
        if not incoming.num_rows:
            return 0
        self.con.register("incoming", incoming)
        try:
            quoted = ", ".join(f'"{c}"' for c in incoming.column_names)
            return self._scalar(f"INSERT INTO {table} ({quoted}) SELECT {quoted} FROM incoming ON CONFLICT DO NOTHING")
        finally:
            self.con.unregister("incoming")

    def _scalar(self, sql: str, params: Sequence[Any] = ()) -> Any:
        """The first value of a query's first row (None when it has no rows), with the result consumed."""
        rows = self.con.execute(sql, list(params)).fetchall()
        return rows[0][0] if rows else None

    def transaction(self) -> "_Transaction":
        """A block whose writes commit together or not at all."""
        return _Transaction(self.con)

    def start_cycle(self, cycle_id: str, kind: str, params: dict[str, Any]) -> None:
        """Open a run, or reopen it on a rerun: batches whose infrastructure failed are done again, so their
        quarantine records are cleared here and written again only if they fail again."""
        self.con.execute("DELETE FROM quarantine WHERE cycle_id = ? AND infrastructure", [cycle_id])
        self.con.execute(
            """INSERT INTO cycles VALUES (?, ?, ?, 'running', 1, ?, NULL, NULL)
               ON CONFLICT (cycle_id) DO UPDATE SET attempts = cycles.attempts + 1, status = 'running'""",
            [cycle_id, kind, canonical_json(params), _now()],
        )

    def finish_cycle(self, cycle_id: str, status: str, summary: dict[str, Any]) -> None:
        self.con.execute(
            "UPDATE cycles SET status = ?, finished_at = ?, summary = ? WHERE cycle_id = ?",
            [status, _now(), canonical_json(summary), cycle_id],
        )

    def record_stage_time(self, cycle_id: str, stage: str, seconds: float) -> None:
        """How long a stage of a run took (the latest attempt's time is kept)."""
        self.con.execute(
            """INSERT INTO stage_times VALUES (?, ?, ?, ?)
               ON CONFLICT (cycle_id, stage) DO UPDATE SET seconds = excluded.seconds, recorded_at = excluded.recorded_at""",
            [cycle_id, stage, round(seconds, 6), _now()],
        )

    def record_infrastructure_events(self, cycle_id: str, events: Iterable[dict[str, Any]], recovered: bool) -> int:
        """Failed attempts of a batch whose infrastructure failed; `recovered` when a later attempt succeeded."""
        return self._insert("infrastructure_events", [
            {"cycle_id": cycle_id, "stage": e["stage"], "batch": e["batch"], "attempt": e["attempt"],
             "error": e["error"], "recovered": recovered} for e in events])

    def record_quarantine(self, cycle_id: str, items: Iterable[Quarantined]) -> int:
        return self._insert("quarantine", [{**to_row(q), "cycle_id": cycle_id} for q in items])

    def record_episodes(self, cycle_id: str, episodes: Iterable[Episode]) -> int:
        rows = [
            {
                "episode_id": e.episode_id, "cycle_id": cycle_id, "task_id": e.task_id, "family": e.family,
                "source_format": e.source_format, "source_file": e.source_file, "n_steps": len(e.steps),
                "n_segments": len(e.segments), "success": e.outcome.success, "score": e.outcome.score,
                "failure_origin": e.outcome.failure_origin, "graded": e.outcome.graded,
            }
            for e in episodes
        ]
        return self._insert("episodes", rows)

    def record_diagnoses(self, cycle_id: str, diagnoses: Iterable[Diagnosis]) -> int:
        return self._insert("diagnoses", [{**to_row(d), "cycle_id": cycle_id} for d in diagnoses])

    def record_gaps(self, gaps: Iterable[Gap]) -> int:
        return self._insert("gaps", [to_row(g) for g in gaps])

    def record_plan(self, cycle_id: str, items: Iterable[PlanItem]) -> int:
        return self._insert("plan", [{**to_row(i), "cycle_id": cycle_id} for i in items])

    def record_task_table(self, table: pa.Table, shard_of: dict[str, str]) -> int:
        """Record task rows (the Task schema) and their check results in bulk, straight from Arrow."""
        ids = table.column("task_id").to_pylist()
        lineage = table.column("lineage").to_pylist()
        tasks = pa.table({
            "task_id": ids, "cycle_id": [entry["cycle_id"] for entry in lineage],
            **{name: table.column(name) for name in ("family", "kind", "capability", "status", "reasons")},
            "lineage": [canonical_json(entry) for entry in lineage],
            "shard": pa.array([shard_of.get(task_id) for task_id in ids], type=pa.string())})
        column = table.column("validation").combine_chunks()
        checks = column.flatten()
        parents = pc.list_parent_indices(column).to_numpy()
        starts = column.offsets.to_numpy() - column.offsets[0].as_py()
        validations = pa.table({
            **{name: checks.field(name) for name in (f.name for f in checks.type)},
            "task_id": table.column("task_id").take(pa.array(parents)),
            "position": pa.array(np.arange(len(checks)) - starts[parents], type=pa.int64())})
        added = self._insert_table("tasks", tasks)
        self._insert_table("validations", validations)
        return added

    def record_shards(self, cycle_id: str, shards: Iterable[ShardFile]) -> int:
        return self._insert("shards", [{**vars(s), "cycle_id": cycle_id} for s in shards])

    def record_llm_calls(self, calls: Iterable[LLMCall]) -> int:
        """Record LLM calls (each carries its cycle, stage and subject); a call already recorded is kept as is."""
        return self._insert("llm_calls", [to_row(c) for c in calls])

    def record_signatures(self, signatures: dict[str, tuple[str, bytes]]) -> int:
        """Record the MinHash signatures of accepted tasks (task id → family and signature bytes)."""
        return self._insert("signatures", [{"task_id": task_id, "family": family, "signature": signed}
                                           for task_id, (family, signed) in sorted(signatures.items())])

    def signatures(self) -> list[tuple[str, bytes, str | None]]:
        """(task id, signature, parent task id) of every accepted task that has a signature, by task id."""
        return self.con.execute(
            "SELECT s.task_id, s.signature, json_extract_string(t.lineage, '$.parent_task_id') FROM signatures s "
            "JOIN tasks t USING (task_id) WHERE t.status = 'accepted' ORDER BY s.task_id").fetchall()

    def unsigned_accepted(self) -> dict[str, list[str]]:
        """Accepted tasks with no signature yet (landed before signatures were kept, or before a crash), by shard."""
        rows = self.con.execute(
            "SELECT shard, task_id FROM tasks WHERE status = 'accepted' AND shard IS NOT NULL "
            "AND task_id NOT IN (SELECT task_id FROM signatures) ORDER BY shard, task_id").fetchall()
        by_shard: dict[str, list[str]] = {}
        for shard, task_id in rows:
            by_shard.setdefault(shard, []).append(task_id)
        return by_shard

    def record_release(self, version: str, rows: dict[str, int], removals: Sequence[dict[str, Any]]) -> None:
        """Record (replacing an earlier export of the same version) a release's rows per family and removals."""
        self.con.execute("DELETE FROM releases WHERE version = ?", [version])
        self.con.execute("DELETE FROM release_removals WHERE version = ?", [version])
        removed: dict[str, int] = {}
        for removal in removals:
            removed[removal["family"]] = removed.get(removal["family"], 0) + 1
        families = sorted(set(rows) | set(removed))
        self._insert("releases", [{"version": version, "family": f, "rows": rows.get(f, 0),
                                   "removed": removed.get(f, 0)} for f in families])
        self._insert("release_removals", [{"version": version, **removal} for removal in removals])

    def record_sft(self, run_id: str, examples: Sequence[dict[str, Any]]) -> int:
        """Record every episode an SFT export considered, selected or not, with why."""
        return self._insert("sft_examples", [{"run_id": run_id, **example} for example in examples])

    def regrades(self, episode_ids: Iterable[str]) -> dict[str, tuple[float | None, str]]:
        """The regrade already recorded for each of these episodes (score and note), so none is regraded twice."""
        ids = list(episode_ids)
        if not ids:
            return {}
        rows = self.con.execute(
            "SELECT episode_id, any_value(regraded_score), any_value(regrade) FROM sft_examples "
            "WHERE episode_id IN (SELECT unnest(?)) AND regrade LIKE 'regraded%' GROUP BY episode_id", [ids]).fetchall()
        return {episode_id: (score, note) for episode_id, score, note in rows}

    def known_task_ids(self, task_ids: Iterable[str]) -> set[str]:
        """Which of these task ids are already in the catalog (accepted or rejected)."""
        ids = list(task_ids)
        if not ids:
            return set()
        rows = self.con.execute("SELECT task_id FROM tasks WHERE task_id IN (SELECT unnest(?))", [ids]).fetchall()
        return {r[0] for r in rows}

    def all_shards(self) -> list[ShardFile]:
        rows = self.con.execute("SELECT path, family, rows, bytes, sha256 FROM shards ORDER BY path").fetchall()
        return [ShardFile(*row) for row in rows]

    def quarantine_of(self, cycle_id: str) -> list[dict[str, Any]]:
        """Every input or candidate a run quarantined: stage, source and reason."""
        return self.query("SELECT stage, source, reason FROM quarantine WHERE cycle_id = ? ORDER BY stage, source",
                          [cycle_id])

    def infrastructure_failures(self, cycle_id: str) -> list[dict[str, Any]]:
        """Batches of a run whose infrastructure failed on every attempt (a rerun does them again)."""
        return self.query("""SELECT stage, source AS batch, reason, json_extract(detail, '$.attempts')::INTEGER AS attempts
                             FROM quarantine WHERE cycle_id = ? AND infrastructure ORDER BY stage, source""",
                          [cycle_id])

    def shard_paths(self, cycle_id: str) -> list[str]:
        """Shards written by a cycle, relative to the shard root."""
        rows = self.con.execute("SELECT path FROM shards WHERE cycle_id = ? ORDER BY path", [cycle_id]).fetchall()
        return [r[0] for r in rows]

    def builders_of(self, family: str) -> list[str]:
        """The builders whose accepted tasks of a family are in the catalog."""
        rows = self.con.execute(
            "SELECT DISTINCT json_extract_string(lineage, '$.builder') FROM tasks "
            "WHERE family = ? AND status = 'accepted' ORDER BY 1", [family]).fetchall()
        return [r[0] for r in rows]

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
        """Run a read query and return rows as dicts."""
        cursor = self.con.execute(sql, list(params))
        names = [d[0] for d in cursor.description]
        return [dict(zip(names, row)) for row in cursor.fetchall()]

    def latest_cycle(self) -> str | None:
        return self._scalar("SELECT cycle_id FROM cycles ORDER BY started_at DESC LIMIT 1")

    def cycle_summary(self, cycle_id: str) -> dict[str, Any] | None:
        summary = self._scalar("SELECT summary FROM cycles WHERE cycle_id = ?", [cycle_id])
        return json.loads(summary) if summary else None


class _Transaction:
    def __init__(self, con: duckdb.DuckDBPyConnection):
        self.con = con

    def __enter__(self) -> None:
        self.con.execute("BEGIN TRANSACTION")

    def __exit__(self, exc_type: object, *rest: object) -> None:
        if exc_type:
            self.con.execute("ROLLBACK")
            return
        crash_point("catalog_commit")
        self.con.execute("COMMIT")
