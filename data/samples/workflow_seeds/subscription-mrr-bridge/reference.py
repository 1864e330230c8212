"""MRR bridge from a subscription event export: dedupe, apply corrections, drop reversed events and customers out
of scope, month-end states, movements in EUR at each month's budget rates."""
import csv
import datetime as dt
import io
import re
from collections import defaultdict
from decimal import Decimal

import wfio

P = wfio.params()
UTC = dt.timezone.utc


def parse_time(text: str, day_first: bool) -> dt.datetime:
    text = text.strip()
    if text.isdigit():
        return dt.datetime.fromtimestamp(int(text), UTC)
    if "/" in text:
        a, b, rest = text.split("/", 2)
        day, month = (a, b) if day_first else (b, a)
        return dt.datetime.strptime(f"{day}/{month}/{rest}", "%d/%m/%Y %H:%M:%S").replace(tzinfo=UTC)
    when = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    return (when if when.tzinfo else when.replace(tzinfo=UTC)).astimezone(UTC)


def money(text: str) -> Decimal:
    return Decimal(text.replace(",", "").strip() or "0")


rows = list(csv.DictReader(io.StringIO(wfio.text("events.csv").lstrip("\ufeff"))))
slashed = [r["event_time"].split("/") for r in rows if "/" in r["event_time"]]
day_first = any(int(p[0]) > 12 for p in slashed) or not any(int(p[1]) > 12 for p in slashed)
DATE = r"(\d{4}-\d\d-\d\d|\d{1,2} [A-Z][a-z]+ \d{4}|[A-Z][a-z]+ \d{1,2}, \d{4})"


def written(text: str) -> dt.date:
    for pattern in ("%Y-%m-%d", "%d %B %Y", "%B %d, %Y"):
        try:
            return dt.datetime.strptime(text, pattern).date()
        except ValueError:
            continue
    raise ValueError(f"unknown date {text!r}")


reversed_events = {(m.group(2), m.group(1), written(m.group(3))) for m in re.finditer(
    rf"Reversal\. Billing reversed the (\w+) of customer (\S+) on {DATE} \(UTC\) in full", wfio.text("finance_notes.md"))}
tenants = set(re.search(r"Internal test tenants are left out as well: ([^.]+)\.", wfio.text("revenue_policy.md"))
              .group(1).split(", "))
in_scope = {r["customer_id"].strip() for r in wfio.table("customers")
            if r["channel"].strip() != "partner" and r["customer_id"].strip() not in tenants}
unique = {}
for row in rows:
    unique.setdefault(row["event_id"].strip(), row)
unique = {k: r for k, r in unique.items() if r["customer_id"].strip() in in_scope and (
    r["customer_id"].strip(), r["type"], parse_time(r["event_time"], day_first).date()) not in reversed_events}
corrected = {}
for row in sorted(unique.values(), key=lambda r: parse_time(r["event_time"], day_first)):
    if row["corrects"].strip():
        corrected[row["corrects"].strip()] = money(row["mrr"])
history = defaultdict(list)
for event_id, row in unique.items():
    if row["corrects"].strip():
        continue
    value = Decimal(0) if row["type"] == "cancel" else corrected.get(event_id, money(row["mrr"]))
    history[row["customer_id"].strip()].append((parse_time(row["event_time"], day_first), event_id, value))
for events in history.values():
    events.sort()
currency = {r["customer_id"].strip(): r["currency"].strip().upper() for r in wfio.table("customers")}
rate_sets = defaultdict(dict)
for r in wfio.table("fx_rates"):
    rate_sets[dt.date.fromisoformat(r["valid_from"].strip())][r["currency"].strip().upper()] = Decimal(r["eur_per_unit"])


def rates_for(month: dt.datetime) -> dict:
    return rate_sets[max(d for d in rate_sets if d <= month.date())]


def month_start(label: str) -> dt.datetime:
    year, month = map(int, label.split("-"))
    return dt.datetime(year, month, 1, tzinfo=UTC)


def next_month(when: dt.datetime) -> dt.datetime:
    return (when + dt.timedelta(days=32)).replace(day=1)


def state(events, before: dt.datetime) -> Decimal:
    value = Decimal(0)
    for when, _, mrr in events:
        if when >= before:
            break
        value = mrr
    return value


def ever_positive(events, before: dt.datetime) -> bool:
    return any(mrr > 0 for when, _, mrr in events if when < before)


months, cursor = [], month_start(P["first_month"])
while cursor <= month_start(P["last_month"]):
    months.append(cursor)
    cursor = next_month(cursor)
KINDS = ["new", "expansion", "contraction", "churn", "reactivation"]
bridge, movements = [], []
totals = defaultdict(Decimal)
counts = defaultdict(int)
for start in months:
    end = next_month(start)
    sums = defaultdict(Decimal)
    for customer, events in sorted(history.items()):
        r = rates_for(start)[currency[customer]]
        before, after = state(events, start) * r, state(events, end) * r
        sums["opening"] += before
        sums["closing"] += after
        if before == 0 and after > 0:
            kind = "reactivation" if ever_positive(events, start) else "new"
        elif before > 0 and after == 0:
            kind = "churn"
        elif after > before:
            kind = "expansion"
        elif after < before:
            kind = "contraction"
        else:
            continue
        sums[kind] += after - before
        totals[kind] += after - before
        counts[kind] += 1
        movements.append({"month": start.strftime("%Y-%m"), "customer_id": customer, "movement": kind,
                          "amount_eur": wfio.fmt(after - before)})
    bridge.append({"month": start.strftime("%Y-%m"), **{k: wfio.fmt(sums[k]) for k in ["opening", *KINDS, "closing"]}})
wfio.write_csv("mrr_bridge.csv", ["month", "opening", *KINDS, "closing"], bridge)
wfio.write_csv("movements.csv", ["month", "customer_id", "movement", "amount_eur"], movements)
last = next_month(months[-1])
rate = rates_for(months[-1])
active = [(c, state(e, last)) for c, e in sorted(history.items()) if state(e, last) > 0]
wfio.write_csv("customer_mrr.csv", ["customer_id", "currency", "mrr", "mrr_eur"],
               [{"customer_id": c, "currency": currency[c], "mrr": wfio.fmt(v), "mrr_eur": wfio.fmt(v * rate[currency[c]])}
                for c, v in active])
first = months[0]
cohort = [c for c, e in history.items() if state(e, first) > 0]
opening = sum(state(history[c], first) * rates_for(first)[currency[c]] for c in cohort)
closing = sum(state(history[c], last) * rate[currency[c]] for c in cohort)
wfio.write_json("summary.json", {
    "net_revenue_retention": float(wfio.rounded(closing / opening, 4)) if opening else 0.0,
    "churned_mrr_eur": float(wfio.rounded(-totals["churn"], 2)),
    "new_customers": counts["new"], "churn_events": counts["churn"],
    "active_customers_end": len(active),
})
