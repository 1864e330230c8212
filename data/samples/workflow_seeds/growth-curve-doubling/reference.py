"""Exponential-phase doubling times from OD600 growth curves."""
import math
import statistics
from collections import defaultdict

import wfio

p = wfio.params()
low, high = float(p["od_low"]), float(p["od_high"])
curves = defaultdict(list)
for row in wfio.table("od600"):
    curves[row["well"]].append((float(row["time_h"]), float(row["od600"])))
rows = []
for well in sorted(curves):
    points = [(t, math.log(od)) for t, od in sorted(curves[well]) if low <= od <= high]
    if len(points) < 3:
        rows.append({"well": well, "points": len(points), "growth_rate_per_h": "", "doubling_time_h": "", "max_od": f"{max(od for _, od in curves[well]):.4f}"})
        continue
    fit = statistics.linear_regression([t for t, _ in points], [v for _, v in points])
    rows.append({"well": well, "points": len(points), "growth_rate_per_h": f"{fit.slope:.4f}",
                 "doubling_time_h": f"{math.log(2) / fit.slope:.3f}", "max_od": f"{max(od for _, od in curves[well]):.4f}"})
wfio.write_csv("growth.csv", ["well", "points", "growth_rate_per_h", "doubling_time_h", "max_od"], rows)
