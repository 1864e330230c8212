"""Inputs of the quarterly sales commission run: the compensation plan, the memos that amended it during the
year, the rep and account masters, daily and budget FX rates, and the billing system's invoice export.

The rules live in the documents, not in the request: rates by product line and the accelerator with the dates
they changed, quotas and the payout cap, territories handed from rep to rep on dated days, accounts merged into
others, invoices voided by a memo that names only the customer and the day, a rate change announced and later
withdrawn, a proposal that was never adopted, group companies that earn nothing, a channel territory under
another plan, budget rates beside the reference rates. The export has the usual mess: four date styles,
currency codes in mixed case and spacing, thousands separators, rows exported twice, credit notes that point
at the invoice they reduce.
"""
import datetime as dt
import json
import os
import random
from collections import defaultdict

params = json.load(open("params.json", encoding="utf-8"))
rng = random.Random(params["seed"])
YEAR = int(params["year"])
count = max(120, round(params["invoices"] * params["scale"]))
FIRST, LAST = dt.date(YEAR - 1, 10, 1), dt.date(YEAR, 12, 31)
FIRSTS = ["Amira", "Bram", "Chiara", "Dagny", "Emil", "Farah", "Gustav", "Hanne", "Ilse", "Jonas", "Katja", "Lorenzo",
          "Maren", "Niels", "Olga", "Pieter", "Quentin", "Rosa", "Sven", "Tereza"]
LASTS = ["Aalto", "Bianchi", "Costa", "Dekker", "Eriksen", "Fischer", "Gallo", "Horvat", "Iversen", "Janssen",
         "Kowalski", "Lindqvist", "Moreau", "Novak", "Olsen", "Peeters", "Quist", "Rossi", "Schmid", "Toth"]
TERRITORIES = [("NOR", "Nordics", "SEK"), ("DAC", "DACH", "CHF"), ("BNL", "Benelux", "EUR"), ("IBE", "Iberia", "EUR"),
               ("UKI", "UK & Ireland", "GBP"), ("FRA", "France", "EUR"), ("ITA", "Italy", "EUR"),
               ("NAM", "North America", "USD")]
PRODUCTS = [("SWL", "software licences", [6, 7, 8]), ("SUB", "subscriptions", [8, 9, 10]),
            ("SRV", "professional services", [3, 4, 5]), ("HWR", "hardware", [1.5, 2, 2.5]),
            ("TRN", "training", [3, 4, 5])]
RATES = {"EUR": 1.0, "USD": 0.92, "GBP": 1.17, "CHF": 1.04, "SEK": 0.087}
WORDS = ["Arden", "Bellweather", "Corvid", "Dunmore", "Elstree", "Fenwick", "Galloway", "Harrow", "Ingram", "Jessop",
         "Kestrel", "Larkspur", "Marlow", "Northgate", "Oakridge", "Pembroke", "Quarry", "Redfern", "Saltash",
         "Thornbury", "Umber", "Vantage", "Wexford", "Yarrow", "Zephyr", "Ashby", "Brightwell", "Cobalt", "Delph"]
KINDS = ["Systems", "Logistics", "Foods", "Retail", "Energy", "Health", "Media", "Components", "Pharma", "Textiles"]
FORMS = ["Ltd", "GmbH", "AB", "BV", "SA", "S.p.A.", "Inc.", "Oy", "AG", "SARL"]


def long_date(value: dt.date) -> str:
    return rng.choice([f"{value.day} {value:%B %Y}", f"{value:%B} {value.day}, {value.year}", value.isoformat()])


def export_date(value: dt.date) -> str:
    style = rng.random()
    return value.isoformat() if style < 0.45 else value.strftime(
        "%d.%m.%Y" if style < 0.65 else "%d %b %Y" if style < 0.85 else "%Y%m%d")


def quarter(value: dt.date) -> str:
    return f"{value.year}-Q{(value.month - 1) // 3 + 1}"


names = rng.sample([f"{a} {b}" for a in FIRSTS for b in LASTS], 13)
reps = [(f"R{k + 11:02d}", name) for k, name in enumerate(names)]
direct, spare = reps[:8], reps[8:]
owner0 = {code: direct[k][1] for k, (code, _, _) in enumerate(TERRITORIES)}
accounts, used = [], set()
for k in range(max(60, count // 12)):
    while (name := f"{rng.choice(WORDS)} {rng.choice(KINDS)} {rng.choice(FORMS)}") in used:
        pass
    used.add(name)
    code = "CHN" if rng.random() < 0.08 else rng.choice(TERRITORIES)[0]
    accounts.append([f"A{5000 + k}", name, code])
group = [[f"A{4900 + k}", f"Helvar Group {suffix}", rng.choice(TERRITORIES)[0]]
         for k, suffix in enumerate(["Holding AB", "Services GmbH", "Finance BV"])]
accounts += group
currency_of = {c: cur for c, _, cur in TERRITORIES} | {"CHN": "EUR"}
docs = []
for k in range(count):
    account = rng.choice(accounts) if rng.random() > 0.02 else rng.choice(group)
    when = FIRST + dt.timedelta(days=rng.randrange((LAST - FIRST).days + 1))
    product = rng.choices(PRODUCTS, weights=[30, 30, 20, 10, 10])[0][0]
    currency = currency_of[account[2]] if rng.random() < 0.85 else rng.choice(list(RATES))
    amount = round(rng.lognormvariate(8.3, 0.9) / RATES[currency], 2)
    docs.append({"id": f"INV-{YEAR % 100}{k + 1:06d}", "account": account, "date": when, "product": product,
                 "currency": currency, "amount": amount, "original": ""})
docs.sort(key=lambda d: (d["date"], d["id"]))
credits = []
for original in rng.sample(docs, max(4, len(docs) // 30)):
    when = original["date"] + dt.timedelta(days=rng.randrange(5, 120))
    if when <= LAST:
        share = rng.choice([0.1, 0.25, 0.5, 1.0, rng.uniform(0.05, 0.9)])
        credits.append({**original, "id": original["id"].replace("INV", "CRN"), "date": when,
                        "amount": -round(original["amount"] * share, 2), "original": original["id"]})
credited = {c["original"] for c in credits}
docs = sorted(docs + credits, key=lambda d: (d["date"], d["id"]))

# Dated rules, each a memo
def some_day(low: dt.date, high: dt.date) -> dt.date:
    return low + dt.timedelta(days=rng.randrange((high - low).days + 1))


memos = []  # (issued, text)
rates = {code: rng.choice(choices) for code, _, choices in PRODUCTS}
changed = rng.sample([p[0] for p in PRODUCTS], 3)
title = {code: label for code, label, _ in PRODUCTS}
effective = some_day(dt.date(YEAR, 2, 10), dt.date(YEAR, 6, 20))
memos.append((effective + dt.timedelta(days=rng.randrange(-20, 20)),
              f"Rate change. The commission rate for {title[changed[0]]} ({changed[0]}) is {rates[changed[0]] + 1}% "
              f"for invoices dated on or after {long_date(effective)}."))
effective = some_day(dt.date(YEAR, 7, 1), dt.date(YEAR, 10, 31))
withdrawn_issue = effective - dt.timedelta(days=rng.randrange(15, 30))
memos.append((withdrawn_issue, f"Rate change. The commission rate for {title[changed[1]]} ({changed[1]}) is "
                               f"{rates[changed[1]] + 2}% for invoices dated on or after {long_date(effective)}."))
memos.append((withdrawn_issue + dt.timedelta(days=rng.randrange(2, 12)),
              f"Withdrawal. The memo of {long_date(withdrawn_issue)} on the {title[changed[1]]} rate is withdrawn in "
              f"full; the rate it announced never applied."))
memos.append((some_day(dt.date(YEAR, 3, 1), dt.date(YEAR, 9, 1)),
              f"Proposal (not adopted). Sales operations proposed a {title[changed[2]]} rate of "
              f"{rates[changed[2]] + 1.5}%. The compensation committee rejected the proposal; the plan rate stands."))
accelerator, accelerator_from = 1.5, dt.date(YEAR, rng.choice([4, 7]), 1)
memos.append((accelerator_from - dt.timedelta(days=12),
              f"Accelerator. From {long_date(accelerator_from)} the accelerator is 1.75: base above quota earns "
              f"1.75 times the product rate (invoices dated on or after that day)."))
handovers = []
for k, (code, label, _) in enumerate(rng.sample(TERRITORIES, 4)):
    when = some_day(dt.date(YEAR, 1, 15), dt.date(YEAR, 11, 15))
    issued = when - dt.timedelta(days=rng.randrange(-10, 25))
    handovers.append((issued, when, label, spare[k][1]))
    memos.append((issued, f"Territory handover. {owner0[code]} hands the {label} territory to {spare[k][1]}; invoices "
                          f"dated on or after {long_date(when)} are credited to {spare[k][1]}."))
issued, when, label, successor = rng.choice(handovers)
moved = min(max(when + dt.timedelta(days=rng.choice([-1, 1]) * rng.randrange(10, 40)), dt.date(YEAR, 1, 2)),
            dt.date(YEAR, 12, 20))
memos.append((issued + dt.timedelta(days=rng.randrange(1, 4)),
              f"Correction. The handover of the {label} territory to {successor} takes effect on {long_date(moved)}, "
              f"not on {long_date(when)}."))
steady = [t for t in TERRITORIES if t[1] not in {h[2] for h in handovers}]
for (code, label, _), whose in zip(rng.sample(steady, 2), rng.sample(spare, 2)):
    memos.append((some_day(dt.date(YEAR, 2, 1), dt.date(YEAR, 10, 1)),
                  f"Planned handover (cancelled). A handover of the {label} territory to {whose[1]} was discussed "
                  f"and cancelled; {label} stays with its owner."))
merging = rng.sample([a for a in accounts if a[2] != "CHN" and a not in group], 4)
pairings = [((0, 1), (2, 3)), ((0, 2), (1, 3)), ((0, 3), (1, 2))]
crossing = next((p for p in pairings if all(merging[i][2] != merging[j][2] for i, j in p)), pairings[0])
"""Each merger joins accounts of two territories where the four drawn allow it: a merger inside one territory
credits the same rep either way, so its memo would change nothing."""
for absorbed, into in ((merging[i], merging[j]) for i, j in crossing):
    when = some_day(dt.date(YEAR, 3, 1), dt.date(YEAR, 11, 1))
    memos.append((when - dt.timedelta(days=rng.randrange(1, 10)),
                  f"Account merger. {absorbed[1]} is merged into {into[1]} as of {long_date(when)}; invoices to "
                  f"{absorbed[1]} dated on or after that day are credited as invoices of {into[1]} (its territory)."))
per_day = defaultdict(int)
for d in docs:
    per_day[(d["account"][1], d["date"])] += 1
voidable = [d for d in docs if d["original"] == "" and d["id"] not in credited and d["account"] not in group
            and d["account"][2] != "CHN" and per_day[(d["account"][1], d["date"])] == 1
            and d["date"] >= dt.date(YEAR, 1, 1)]
for d in rng.sample(voidable, min(len(voidable), max(4, len(docs) // 400))):
    memos.append((d["date"] + dt.timedelta(days=rng.randrange(3, 40)),
                  f"Void. The invoice issued to {d['account'][1]} on {long_date(d['date'])} was cancelled by "
                  f"billing and earns no commission."))
for account in rng.sample([a for a in accounts if a[2] != "CHN" and a not in group], 4):
    memos.append((some_day(dt.date(YEAR, 1, 10), dt.date(YEAR, 11, 1)),
                  f"CRM housekeeping. {account[1]} is now looked after in the CRM by {rng.choice(reps)[1]}; "
                  "crediting is unchanged (section 4)."))
for d in rng.sample([d for d in docs if d["date"].year == YEAR and not d["original"]], 3):
    memos.append((d["date"] + dt.timedelta(days=rng.randrange(20, 60)),
                  f"Dispute closed. The committee reviewed the invoice issued to {d['account'][1]} on "
                  f"{long_date(d['date'])} and confirmed it stands as billed."))
memos.append((some_day(dt.date(YEAR, 1, 10), dt.date(YEAR, 11, 1)),
              f"Partner plan. Channel partner commission on hardware rises to {rng.choice([3, 4])}% under the Partner "
              f"Plan; this plan's rates are unchanged."))
memos.append((some_day(dt.date(YEAR, 1, 10), dt.date(YEAR, 11, 1)),
              "Budget rates. Finance has published the budget exchange rates for planning; they are not used for "
              "commission."))
memos.append((some_day(dt.date(YEAR, 1, 10), dt.date(YEAR, 11, 1)),
              "Reminder. Expense reports for the sales kick-off are due within 30 days; they are not commissionable."))
memos.sort(key=lambda m: m[0])

# Quotas and cap, sized on a rough pass over the data
rough = defaultdict(float)
for d in docs:
    if d["amount"] > 0 and d["account"] not in group and d["account"][2] != "CHN":
        rough[(owner0[d["account"][2]], quarter(d["date"]))] += d["amount"] * RATES[d["currency"]]
quota = {name: round(rng.uniform(0.75, 1.05) * max(v for (n, _), v in rough.items() if n == name), -4)
         for name in owner0.values()}
for _, name in spare:
    quota[name] = round(rng.uniform(0.5, 0.9) * max(quota.values()), -4)
cap = round(0.058 * max(rough.values()), -3)
kept = {owner0[code] for code, label, _ in TERRITORIES if label not in {h[2] for h in handovers}}
name, period = max((key for key in rough if key[0] in kept and key[1] > f"{YEAR}-Q1"), key=rough.get)
memos.append((dt.date(YEAR, 3 * int(period[-1]) - 2, 1) + dt.timedelta(days=rng.randrange(0, 60)),
              f"Quota adjustment. The quota of {name} for {period} is {round(rough[(name, period)] * 0.6, -4):,.0f} "
              "EUR; other quarters are unchanged."))
memos.sort(key=lambda m: m[0])

# FX rates: reference rates on business days, budget rates monthly (decoys)
fx, level = [], dict(RATES)
day = FIRST - dt.timedelta(days=10)
while day <= LAST:
    if day.weekday() < 5 and rng.random() > 0.02:
        for cur in ["USD", "GBP", "CHF", "SEK"]:
            level[cur] *= 1 + rng.gauss(0, 0.004)
            fx.append([day.isoformat(), cur, "reference", f"{level[cur]:.6f}"])
    if day.day == 1:
        fx += [[day.isoformat(), cur, "budget", f"{RATES[cur]:.4f}"] for cur in ["USD", "GBP", "CHF", "SEK"]]
    day += dt.timedelta(days=1)
BOILER = [
    "Commission is a variable component of pay and does not form part of base salary. Nothing in this plan "
    "creates a contract of employment or a right to continued participation.",
    "Disputes about a statement are raised in writing with sales operations within 60 days of the statement "
    "date; the compensation committee decides and its decision is final.",
    "Participants must record opportunities in the CRM. CRM ownership does not decide crediting: crediting "
    "follows the territory of the billed account as set out in section 4.",
    "Spiffs, contests and one-off incentives are announced separately and paid through payroll; they are not "
    "part of the commission statement.",
    "The plan is governed by the laws of the employing entity's country. Where a local law requires a "
    "different treatment, the local law prevails for that participant only.",
    "Participants on leave remain credited with their territory unless a handover memo says otherwise.",
]
plan = [f"# Helvar Sales Compensation Plan {YEAR} (direct sales)", "",
        f"Issued by the compensation committee. Plan year {YEAR}. Amendments are published as memos "
        "(plan_memos.md); a memo changes this plan from the day it names, never before.", "",
        "## 1. Purpose and scope", "",
        "This plan sets the commission of the direct sales representatives listed in the rep master. Accounts of "
        "the channel territory (code CHN) are served by partners under the separate Partner Plan: their invoices "
        "are out of scope of this plan and earn nothing under it, whoever is named on them. The documents of the "
        f"last quarter of {YEAR - 1} (the transition quarter) are settled under this plan as well, with its "
        "rates, quotas and Appendix A owners.", "",
        "## 2. Definitions", "",
        "- Document: an invoice or credit note in the billing export, identified by its document number (case "
        "and surrounding spaces are not significant). The export may list a document more than once; it counts once.",
        "- Invoice date: the date printed on the document.",
        "- Base: the document's net amount converted to EUR, rounded half up to the cent.",
        "- Quarter: calendar quarter of the invoice date (Q1 = January to March).", "",
        "## 3. Currency", "",
        "Amounts in another currency are converted at the reference rate (rate_type reference in fx_rates) for "
        "that currency published on the invoice date, or, when none was published that day, the latest reference "
        "rate published before it. EUR amounts are taken as they are. Budget rates are for planning only and "
        "are never used for commission.", "",
        "## 4. Crediting", "",
        "A document is credited to the representative who owns the billed account's territory on the invoice "
        "date (Appendix A gives the owners at the start of the plan year; handover memos change them). When an "
        "account has been merged into another, documents dated on or after the merger are credited as documents "
        "of the surviving account.", "",
        "## 5. Commission rates", "",
        "Commission on an invoice is its base times the rate of its product line in force on the invoice date:", "",
        "| product line | code | rate |", "|---|---|---|",
        *[f"| {label} | {code} | {rates[code]}% |" for code, label, _ in PRODUCTS], "",
        "## 6. Quota and accelerator", "",
        "Each representative has a quarterly quota in EUR of base (Appendix B). Attainment is the running total "
        "of the base of the representative's commissionable invoices in the quarter, taken in invoice-date order "
        "(ties by document number). The part of an invoice's base that lies above quota earns the product rate "
        f"times the accelerator, {accelerator}, the part up to quota the product rate. Credit notes do not change "
        "attainment.", "",
        "## 7. Credit notes", "",
        "A credit note names the invoice it reduces. It reverses commission of that invoice in proportion: the "
        "original invoice's commission times the credit note's amount divided by the original amount (both in "
        "the document currency), rounded half up to the cent. It is credited to the representative who earned "
        "the original invoice and falls in the quarter of the credit note's own date. Its base is its amount "
        "converted at the rate used for the original invoice. A credit note whose original earns nothing "
        "(voided, group company, channel, or not found) reverses nothing.", "",
        "## 8. Exclusions", "",
        "Invoices to Helvar group companies earn nothing and do not count toward attainment: "
        + "; ".join(g[1] for g in group) + ". An invoice voided by a memo earns nothing and does not count "
        "toward attainment.", "",
        "## 9. Rounding, statements and cap", "",
        "Each document's commission is rounded half up to the cent; statements add the rounded amounts. A "
        "representative's quarterly statement shows attainment (sum of bases of commissionable invoices), "
        "commission (sum over invoices), clawback (sum over credit notes, negative) and payout. Payout is "
        f"commission plus clawback, but never more than the quarterly cap of {cap:,.0f} EUR.", "",
        "## 10. General terms", "", *[p + "\n" for p in BOILER],
        "## Appendix A. Territories at the start of the plan year", "",
        "| territory | code | owner |", "|---|---|---|",
        *[f"| {label} | {code} | {owner0[code]} |" for code, label, _ in TERRITORIES],
        "| Channel | CHN | Partner Plan |", "",
        "## Appendix B. Quarterly quotas (EUR of base, every quarter of the year)", "",
        "| representative | quota |", "|---|---|",
        *[f"| {name} | {quota[name]:,.0f} |" for name in sorted(quota)], "",
        "## Appendix C. Worked example (illustration only, not a real account)", "",
        "A representative with a quota of 100,000 EUR and 96,000 EUR attained invoices 10,000 EUR of "
        "subscriptions at 9%: 4,000 EUR earn 9% and 6,000 EUR earn 9% times the accelerator.", ""]
memo_lines = [f"# Memos amending the {YEAR} direct sales compensation plan", ""]
for k, (issued, text) in enumerate(memos, start=1):
    memo_lines += [f"## Memo {k}, issued {issued.isoformat()}", "", text, ""]

rows = []
for d in docs:
    amount = f"{d['amount']:.2f}"
    if abs(d["amount"]) >= 1000 and rng.random() < 0.35:
        amount = f'"{d["amount"]:,.2f}"'
    cur = d["currency"] if rng.random() > 0.12 else rng.choice([d["currency"].lower(), f" {d['currency']}"])
    rows.append(",".join([d["id"], d["account"][0], export_date(d["date"]), d["product"], cur, amount, d["original"]]))
for index in sorted(rng.sample(range(len(rows)), max(2, len(rows) // 60)), reverse=True):
    cells = rows[index].split(",", 1)
    rows.insert(index + rng.randrange(1, 25), rng.choice([cells[0].lower(), f" {cells[0]}", cells[0]]) + "," + cells[1])
os.makedirs("inputs", exist_ok=True)
files = {
    "comp_plan.md": "\n".join(plan) + "\n",
    "plan_memos.md": "\n".join(memo_lines),
    "invoices.csv": "document_id,account_id,invoice_date,product_line,currency,net_amount,original_document\n"
                    + "\n".join(rows) + "\n",
    "reps.csv": "rep_id,full_name,email\n" + "".join(
        f"{i},{n},{n.lower().replace(' ', '.')}@helvar.example\n" for i, n in reps),
    "accounts.csv": "account_id,account_name,territory_code\n" + "".join(f"{a},{n},{t}\n" for a, n, t in accounts),
    "fx_rates.csv": "rate_date,currency,rate_type,eur_per_unit\n" + "".join(",".join(r) + "\n" for r in fx),
}
for name, text in files.items():
    with open(f"inputs/{name}", "w", encoding="utf-8") as handle:
        handle.write(text)
