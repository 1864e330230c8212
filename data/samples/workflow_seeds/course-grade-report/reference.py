"""Course grades from weighted components, letter grades and class statistics."""
import statistics

import wfio

p = wfio.params()
weights = {r["component"]: wfio.dec(r["weight_pct"]) for r in wfio.table("weights")}
cutoffs = [("A", 90), ("B", 80), ("C", 70), ("D", 60)]
rows = []
for s in wfio.table("scores"):
    total = sum((wfio.dec(s[c] or p["missing_score"]) * w / 100 for c, w in weights.items()), wfio.dec(0))
    total = wfio.rounded(total, 1)
    letter = next((grade for grade, floor in cutoffs if total >= floor), "F")
    rows.append({"student": s["student"], "weighted_score": f"{total:.1f}", "letter": letter,
                 "missing_components": sum(1 for c in weights if not s[c].strip())})
rows.sort(key=lambda r: (-float(r["weighted_score"]), r["student"]))
wfio.write_csv("grades.csv", ["student", "weighted_score", "letter", "missing_components"], rows)
values = [float(r["weighted_score"]) for r in rows]
wfio.write_json("class_stats.json", {"students": len(rows), "mean": round(statistics.fmean(values), 2), "median": round(statistics.median(values), 2),
                                     "letter_counts": {g: sum(1 for r in rows if r["letter"] == g) for g in "ABCDF"}})
