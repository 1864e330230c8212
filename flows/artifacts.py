"""Prefect artifacts of a run: a markdown summary and the funnel table per family."""

from __future__ import annotations

from typing import Any

import base64

from prefect.artifacts import create_image_artifact, create_markdown_artifact, create_table_artifact

from taskforge.store.catalog import Catalog
from taskforge.store.report import cycle_report
from taskforge.store.report_html import charts_for


def funnel_rows(families: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per family: candidates, accepted, rejected, and rejections by failing check."""
    return [
        {"family": family, "candidates": c["candidates"], "accepted": c["accepted"], "rejected": c["rejected"],
         "rejected_by_check": ", ".join(f"{k}={v}" for k, v in c["rejected_by_check"].items()) or "-"}
        for family, c in families.items()
    ]


def summary_markdown(summary: dict[str, Any]) -> str:
    """The run summary as markdown."""
    lines = [f"# taskforge {summary['kind']} `{summary['cycle_id']}`", ""]
    if "episodes" in summary:
        lines += [f"- episodes read: {summary['episodes']} ({summary['failed_episodes']} failed)",
                  f"- diagnoses: {summary['diagnoses']}", f"- quarantined inputs: {summary['quarantined']}"]
    lines += [f"- accepted tasks: {sum(f['accepted'] for f in summary['families'].values())}",
              f"- shards written: {len(summary['shards'])}", ""]
    if summary.get("gaps"):
        lines += ["## Gaps", "", "| family | capability | failure mode | count | priority |", "|---|---|---|---|---|"]
        lines += [f"| {g['family']} | {g['capability']} | {g['failure_mode']} | {g['count']} | {g['priority']:.3f} |"
                  for g in summary["gaps"]]
        lines.append("")
    if summary.get("trends"):
        lines += ["## Change since the previous cycle", "", "| family | failure mode | before | now | trend |",
                  "|---|---|---|---|---|"]
        lines += [f"| {t['family']} | {t['failure_mode']} | {_or_dash(t['previous_count'])} | {t['count']} "
                  f"| {t['trend']} |" for t in summary["trends"]]
        lines.append("")
    if summary.get("llm_steps"):
        lines += ["## LLM steps", ""] + [f"- {step}: {state}" for step, state in summary["llm_steps"].items()]
    if summary.get("llm", {}).get("by_stage"):
        lines += ["", "| stage | family | step | model | calls | replayed | failed | tokens in | tokens out "
                      "| cost USD |", "|---|---|---|---|---|---|---|---|---|---|"]
        lines += [f"| {r['stage']} | {r['family']} | {r['purpose']} | {r['model']} | {r['calls']} | {r['replayed']} | "
                  f"{r['failed']} | {r['tokens_in']} | {r['tokens_out']} | "
                  f"{'unknown' if r['cost_usd'] is None else r['cost_usd']} |" for r in summary["llm"]["by_stage"]]
    return "\n".join(lines)


def _or_dash(value: object) -> str:
    """A table cell: the value, or a dash where there is none."""
    return "-" if value is None else str(value)


def publish(summary: dict[str, Any]) -> None:
    """Attach the summary and the funnel table to the current flow run."""
    key = summary["kind"].replace("_", "-")
    create_markdown_artifact(key=f"{key}-summary", markdown=summary_markdown(summary),
                             description=f"taskforge {summary['kind']} {summary['cycle_id']}")
    create_table_artifact(key=f"{key}-funnel", table=funnel_rows(summary["families"]),
                          description="candidates / accepted / rejected by failing check, per family")


def publish_charts(catalog: Catalog, cycle_id: str) -> None:
    """Attach the report's charts (the same PNGs `taskforge report --html` writes) as image artifacts."""
    for chart in charts_for(cycle_report(catalog, cycle_id)):
        url = "data:image/png;base64," + base64.b64encode(chart.png).decode("ascii")
        create_image_artifact(image_url=url, key=f"chart-{chart.name}", description=chart.title)
