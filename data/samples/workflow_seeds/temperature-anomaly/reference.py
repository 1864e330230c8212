"""Monthly temperature anomalies against a baseline climatology, annual means and the trend."""
import statistics
from collections import defaultdict

import wfio

p = wfio.params()
first, last = int(p["baseline_start"]), int(p["baseline_end"])
readings = [(int(r["year"]), int(r["month"]), float(r["tmean_c"])) for r in wfio.table("station_monthly") if r["tmean_c"].strip()]
climatology = {m: statistics.fmean(v for y, mm, v in readings if mm == m and first <= y <= last) for m in range(1, 13)}
annual = defaultdict(list)
for year, month, value in readings:
    annual[year].append(value - climatology[month])
rows = [{"year": y, "months": len(v), "anomaly_c": f"{statistics.fmean(v):.3f}"} for y, v in sorted(annual.items()) if len(v) >= int(p["min_months"])]
wfio.write_csv("annual_anomalies.csv", ["year", "months", "anomaly_c"], rows)
fit = statistics.linear_regression([r["year"] for r in rows], [float(r["anomaly_c"]) for r in rows])
wfio.write_json("trend.json", {"trend_c_per_decade": round(fit.slope * 10, 3), "years": len(rows),
                               "baseline": f"{first}-{last}", "climatology_c": {str(m): round(v, 3) for m, v in climatology.items()}})
