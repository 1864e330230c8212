"""Inputs of the MRR bridge: a billing system's subscription event export, its customer list, budget FX rates
(a set for each budget year, re-forecast after the first-quarter close and after the half-year close), the
revenue reporting policy and finance's notes.

The scope and conversion rules live in the policy and the notes, not in the request: partner-channel
customers and internal test tenants are out of the bridge, each month is converted at the budget rates valid
on its first day (the year's budget set takes over in January, re-forecast sets in May or June and in August
or September, so one set for the whole period is wrong in most of its months, whichever months it spans), and
events billing reversed are named by customer, type and day only; decoy notes (a proposal not adopted, the
partner bridge's own rules) change nothing. About a third of the subscriptions were taken over by the billing
system in the export's first month, so a period that starts early still has an established base to bridge.

The export is what such systems really hand over: written by a Windows tool
(byte-order mark, CRLF), timestamps from several services in several formats
and offsets, amounts sometimes with thousands separators, rows exported twice
where two export windows overlapped, and corrections keyed to the event they fix.
"""
import datetime as dt
import json
import os
import random

params = json.load(open("params.json", encoding="utf-8"))
rng = random.Random(params["seed"])
customers_n = max(40, round(params["customers"] * params["scale"]))
YEAR = int(params["year"])
RATES = {"EUR": 1.0, "USD": 0.9215, "GBP": 1.1682, "CHF": 1.0437, "SEK": 0.0871}
PLANS = {"EUR": [49, 99, 199, 490, 990], "USD": [59, 119, 229, 549, 1099], "GBP": [45, 89, 179, 429, 879],
         "CHF": [55, 109, 209, 519, 1049], "SEK": [550, 1090, 2190, 5290, 10900]}
start = dt.datetime(YEAR - 1, 10, 1, tzinfo=dt.timezone.utc)
end = dt.datetime(YEAR + 1, 1, 20, tzinfo=dt.timezone.utc)
MIGRATED_SHARE = 0.35  # subscriptions the billing system took over in its first month: the base is not new
EVENTS_PER_REVERSAL = 100  # billing reverses about one upgrade or downgrade in a hundred events


def moment(low: dt.datetime, high: dt.datetime) -> dt.datetime:
    span = int((high - low).total_seconds())
    when = low + dt.timedelta(seconds=rng.randrange(max(1, span)))
    if rng.random() < 0.08:  # close to a month end, where offsets decide the month
        first = (when.replace(day=1) + dt.timedelta(days=32)).replace(day=1, hour=0, minute=0, second=0)
        when = first - dt.timedelta(minutes=rng.randrange(1, 180)) if rng.random() < 0.5 else first + dt.timedelta(minutes=rng.randrange(1, 180))
        when = min(max(when, low + dt.timedelta(seconds=1)), high)
    return when


def stamp(when: dt.datetime) -> str:
    style = rng.random()
    if style < 0.45:
        return when.strftime("%Y-%m-%dT%H:%M:%SZ")
    if style < 0.65:
        offset = rng.choice([-5, -4, 1, 2, 9])
        local = when.astimezone(dt.timezone(dt.timedelta(hours=offset)))
        return local.isoformat(sep=" ")
    if style < 0.85:
        return str(int(when.timestamp()))
    return when.strftime("%d/%m/%Y %H:%M:%S")


def amount(value: float) -> str:
    text = f"{value:.2f}"
    if value >= 1000 and rng.random() < 0.5:
        text = f"{value:,.2f}"
    return text


customers, events = [], []
serial = 0
for k in range(customers_n):
    currency = rng.choices(list(RATES), weights=[50, 25, 12, 8, 5])[0]
    cid = f"C{10000 + k}"
    written = rng.choice([currency, currency.lower(), f" {currency}", f"{currency} "]) if rng.random() < 0.15 else currency
    customers.append([cid, written, rng.choice(["self-serve", "sales", "partner"])])
    migrated = rng.random() < MIGRATED_SHARE
    when = moment(start, start + dt.timedelta(days=30) if migrated else end - dt.timedelta(days=40))
    mrr, active, seen = 0.0, False, False
    while when < end:
        if not active:
            kind = "reactivate" if seen else "new"
            seen = True
            mrr = float(rng.choice(PLANS[currency])) * rng.choice([1, 1, 1, 2, 3])
            active = True
        else:
            roll = rng.random()
            if roll < 0.22:
                kind, mrr, active = "cancel", 0.0, False
            elif roll < 0.62:
                kind, mrr = "upgrade", round(mrr * rng.choice([1.25, 1.5, 2.0]), 2)
            else:
                kind, mrr = "downgrade", round(mrr * rng.choice([0.5, 0.8]), 2)
        serial += 1
        events.append({"id": f"EV{serial:07d}", "customer": cid, "when": when, "type": kind, "mrr": mrr})
        when = when + dt.timedelta(days=rng.randrange(12, 140), seconds=rng.randrange(86400))


def long_date(value: dt.date) -> str:
    return rng.choice([f"{value.day} {value:%B %Y}", f"{value:%B} {value.day}, {value.year}", value.isoformat()])


def reset(rates: dict[str, float]) -> dict[str, float]:
    """A re-forecast set of budget rates: every currency but the euro moves by up to 6 %."""
    return {c: (r if c == "EUR" else round(r * rng.uniform(0.94, 1.06), 4)) for c, r in rates.items()}


budget = dt.date(YEAR, 1, 1)
reforecasts = [dt.date(YEAR, rng.choice([5, 6]), 1), dt.date(YEAR, rng.choice([8, 9]), 1)]
rate_sets = [(dt.date(YEAR - 1, 1, 1), RATES)]
for valid_from in [budget, *reforecasts]:
    rate_sets.append((valid_from, reset(rate_sets[-1][1])))
direct = [c for c in customers if c[2] != "partner"]
tenants = rng.sample(direct, 4)
notes = [(dt.date(YEAR, 1, 15), "Scope. The partner bridge keeps its own rules (list prices, no FX); nothing in it "
                                "applies to this bridge."),
         (budget - dt.timedelta(days=rng.randrange(10, 25)),
          f"Budget. Finance has set the budget rates for {YEAR}; the new set in fx_rates.csv is valid from "
          f"{long_date(budget)}."),
         *((valid_from - dt.timedelta(days=rng.randrange(3, 20)),
            f"Re-forecast. Finance has re-set the budget rates; the new set in fx_rates.csv is valid from "
            f"{long_date(valid_from)}.") for valid_from in reforecasts),
         (dt.date(YEAR, rng.randrange(2, 11), rng.randrange(1, 28)),
          "Proposal (not adopted). Sales asked to include partner-channel customers in this bridge. The CFO "
          "declined; the policy stands.")]
rows = []
for event in events:
    rows.append([event["id"], event["customer"], stamp(event["when"]), event["type"],
                 "" if event["type"] == "cancel" and rng.random() < 0.5 else amount(event["mrr"]), ""])
corrections = rng.sample([e for e in events if e["type"] != "cancel"], max(3, len(events) // 40))
per_day = {}
for event in events:
    per_day.setdefault((event["customer"], event["type"], event["when"].date()), []).append(event)
fixed_ids = {e["id"] for e in corrections}
reversible = [e for e in events if e["type"] in ("upgrade", "downgrade") and e["id"] not in fixed_ids
              and len(per_day[(e["customer"], e["type"], e["when"].date())]) == 1
              and e["customer"] not in {t[0] for t in tenants}]
for event in rng.sample(reversible, min(len(reversible), max(3, len(events) // EVENTS_PER_REVERSAL))):
    notes.append((event["when"].date() + dt.timedelta(days=rng.randrange(2, 30)),
                  f"Reversal. Billing reversed the {event['type']} of customer {event['customer']} on "
                  f"{long_date(event['when'].date())} (UTC) in full; it never took effect."))
notes.sort(key=lambda n: n[0])
for original in corrections:
    serial += 1
    fixed = round(original["mrr"] * rng.choice([0.9, 0.95, 1.1, 1.2]), 2)
    later = original["when"] + dt.timedelta(days=rng.randrange(3, 75))
    rows.append([f"EV{serial:07d}", original["customer"], stamp(later), "correction", amount(fixed), original["id"]])
rows.sort(key=lambda r: int(r[0][2:]))
duplicates = rng.sample(range(len(rows)), max(2, len(rows) // 50))
for index in sorted(duplicates, reverse=True):
    rows.insert(index + rng.randrange(1, 30), list(rows[index]))


def csv_line(cells: list[str]) -> str:
    return ",".join(f'"{c}"' if "," in c else c for c in cells)


os.makedirs("inputs", exist_ok=True)
with open("inputs/events.csv", "w", encoding="utf-8", newline="") as handle:
    handle.write("\ufeff" + "\r\n".join(csv_line(r) for r in [["event_id", "customer_id", "event_time", "type", "mrr", "corrects"], *rows]) + "\r\n")
with open("inputs/customers.csv", "w", encoding="utf-8", newline="") as handle:
    handle.write("\n".join(",".join(r) for r in [["customer_id", "currency", "channel"], *customers]) + "\n")
with open("inputs/fx_rates.csv", "w", encoding="utf-8", newline="") as handle:
    handle.write("valid_from,currency,eur_per_unit\n" + "".join(
        f"{valid_from.isoformat()},{c},{r}\n" for valid_from, rates in rate_sets for c, r in rates.items()))
with open("inputs/revenue_policy.md", "w", encoding="utf-8") as handle:
    handle.write("\n".join([
        f"# Recurring revenue reporting policy, {YEAR}", "",
        "Finance's notes (finance_notes.md) amend this policy from the day each names.", "",
        "## 1. Scope", "",
        "The MRR bridge covers direct customers: customers of the partner channel (channel partner in the "
        "customer list) are reported in the partner bridge and are left out of this one. Internal test tenants "
        "are left out as well: " + ", ".join(t[0] for t in tenants) + ".", "",
        "## 2. Currency", "",
        "MRR is kept in the customer's billing currency and converted to EUR at budget rates (fx_rates.csv). "
        "Each month is converted at the set of budget rates valid on its first day (the latest set whose "
        "valid_from is on or before it), its opening and its closing alike; amounts at the end of the last "
        "month are converted at that month's set.", "",
        "## 3. Events", "",
        "An event billing reversed in full never took effect: it is left out, and the customer's MRR stays "
        "what it was before it. Corrections in the export replace the mrr of the event they name.", ""]))
with open("inputs/finance_notes.md", "w", encoding="utf-8") as handle:
    handle.write(f"# Finance notes on recurring revenue reporting, {YEAR}\n\n" + "".join(
        f"## Note {k}, {issued.isoformat()}\n\n{text}\n\n" for k, (issued, text) in enumerate(notes, start=1)))
