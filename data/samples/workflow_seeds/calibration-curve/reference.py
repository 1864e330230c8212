"""Linear calibration from standards, then sample concentrations with a range check."""
import statistics

import wfio

p = wfio.params()
standards = wfio.table("standards")
x = [float(r["concentration_mg_l"]) for r in standards]
y = [float(r["absorbance"]) for r in standards]
fit = statistics.linear_regression(x, y)
r = statistics.correlation(x, y)
wfio.write_json("calibration.json", {"slope": round(fit.slope, 6), "intercept": round(fit.intercept, 6), "r_squared": round(r * r, 6),
                                     "points": len(x)})
low, high = min(x), max(x)
by_sample = {}
for row in wfio.table("samples"):
    by_sample.setdefault(row["sample"], []).append(float(row["absorbance"]))
rows = []
for sample, values in sorted(by_sample.items()):
    mean = statistics.fmean(values)
    conc = (mean - fit.intercept) / fit.slope * float(p["dilution_factor"])
    measured = (mean - fit.intercept) / fit.slope
    rows.append({"sample": sample, "replicates": len(values), "mean_absorbance": f"{mean:.4f}", "concentration_mg_l": f"{conc:.3f}",
                 "in_range": "yes" if low <= measured <= high else "no"})
wfio.write_csv("concentrations.csv", ["sample", "replicates", "mean_absorbance", "concentration_mg_l", "in_range"], rows)
