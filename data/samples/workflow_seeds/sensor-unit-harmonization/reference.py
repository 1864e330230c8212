"""Convert sensor readings in mixed units to SI and summarise each sensor."""
import statistics
from collections import defaultdict

import wfio

TO_SI = {
    "C": ("degC", lambda v: v), "F": ("degC", lambda v: (v - 32) * 5 / 9), "K": ("degC", lambda v: v - 273.15),
    "kPa": ("kPa", lambda v: v), "psi": ("kPa", lambda v: v * 6.894757), "bar": ("kPa", lambda v: v * 100),
    "L/min": ("L/min", lambda v: v), "gpm": ("L/min", lambda v: v * 3.785412),
}
limit = float(wfio.params()["max_abs_z"])
rows, per_sensor = [], defaultdict(list)
for r in wfio.table("readings"):
    if not r["value"].strip():
        continue
    unit, convert = TO_SI[r["unit"]]
    value = round(convert(float(r["value"])), 3)
    rows.append({"timestamp": r["timestamp"], "sensor": r["sensor"], "value_si": f"{value:.3f}", "unit_si": unit})
    per_sensor[r["sensor"]].append(value)
wfio.write_csv("readings_si.csv", ["timestamp", "sensor", "value_si", "unit_si"], rows)
summary = []
for sensor, values in sorted(per_sensor.items()):
    mean, sd = statistics.fmean(values), statistics.stdev(values)
    outliers = sum(1 for v in values if sd and abs(v - mean) / sd > limit)
    summary.append({"sensor": sensor, "readings": len(values), "mean_si": f"{mean:.3f}", "stdev_si": f"{sd:.3f}", "outliers": outliers})
wfio.write_csv("sensor_summary.csv", ["sensor", "readings", "mean_si", "stdev_si", "outliers"], summary)
