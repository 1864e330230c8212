"""Normalise mixed date and amount formats in an order export, convert to EUR and total by month."""
import datetime as dt
from collections import defaultdict

import wfio

FORMATS = ("%Y-%m-%d", "%d/%m/%Y", "%b %d, %Y", "%d.%m.%Y", "%Y%m%d")
p = wfio.params()
rates = {r["currency"]: wfio.dec(r["rate_to_eur"]) for r in wfio.table("fx_rates")}


def parse_date(text):
    for fmt in FORMATS:
        try:
            return dt.datetime.strptime(text.strip(), fmt).date()
        except ValueError:
            continue
    raise ValueError(f"unknown date format: {text!r}")


clean, months = [], defaultdict(lambda: wfio.dec(0))
for row in wfio.table("orders"):
    day = parse_date(row["order_date"])
    if not p["start"] <= day.isoformat() <= p["end"]:
        continue
    eur = wfio.rounded(wfio.dec(row["amount"].replace(",", "")) * rates[row["currency"]])
    clean.append({"order_id": row["order_id"], "order_date": day.isoformat(), "amount_eur": wfio.fmt(eur)})
    months[day.strftime("%Y-%m")] += eur
clean.sort(key=lambda r: (r["order_date"], r["order_id"]))
wfio.write_csv("orders_clean.csv", ["order_id", "order_date", "amount_eur"], clean)
wfio.write_csv("monthly_totals.csv", ["month", "orders", "amount_eur"],
               [{"month": m, "orders": sum(1 for r in clean if r["order_date"].startswith(m)), "amount_eur": wfio.fmt(v)}
                for m, v in sorted(months.items())])
