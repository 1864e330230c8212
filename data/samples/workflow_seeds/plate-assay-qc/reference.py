"""Plate-assay QC: Z'-factor from controls, percent inhibition and replicate CVs for compounds."""
import statistics
from collections import defaultdict

import wfio

max_cv = float(wfio.params()["max_cv_pct"])
groups = defaultdict(list)
for row in wfio.table("plate"):
    groups[(row["role"], row["compound"])].append(float(row["signal"]))
neg = [v for (role, _), vals in groups.items() if role == "neg_ctrl" for v in vals]
pos = [v for (role, _), vals in groups.items() if role == "pos_ctrl" for v in vals]
mn, sn, mp, sp = statistics.fmean(neg), statistics.stdev(neg), statistics.fmean(pos), statistics.stdev(pos)
z_prime = 1 - 3 * (sn + sp) / abs(mn - mp)
wfio.write_json("plate_qc.json", {"neg_mean": round(mn, 2), "pos_mean": round(mp, 2), "z_prime": round(z_prime, 4), "plate_pass": z_prime >= 0.5})
rows = []
for (role, compound), values in sorted(groups.items()):
    if role != "sample":
        continue
    mean = statistics.fmean(values)
    cv = 100 * statistics.stdev(values) / mean
    rows.append({"compound": compound, "mean_signal": f"{mean:.1f}", "cv_pct": f"{cv:.2f}",
                 "inhibition_pct": f"{100 * (mn - mean) / (mn - mp):.2f}", "flag": "high_cv" if cv > max_cv else "ok"})
wfio.write_csv("compounds.csv", ["compound", "mean_signal", "cv_pct", "inhibition_pct", "flag"], rows)
