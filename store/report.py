"""What a cycle did, read back from the catalog: diagnoses, gaps, the funnel per family, quarantine."""

from __future__ import annotations

from typing import Any

from taskforge.schemas import NOT_APPLICABLE, SKIPPED, TaskforgeError
from taskforge.store.catalog import Catalog


def funnel(catalog: Catalog, cycle_id: str | None) -> list[dict[str, Any]]:
    """Per family: candidates, how many passed each check in order, accepted, rejected (of one cycle, or of
    every cycle when `cycle_id` is None). Every family has the same checks (one per question); `passed`
    counts every task a check let through, of which `not_applicable` (the family or task has no strategy
    for the question) and `skipped` (the strategy could not run: no endpoint, already rejected) were not
    judged by it."""
    rows = catalog.query(
        """SELECT t.family, count(DISTINCT t.task_id) AS candidates,
                  count(DISTINCT t.task_id) FILTER (WHERE t.status = 'accepted') AS accepted,
                  count(DISTINCT t.task_id) FILTER (WHERE t.status = 'rejected') AS rejected
           FROM tasks t WHERE ?::VARCHAR IS NULL OR t.cycle_id = ? GROUP BY t.family ORDER BY t.family""",
        [cycle_id, cycle_id])
    checks = catalog.query(
        f"""SELECT t.family, v."check", count(*) FILTER (WHERE v.passed) AS passed,
                  count(*) FILTER (WHERE NOT v.passed) AS failed,
                  count(*) FILTER (WHERE json_extract_string(v.detail, '$.{NOT_APPLICABLE}') IS NOT NULL)
                      AS not_applicable,
                  count(*) FILTER (WHERE json_extract_string(v.detail, '$.{SKIPPED}') IS NOT NULL) AS skipped,
                  min(v.position) AS position
           FROM tasks t JOIN validations v USING (task_id) WHERE ?::VARCHAR IS NULL OR t.cycle_id = ?
           GROUP BY t.family, v."check" ORDER BY t.family, position, v."check" ASC""", [cycle_id, cycle_id])
    for row in rows:
        row["checks"] = [{key: c[key] for key in ("check", "passed", "failed", "not_applicable", "skipped")}
                         for c in checks if c["family"] == row["family"]]
    return rows


def check_cell(check: dict[str, Any]) -> str:
    """One funnel cell: tasks passed / judged by the check, then those it did not judge ('n/a' or 'skipped'
    alone when it judged none)."""
    unjudged = [(label, n) for label, n in (("n/a", check["not_applicable"]), ("skipped", check["skipped"])) if n]
    judged_passed = check["passed"] - check["not_applicable"] - check["skipped"]
    judged = judged_passed + check["failed"]
    if not judged:
        return ", ".join(label if len(unjudged) == 1 else f"{n} {label}" for label, n in unjudged) or "-"
    notes = ", ".join(f"{n} {label}" for label, n in unjudged)
    return f"{judged_passed}/{judged}" + (f" (+{notes})" if notes else "")


def gap_history(catalog: Catalog, limit: int = 12) -> list[dict[str, Any]]:
    """Capability diagnoses per failure mode in each of the latest `limit` cycles, oldest first."""
    return catalog.query(
        """WITH recent AS (SELECT cycle_id, started_at FROM cycles WHERE kind = 'cycle'
                           ORDER BY started_at DESC LIMIT ?)
           SELECT r.cycle_id, g.failure_mode, sum(g.count) AS count
           FROM recent r JOIN gaps g USING (cycle_id)
           GROUP BY r.cycle_id, r.started_at, g.failure_mode ORDER BY r.started_at, g.failure_mode""", [limit])


def rejections(catalog: Catalog, cycle_id: str) -> list[dict[str, Any]]:
    """Rejected tasks of a cycle counted by family and failing check."""
    return catalog.query(
        """SELECT t.family, v."check", count(*) AS count FROM tasks t JOIN validations v USING (task_id)
           WHERE t.cycle_id = ? AND NOT v.passed GROUP BY t.family, v."check" ORDER BY count DESC, t.family""",
        [cycle_id])


def stage_times(catalog: Catalog, cycle_id: str) -> list[dict[str, Any]]:
    """Wall seconds per stage of a cycle, in the order the stages ran."""
    return catalog.query("SELECT stage, seconds FROM stage_times WHERE cycle_id = ? ORDER BY recorded_at",
                         [cycle_id])


def llm_usage(catalog: Catalog, cycle_id: str) -> dict[str, Any]:
    """LLM calls of a cycle per stage × family × step, and in total: calls, requests, tokens, cost.

    `cost_usd` sums the priced calls; `unpriced` counts calls whose model has
    no price (their tokens are counted, their cost is unknown).
    """
    measures = """count(*) AS calls, count(*) FILTER (WHERE status <> 'ok') AS failed,
                  count(*) FILTER (WHERE requests = 0) AS replayed, coalesce(sum(requests), 0) AS requests,
                  coalesce(sum(tokens_in), 0) AS tokens_in, coalesce(sum(tokens_out), 0) AS tokens_out,
                  round(sum(cost_usd), 6) AS cost_usd, count(*) FILTER (WHERE cost_usd IS NULL) AS unpriced"""
    rows = catalog.query(f"""SELECT stage, family, purpose, role, model, {measures} FROM llm_calls
                             WHERE cycle_id = ? GROUP BY ALL ORDER BY stage, family, purpose, role, model""",
                         [cycle_id])
    (total,) = catalog.query(f"SELECT {measures} FROM llm_calls WHERE cycle_id = ?", [cycle_id])
    return {"by_stage": rows, "total": total}




def gap_trends(catalog: Catalog, cycle_id: str) -> list[dict[str, Any]]:
    """A cycle's gaps against the previous diagnosing cycle: new, improved, regressed, unchanged or resolved."""
    return catalog.query(
        """SELECT family, capability, failure_mode, count, previous_count, rate, previous_rate, change, trend,
                  previous_cycle FROM gap_trends WHERE cycle_id = ?
           ORDER BY CASE trend WHEN 'regressed' THEN 0 WHEN 'new' THEN 1 WHEN 'improved' THEN 2
                               WHEN 'resolved' THEN 3 ELSE 4 END, abs(change) DESC, family, failure_mode""",
        [cycle_id])


def cycle_report(catalog: Catalog, cycle_id: str | None = None) -> dict[str, Any]:
    """Everything `taskforge report` shows for one cycle (the latest by default)."""
    cycle_id = cycle_id or catalog.latest_cycle()
    if cycle_id is None:
        raise TaskforgeError("the catalog has no cycles yet: run `taskforge cycle` first")
    cycle = catalog.query("SELECT cycle_id, kind, status, attempts, started_at, finished_at FROM cycles "
                          "WHERE cycle_id = ?", [cycle_id])
    if not cycle:
        raise TaskforgeError(f"no cycle {cycle_id!r} in the catalog")
    return {
        "cycle": {k: str(v) if v is not None else None for k, v in cycle[0].items()},
        "diagnoses": catalog.query(
            """SELECT family, failure_mode, count(*) AS count, round(avg(confidence), 3) AS mean_confidence
               FROM diagnoses WHERE cycle_id = ? GROUP BY family, failure_mode ORDER BY count DESC, failure_mode""",
            [cycle_id]),
        "gaps": catalog.query(
            """SELECT family, capability, failure_mode, count, share, priority FROM gaps
               WHERE cycle_id = ? ORDER BY priority DESC, gap_id""", [cycle_id]),
        "trends": gap_trends(catalog, cycle_id),
        "plan": catalog.query("SELECT family, capability, quota FROM plan WHERE cycle_id = ? "
                              "ORDER BY quota DESC, family, capability", [cycle_id]),
        "funnel": funnel(catalog, cycle_id),
        "quarantine": catalog.query("SELECT stage, source, error_type, reason FROM quarantine "
                                    "WHERE cycle_id = ? ORDER BY source", [cycle_id]),
        "rejections": rejections(catalog, cycle_id),
        "stages": stage_times(catalog, cycle_id),
        "history": gap_history(catalog),
        "llm": llm_usage(catalog, cycle_id),
        "llm_steps": (catalog.cycle_summary(cycle_id) or {}).get("llm_steps", {}),
    }
