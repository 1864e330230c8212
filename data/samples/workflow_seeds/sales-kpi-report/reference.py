"""Quarterly sales KPI report: revenue by region and category, rendered as a fixed-format Markdown report."""
from collections import defaultdict

import wfio

p = wfio.params()
products = {r["sku"]: r for r in wfio.table("products")}
orders = [o for o in wfio.table("orders") if p["start"] <= o["date"] <= p["end"]]
by_region, by_category, units = defaultdict(lambda: wfio.dec(0)), defaultdict(lambda: wfio.dec(0)), 0
for o in orders:
    product = products[o["sku"]]
    revenue = wfio.rounded(wfio.dec(o["quantity"]) * wfio.dec(product["unit_price"]) * (100 - wfio.dec(o["discount_pct"])) / 100)
    by_region[o["region"]] += revenue
    by_category[product["category"]] += revenue
    units += int(o["quantity"])
total = sum(by_region.values(), wfio.dec(0))
average = total / len(orders) if orders else wfio.dec(0)
lines = [f"# Sales report {p['start']} to {p['end']}", "", f"- Orders: {len(orders)}", f"- Units: {units}",
         f"- Revenue: {wfio.fmt(total)}", f"- Average order value: {wfio.fmt(average)}", "", "## Revenue by region", "",
         "| Region | Revenue | Share |", "|---|---|---|"]
for region, value in sorted(by_region.items(), key=lambda item: (-item[1], item[0])):
    lines.append(f"| {region} | {wfio.fmt(value)} | {wfio.fmt(value / total * 100, 1)}% |")
wfio.write_text("sales_report.md", "\n".join(lines) + "\n")
wfio.write_csv("revenue_by_category.csv", ["category", "revenue"],
               [{"category": c, "revenue": wfio.fmt(v)} for c, v in sorted(by_category.items())])
