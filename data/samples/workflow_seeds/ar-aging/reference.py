"""Accounts-receivable aging by customer at a date."""
import datetime as dt
from collections import defaultdict

import wfio

as_of = dt.date.fromisoformat(wfio.params()["as_of"])
invoices = {row["invoice"]: row for row in wfio.table("invoices") if row["invoice_date"] <= as_of.isoformat()}
paid = defaultdict(lambda: wfio.dec(0))
for payment in wfio.table("payments"):
    if payment["invoice"] in invoices and payment["date"] <= as_of.isoformat():
        paid[payment["invoice"]] += wfio.dec(payment["amount"])
BUCKETS = ["current", "1_30", "31_60", "61_90", "over_90"]
aging = defaultdict(lambda: {b: wfio.dec(0) for b in BUCKETS})
open_items = []
for number, inv in sorted(invoices.items()):
    outstanding = wfio.dec(inv["amount"]) - paid[number]
    if outstanding <= 0:
        continue
    days = (as_of - dt.date.fromisoformat(inv["due_date"])).days
    bucket = "current" if days <= 0 else "1_30" if days <= 30 else "31_60" if days <= 60 else "61_90" if days <= 90 else "over_90"
    aging[inv["customer"]][bucket] += outstanding
    open_items.append({"invoice": number, "customer": inv["customer"], "days_overdue": max(days, 0), "outstanding": wfio.fmt(outstanding)})
rows = [{"customer": c, **{b: wfio.fmt(v) for b, v in buckets.items()}, "total": wfio.fmt(sum(buckets.values()))}
        for c, buckets in sorted(aging.items())]
wfio.write_csv("aging.csv", ["customer", *BUCKETS, "total"], rows)
wfio.write_csv("open_items.csv", ["invoice", "customer", "days_overdue", "outstanding"], open_items)
