"""Human-readable output of the CLI: rich tables for summaries, reports and validation results."""

from __future__ import annotations

from typing import Any, Iterable

from rich.console import Console
from rich.table import Table

from taskforge.store.report import check_cell


GAP_COLUMNS = ["family", "capability", "failure_mode", "count", "share", "priority"]
TREND_COLUMNS = ["family", "failure_mode", "previous_count", "count", "previous_rate", "rate", "trend"]


def table(title: str, rows: Iterable[dict[str, Any]], columns: list[str]) -> Table:
    """A rich table of dict rows restricted to `columns`."""
    out = Table(title=title, title_justify="left")
    for column in columns:
        out.add_column(column, overflow="fold")
    for row in rows:
        out.add_row(*(_cell(row.get(column)) for column in columns))
    return out


def _cell(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.3f}"
    if isinstance(value, dict):
        return ", ".join(f"{k}={_cell(v)}" for k, v in value.items()) or "-"
    return "-" if value is None else str(value)


MAX_DIAGNOSIS_ROWS = 40


def print_run(console: Console, summary: dict[str, Any]) -> None:
    """The summary of a cycle or build run."""
    if "episodes" in summary:
        console.print(f"episodes: {summary['episodes']} ({summary['failed_episodes']} failed, "
                      f"{summary.get('ungraded_episodes', 0)} without a verdict), "
                      f"diagnoses: {summary['diagnoses'] if isinstance(summary['diagnoses'], int) else len(summary['diagnoses'])}, "
                      f"quarantined: {len(summary.get('quarantine', []))}")
    verdicts = summary.get("verdicts") or {}
    if verdicts:
        console.print(f"verdicts: {verdicts['verdicts']} from {len(verdicts['files'])} file(s), {verdicts['matched']} "
                      f"matched; {verdicts['unmatched_verdicts']} matched no episode, "
                      f"{verdicts['episodes_without_verdict']} ungraded episode(s) had none (recorded in quarantine)")
    shown = [q for q in summary.get("quarantine", []) if q.get("stage") != "verdicts"]
    for item in shown:
        console.print(f"[yellow]quarantined[/] {item['reason']}", soft_wrap=True)
    if isinstance(summary.get("diagnoses"), list) and summary["diagnoses"]:
        rows = summary["diagnoses"][:MAX_DIAGNOSIS_ROWS]
        console.print(table("diagnoses", rows, ["episode_id", "failure_mode", "confidence", "decisive_step", "agent"]))
    if summary.get("gaps"):
        console.print(table("gaps", summary["gaps"], GAP_COLUMNS))
    print_trends(console, summary.get("trends", []))
    if summary.get("families"):
        rows = [{"family": f, **c} for f, c in summary["families"].items()]
        console.print(table("tasks", rows, ["family", "candidates", "accepted", "rejected", "rejected_by_check"]))
    print_llm(console, summary.get("llm_steps", {}), summary.get("llm", {}).get("by_stage", []))


def print_llm(console: Console, steps: dict[str, str], usage: list[dict[str, Any]]) -> None:
    """Each LLM step's state, and the calls, tokens and cost per stage and family."""
    for step, state in steps.items():
        console.print(f"LLM {step}: {state}", soft_wrap=True)
    if usage:
        console.print(table("LLM calls", usage, ["stage", "family", "purpose", "calls", "replayed", "failed",
                                                 "tokens_in", "tokens_out", "cost_usd"]))


def print_trends(console: Console, trends: list[dict[str, Any]]) -> None:
    """The gaps' change since the previous diagnosing cycle (new, improved, regressed, resolved, unchanged)."""
    if not trends:
        return
    if all(t["trend"] == "first" for t in trends):
        console.print("change since the previous cycle: none to compare with (first diagnosing cycle)")
        return
    console.print(table("change since the previous cycle", trends, TREND_COLUMNS))


def print_report(console: Console, report: dict[str, Any]) -> None:
    """`taskforge report`: the cycle, its diagnoses, gaps, plan, funnel and quarantine."""
    cycle = report["cycle"]
    console.print(f"[bold]{cycle['kind']} {cycle['cycle_id']}[/] — {cycle['status']}, attempts {cycle['attempts']}, "
                  f"started {cycle['started_at']}, finished {cycle['finished_at']}")
    console.print(table("diagnoses", report["diagnoses"], ["family", "failure_mode", "count", "mean_confidence"]))
    console.print(table("gaps", report["gaps"], GAP_COLUMNS))
    print_trends(console, report.get("trends", []))
    console.print(table("plan", report["plan"], ["family", "capability", "quota"]))
    funnel_rows = [{**row, **{c["check"]: check_cell(c) for c in row["checks"]}} for row in report["funnel"]]
    check_names = list(dict.fromkeys(c["check"] for row in report["funnel"] for c in row["checks"]))
    console.print(table("funnel", funnel_rows, ["family", "candidates", *check_names, "accepted", "rejected"]))
    if report["quarantine"]:
        console.print(table("quarantine", report["quarantine"], ["stage", "source", "error_type", "reason"]))
    print_llm(console, report["llm_steps"], report["llm"]["by_stage"])
