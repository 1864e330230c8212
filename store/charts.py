"""Charts of a cycle report, drawn with matplotlib (Agg) and returned as PNG and SVG bytes."""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

COLORS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf")


@dataclass(frozen=True)
class Chart:
    """One rendered chart: a name, a title, and the same figure as PNG and SVG."""

    name: str
    title: str
    png: bytes
    svg: str


def _render(name: str, title: str, draw) -> Chart:
    figure, axes = plt.subplots(figsize=(7.5, 3.6), dpi=100)
    try:
        draw(axes)
        axes.set_title(title, fontsize=11, loc="left")
        figure.tight_layout()
        png, svg = io.BytesIO(), io.StringIO()
        figure.savefig(png, format="png")
        figure.savefig(svg, format="svg")
    finally:
        plt.close(figure)
    return Chart(name=name, title=title, png=png.getvalue(), svg=svg.getvalue().split("?>", 1)[-1])


def _nothing(axes, message: str) -> None:
    axes.text(0.5, 0.5, message, ha="center", va="center", fontsize=11, color="#555555")
    axes.set_axis_off()


def gaps_chart(gaps: list[dict[str, Any]]) -> Chart:
    """Priority of each gap (family · failure mode), highest on top."""
    def draw(axes):
        if not gaps:
            return _nothing(axes, "no capability gap diagnosed in this cycle")
        labels = [f"{g['family']} · {g['failure_mode'].split('.', 1)[-1]}" for g in gaps][::-1]
        axes.barh(labels, [g["priority"] for g in gaps][::-1], color=COLORS[0])
        axes.set_xlabel("priority (share × severity)")
    return _render("gaps", "Gaps by family and failure mode", draw)


def trend_chart(trend: list[dict[str, Any]]) -> Chart:
    """Failed episodes per failure mode across cycles (oldest to newest)."""
    def draw(axes):
        if not trend:
            return _nothing(axes, "no diagnosed cycle yet")
        cycles = list(dict.fromkeys(row["cycle_id"] for row in trend))
        modes = sorted({row["failure_mode"] for row in trend})
        for index, mode in enumerate(modes):
            counts = {row["cycle_id"]: row["count"] for row in trend if row["failure_mode"] == mode}
            axes.plot(range(len(cycles)), [counts.get(c, 0) for c in cycles], marker="o",
                      color=COLORS[index % len(COLORS)], label=mode)
        axes.set_xticks(range(len(cycles)), [c[-8:] for c in cycles], fontsize=8)
        axes.set_ylabel("diagnoses")
        axes.legend(fontsize=7, loc="upper left")
    return _render("trend", "Gap trend across cycles", draw)


def funnel_chart(funnel: list[dict[str, Any]]) -> Chart:
    """Per family: candidates, tasks passing each check in order, accepted."""
    def draw(axes):
        if not funnel:
            return _nothing(axes, "no task built in this cycle")
        width = 0.8 / len(funnel)
        for index, row in enumerate(funnel):
            steps = [("candidates", row["candidates"])] + [(c["check"], c["passed"]) for c in row["checks"]]
            steps.append(("accepted", row["accepted"]))
            positions = [i + index * width for i in range(len(steps))]
            axes.bar(positions, [n for _, n in steps], width=width, color=COLORS[index % len(COLORS)],
                     label=row["family"])
            axes.set_xticks([i + 0.4 - width / 2 for i in range(len(steps))], [s for s, _ in steps], fontsize=8)
        axes.set_ylabel("tasks")
        axes.legend(fontsize=8)
    return _render("funnel", "Funnel per family", draw)


def rejections_chart(rejections: list[dict[str, Any]]) -> Chart:
    """Rejected tasks by failing check and family."""
    def draw(axes):
        if not rejections:
            return _nothing(axes, "no task rejected in this cycle")
        labels = [f"{r['family']} · {r['check']}" for r in rejections][::-1]
        axes.barh(labels, [r["count"] for r in rejections][::-1], color=COLORS[3])
        axes.set_xlabel("rejected tasks")
    return _render("rejections", "Rejection reasons", draw)


def stages_chart(stages: list[dict[str, Any]]) -> Chart:
    """Wall time (and LLM cost where recorded) per stage."""
    def draw(axes):
        if not stages:
            return _nothing(axes, "no stage timing recorded")
        axes.bar([s["stage"] for s in stages], [s["seconds"] for s in stages], color=COLORS[2])
        axes.set_ylabel("seconds")
        for index, stage in enumerate(stages):
            if stage.get("cost_usd"):
                axes.annotate(f"${stage['cost_usd']:.4f}", (index, stage["seconds"]), ha="center", fontsize=8)
    return _render("stages", "Time per stage", draw)
