"""`taskforge report --html`: a self-contained HTML page and PNG charts of one cycle."""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from taskforge.schemas.locations import Location, join, readable
from taskforge.store.catalog import Catalog
from taskforge.store.charts import Chart, funnel_chart, gaps_chart, rejections_chart, stages_chart, trend_chart
from taskforge.store.files import atomic_path, write_text_atomic
from taskforge.store.report import cycle_report

EXAMPLES = 3
_STYLE = """body{font-family:system-ui,sans-serif;margin:2rem auto;max-width:60rem;color:#222}
h1{font-size:1.4rem}h2{font-size:1.1rem;margin-top:2rem}table{border-collapse:collapse;font-size:.85rem}
td,th{border:1px solid #ccc;padding:.25rem .5rem;text-align:left}figure{margin:1rem 0}
pre{background:#f6f6f6;padding:.5rem;white-space:pre-wrap;font-size:.8rem}"""


def charts_for(report: dict[str, Any]) -> list[Chart]:
    """The report's charts, in page order."""
    return [gaps_chart(report["gaps"]), trend_chart(report["history"]), funnel_chart(report["funnel"]),
            rejections_chart(report["rejections"]), stages_chart(report["stages"])]


def accepted_examples(catalog: Catalog, shard_root: Location, cycle_id: str, count: int = EXAMPLES) -> list[dict[str, Any]]:
    """A few accepted tasks of the cycle, read back from their shards."""
    rows = catalog.query("SELECT task_id, shard FROM tasks WHERE cycle_id = ? AND status = 'accepted' "
                         "ORDER BY family, task_id LIMIT ?", [cycle_id, count])
    examples = []
    for row in rows:
        with readable(join(shard_root, row["shard"])) as source:
            table = pq.read_table(source, filters=[("task_id", "=", row["task_id"])])
        task = table.to_pylist()[0]
        examples.append({"task_id": task["task_id"], "family": task["family"], "kind": task["kind"],
                         "question": task["prompt"][-1]["content"][-700:],
                         "reference": json.dumps(json.loads(task["reference"]), ensure_ascii=False)[:400]})
    return examples


def _table(rows: list[dict[str, Any]], columns: list[str]) -> str:
    if not rows:
        return "<p>none</p>"
    head = "".join(f"<th>{html.escape(c)}</th>" for c in columns)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(str(r.get(c, '')))}</td>" for c in columns) + "</tr>"
                   for r in rows)
    return f"<table><tr>{head}</tr>{body}</table>"


def render_html(report: dict[str, Any], charts: list[Chart], examples: list[dict[str, Any]]) -> str:
    """The whole page: summary, charts (inline SVG), tables, examples."""
    cycle = report["cycle"]
    figures = "".join(f'<figure id="chart-{c.name}" class="chart">{c.svg}</figure>' for c in charts)
    example_html = "".join(
        f"<h3>{html.escape(e['family'])} · {html.escape(e['kind'])} <code>{html.escape(e['task_id'])}</code></h3>"
        f"<pre>…{html.escape(e['question'])}</pre><p>reference: <code>{html.escape(e['reference'])}</code></p>"
        for e in examples) or "<p>no accepted task</p>"
    return (
        f"<!doctype html><html><head><meta charset='utf-8'><title>taskforge {html.escape(cycle['cycle_id'])}</title>"
        f"<style>{_STYLE}</style></head><body>"
        f"<h1>taskforge {html.escape(cycle['kind'])} <code>{html.escape(cycle['cycle_id'])}</code></h1>"
        f"<p>{html.escape(cycle['status'])}, attempts {cycle['attempts']}, started {html.escape(str(cycle['started_at']))},"
        f" finished {html.escape(str(cycle['finished_at']))}</p>"
        f"<h2>Charts</h2>{figures}"
        f"<h2>Gaps</h2>{_table(report['gaps'], ['family', 'capability', 'failure_mode', 'count', 'share', 'priority'])}"
        f"<h2>Plan</h2>{_table(report['plan'], ['family', 'capability', 'quota'])}"
        f"<h2>Funnel</h2>{_table(report['funnel'], ['family', 'candidates', 'accepted', 'rejected'])}"
        f"<h2>Rejections</h2>{_table(report['rejections'], ['family', 'check', 'count'])}"
        f"<h2>Quarantine</h2>{_table(report['quarantine'], ['stage', 'source', 'reason'])}"
        f"<h2>Examples of accepted tasks</h2>{example_html}</body></html>"
    )


def write_html_report(catalog: Catalog, shard_root: Location, out_dir: Path, cycle_id: str | None = None) -> Path:
    """Write `out_dir/report.html` and `out_dir/charts/<name>.png`; returns the HTML path."""
    report = cycle_report(catalog, cycle_id)
    charts = charts_for(report)
    for chart in charts:
        with atomic_path(out_dir / "charts" / f"{chart.name}.png") as tmp:
            tmp.write_bytes(chart.png)
    page = out_dir / "report.html"
    write_text_atomic(page, render_html(report, charts, accepted_examples(catalog, shard_root,
                                                                          report["cycle"]["cycle_id"])))
    return page
