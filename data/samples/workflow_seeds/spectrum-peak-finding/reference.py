"""Emission-line peaks in a spectrum: local maxima above a baseline threshold, with centroids."""
import statistics

import wfio

p = wfio.params()
points = [(float(r["wavelength_nm"]), float(r["intensity"])) for r in wfio.table("spectrum")]
points.sort()
baseline = statistics.median(v for _, v in points)
threshold = baseline + float(p["min_height"])
half = int(p["window"])
rows = []
for i in range(1, len(points) - 1):
    wl, v = points[i]
    if v <= threshold or not (v > points[i - 1][1] and v >= points[i + 1][1]):
        continue
    window = points[max(0, i - half): i + half + 1]
    weights = [max(val - baseline, 0.0) for _, val in window]
    centroid = sum(w * x for (x, _), w in zip(window, weights)) / sum(weights)
    rows.append({"peak_nm": f"{wl:.1f}", "height": f"{v - baseline:.1f}", "centroid_nm": f"{centroid:.2f}"})
wfio.write_csv("peaks.csv", ["peak_nm", "height", "centroid_nm"], rows)
wfio.write_json("spectrum_summary.json", {"baseline": round(baseline, 1), "peaks": len(rows),
                                          "strongest_peak_nm": max(rows, key=lambda r: float(r["height"]))["peak_nm"] if rows else ""})
