"""Stock-count variances between the system quantities and a physical count."""
import wfio

minimum = int(wfio.params()["min_abs_variance"])
system = {r["sku"]: r for r in wfio.table("system_stock")}
counted = {r["sku"]: int(r["counted_qty"]) for r in wfio.table("physical_count")}
rows = []
for sku in sorted(set(system) | set(counted)):
    expected = int(system[sku]["system_qty"]) if sku in system else 0
    found = counted.get(sku, 0)
    variance = found - expected
    if abs(variance) < minimum or variance == 0:
        continue
    cost = wfio.dec(system[sku]["unit_cost"]) if sku in system else wfio.dec(0)
    status = "not_counted" if sku not in counted else "not_in_system" if sku not in system else "variance"
    rows.append({"sku": sku, "system_qty": expected, "counted_qty": found, "variance": variance,
                 "variance_value": wfio.fmt(variance * cost), "status": status})
wfio.write_csv("variances.csv", ["sku", "system_qty", "counted_qty", "variance", "variance_value", "status"], rows)
wfio.write_json("count_summary.json", {
    "skus_with_variance": len(rows),
    "net_variance_value": float(sum(wfio.dec(r["variance_value"]) for r in rows)),
    "shrinkage_value": float(-sum(wfio.dec(r["variance_value"]) for r in rows if r["variance"] < 0)),
})
