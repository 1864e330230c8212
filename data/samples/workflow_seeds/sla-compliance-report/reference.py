"""Incident SLA compliance by priority, with a one-page text summary."""
import datetime as dt
import statistics
from collections import defaultdict

import wfio

cutoff = dt.datetime.fromisoformat(wfio.params()["report_time"])
targets = {r["priority"]: float(r["target_hours"]) for r in wfio.table("sla_targets")}
stats = defaultdict(lambda: {"tickets": 0, "resolved": 0, "breached": 0, "hours": []})
for t in wfio.table("tickets"):
    opened = dt.datetime.fromisoformat(t["opened"])
    if opened > cutoff:
        continue
    resolved = dt.datetime.fromisoformat(t["resolved"]) if t["resolved"] and dt.datetime.fromisoformat(t["resolved"]) <= cutoff else None
    s = stats[t["priority"]]
    s["tickets"] += 1
    elapsed = ((resolved or cutoff) - opened).total_seconds() / 3600
    if resolved:
        s["resolved"] += 1
        s["hours"].append(elapsed)
    s["breached"] += elapsed > targets[t["priority"]]
rows = []
for priority in sorted(stats):
    s = stats[priority]
    rows.append({"priority": priority, "tickets": s["tickets"], "resolved": s["resolved"], "breached": s["breached"],
                 "compliance_pct": f"{100 * (s['tickets'] - s['breached']) / s['tickets']:.1f}",
                 "median_resolution_h": f"{statistics.median(s['hours']):.2f}" if s["hours"] else ""})
wfio.write_csv("sla_by_priority.csv", ["priority", "tickets", "resolved", "breached", "compliance_pct", "median_resolution_h"], rows)
total = sum(r["tickets"] for r in rows)
breached = sum(r["breached"] for r in rows)
summary = [f"SLA report as of {cutoff.isoformat(timespec='minutes')}", f"Tickets: {total}", f"Breached: {breached}",
           f"Overall compliance: {100 * (total - breached) / total:.1f}%"]
summary += [f"{r['priority']}: {r['compliance_pct']}% within {targets[r['priority']]:g}h" for r in rows]
wfio.write_text("sla_summary.txt", "\n".join(summary) + "\n")
