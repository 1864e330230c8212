"""Server-error triage from an access log: error rates and latency per endpoint."""
import re
import statistics
from collections import defaultdict

import wfio

LINE = re.compile(r'^(\S+) \S+ \S+ \[([^\]]+)\] "(\S+) (\S+) [^"]*" (\d{3}) (\d+) "[^"]*" "[^"]*" (\d+)$')
slow = int(wfio.params()["slow_ms"])
stats = defaultdict(lambda: {"requests": 0, "server_errors": 0, "latencies": []})
for line in wfio.text("access.log").splitlines():
    match = LINE.match(line)
    if not match:
        continue
    _, _, _, path, status, _, ms = match.groups()
    endpoint = re.sub(r"/\d+(?=/|$)", "/{id}", path.split("?")[0])
    s = stats[endpoint]
    s["requests"] += 1
    s["server_errors"] += status.startswith("5")
    s["latencies"].append(int(ms))
rows = []
for endpoint, s in sorted(stats.items()):
    rows.append({"endpoint": endpoint, "requests": s["requests"], "server_errors": s["server_errors"],
                 "error_rate_pct": f"{100 * s['server_errors'] / s['requests']:.1f}",
                 "median_ms": f"{statistics.median(s['latencies']):.1f}", "slow_requests": sum(1 for v in s["latencies"] if v > slow)})
wfio.write_csv("endpoints.csv", ["endpoint", "requests", "server_errors", "error_rate_pct", "median_ms", "slow_requests"], rows)
worst = max(rows, key=lambda r: (float(r["error_rate_pct"]), r["endpoint"]))
wfio.write_json("triage.json", {"requests": sum(r["requests"] for r in rows), "server_errors": sum(r["server_errors"] for r in rows),
                                "worst_endpoint": worst["endpoint"]})
