"""Quarterly commission run: the plan and its memos read into dated rules, the export cleaned, every document
credited, converted, commissioned (accelerator above quota) and reversed by its credit notes, statements capped."""
import bisect
import csv
import datetime as dt
import io
import re
from collections import defaultdict
from decimal import Decimal

import wfio

P = wfio.params()
DATE = r"(\d{4}-\d\d-\d\d|\d{1,2} [A-Z][a-z]+ \d{4}|[A-Z][a-z]+ \d{1,2}, \d{4})"


def written(text: str) -> dt.date:
    for pattern in ("%Y-%m-%d", "%d %B %Y", "%B %d, %Y", "%d.%m.%Y", "%d %b %Y", "%Y%m%d"):
        try:
            return dt.datetime.strptime(text.strip(), pattern).date()
        except ValueError:
            continue
    raise ValueError(f"unknown date {text!r}")


def quarter(value: dt.date) -> str:
    return f"{value.year}-Q{(value.month - 1) // 3 + 1}"


def amount(text: str) -> Decimal:
    return Decimal(text.replace(",", "").strip())


plan = wfio.text("comp_plan.md")
sections = {}
for block in re.split(r"^## ", plan, flags=re.M)[1:]:
    heading, _, body = block.partition("\n")
    sections[heading.split(".")[0]] = [[c.strip() for c in line.strip("|").split("|")] for line in body.splitlines()
                                       if line.startswith("|") and not line.startswith("|--")][1:]
products, territories, quotas = sections["5"], sections["Appendix A"], sections["Appendix B"]
rate_changes = {code: [(dt.date.min, Decimal(rate.rstrip("%")))] for _, code, rate in products}
owner_changes = {code: [(dt.date.min, name)] for _, code, name in territories}
territory_code = {label: code for label, code, _ in territories}
quota = {name: Decimal(value.replace(",", "")) for name, value in quotas}
accelerators = [(dt.date.min, Decimal(re.search(r"the accelerator, ([\d.]+),", plan).group(1)))]
cap = Decimal(re.search(r"quarterly cap of ([\d,]+) EUR", plan).group(1).replace(",", ""))
group = set(re.search(r"Invoices to Helvar group companies earn nothing[^:]*: ([^.]+(?:\.[^ ][^.]*)*)\. An invoice",
                      plan).group(1).split("; "))

memos = re.findall(r"## Memo \d+, issued (\S+)\n\n(.+)\n", wfio.text("plan_memos.md"))
withdrawn = set()
for issued, text in memos:
    found = re.match(rf"Withdrawal\. The memo of {DATE} on the (.+) rate is withdrawn", text)
    if found:
        withdrawn.add((written(found.group(1)).isoformat(), found.group(2)))
merged, voided = {}, set()
for issued, text in memos:
    if (found := re.match(rf"Rate change\. The commission rate for (.+) \((\w+)\) is ([\d.]+)% for invoices dated on "
                          rf"or after {DATE}\.", text)) and (issued, found.group(1)) not in withdrawn:
        rate_changes[found.group(2)].append((written(found.group(4)), Decimal(found.group(3))))
    elif found := re.match(rf"Accelerator\. From {DATE} the accelerator is ([\d.]+):", text):
        accelerators.append((written(found.group(1)), Decimal(found.group(2))))
    elif found := re.match(rf"Territory handover\. (.+) hands the (.+) territory to (.+); invoices dated on or after "
                           rf"{DATE} are credited", text):
        owner_changes[territory_code[found.group(2)]].append((written(found.group(4)), found.group(3)))
    elif found := re.match(rf"Correction\. The handover of the (.+) territory to (.+) takes effect on {DATE}, not on "
                           rf"{DATE}\.", text):
        changes = owner_changes[territory_code[found.group(1)]]
        changes[:] = [c for c in changes if c != (written(found.group(4)), found.group(2))]
        changes.append((written(found.group(3)), found.group(2)))
    elif found := re.match(rf"Quota adjustment\. The quota of (.+) for (\d{{4}}-Q\d) is ([\d,]+) EUR;", text):
        quota[(found.group(1), found.group(2))] = Decimal(found.group(3).replace(",", ""))
    elif found := re.match(rf"Account merger\. (.+) is merged into (.+) as of {DATE};", text):
        merged[found.group(1)] = (found.group(2), written(found.group(3)))
    elif found := re.match(rf"Void\. The invoice issued to (.+) on {DATE} was cancelled", text):
        voided.add((found.group(1), written(found.group(2))))


def in_force(changes: list, when: dt.date):
    return [value for since, value in sorted(changes, key=lambda c: c[0]) if since <= when][-1]


rep_id = {r["full_name"].strip(): r["rep_id"].strip() for r in wfio.table("reps")}
accounts = {r["account_id"].strip(): (r["account_name"].strip(), r["territory_code"].strip()) for r in wfio.table("accounts")}
by_name = {name: code for name, code in accounts.values()}
fx = defaultdict(list)
for r in wfio.table("fx_rates"):
    if r["rate_type"].strip() == "reference":
        fx[r["currency"].strip().upper()].append((dt.date.fromisoformat(r["rate_date"].strip()), Decimal(r["eur_per_unit"])))
for series in fx.values():
    series.sort()


def rate_on(currency: str, when: dt.date) -> Decimal:
    if currency == "EUR":
        return Decimal(1)
    series = fx[currency]
    return series[bisect.bisect_right(series, (when, Decimal("Infinity"))) - 1][1]


documents = {}
for r in csv.DictReader(io.StringIO(wfio.text("invoices.csv"))):
    documents.setdefault(r["document_id"].strip().upper(), r)
records = {}
for number, r in documents.items():
    when, (name, code) = written(r["invoice_date"]), accounts[r["account_id"].strip()]
    if name in merged and when >= merged[name][1]:
        code = by_name[merged[name][0]]
    excluded = "channel" if code == "CHN" else "group" if name in group else "void" if (name, when) in voided else ""
    records[number] = {"id": number, "date": when, "code": code, "excluded": excluded, "product": r["product_line"].strip(),
                       "currency": r["currency"].strip().upper(), "amount": amount(r["net_amount"]),
                       "original": r["original_document"].strip().upper(), "name": name}
attained = defaultdict(Decimal)
earned = {}
for doc in sorted(records.values(), key=lambda d: (d["date"], d["id"])):
    if doc["original"]:
        original = earned.get(doc["original"])
        if original is None or doc["excluded"]:
            continue
        source = records[doc["original"]]
        base = wfio.rounded(doc["amount"] * original["fx"])
        commission = wfio.rounded(original["commission"] * doc["amount"] / source["amount"])
        earned[doc["id"]] = {**original, "base": base, "commission": commission, "quarter": quarter(doc["date"]),
                             "credit": True}
        continue
    if doc["excluded"]:
        continue
    rep = rep_id[in_force(owner_changes[doc["code"]], doc["date"])]
    name = in_force(owner_changes[doc["code"]], doc["date"])
    rate = in_force(rate_changes[doc["product"]], doc["date"]) / 100
    fx_rate = rate_on(doc["currency"], doc["date"])
    base = wfio.rounded(doc["amount"] * fx_rate)
    period = quarter(doc["date"])
    room = max(Decimal(0), min(base, quota.get((name, period), quota[name]) - attained[(rep, period)]))
    commission = wfio.rounded(room * rate + (base - room) * rate * in_force(accelerators, doc["date"]))
    attained[(rep, period)] += base
    earned[doc["id"]] = {"rep": rep, "fx": fx_rate, "base": base, "commission": commission, "quarter": period,
                         "credit": False}
first, last = P["first_quarter"], P["last_quarter"]
lines = sorted((number, e) for number, e in earned.items() if first <= e["quarter"] <= last)
wfio.write_csv("commission_lines.csv", ["document_id", "rep_id", "quarter", "base_eur", "commission_eur"],
               [{"document_id": n, "rep_id": e["rep"], "quarter": e["quarter"], "base_eur": wfio.fmt(e["base"]),
                 "commission_eur": wfio.fmt(e["commission"])} for n, e in lines])
totals = defaultdict(lambda: {"attainment": Decimal(0), "commission": Decimal(0), "clawback": Decimal(0)})
for _, e in lines:
    row = totals[(e["quarter"], e["rep"])]
    row["clawback" if e["credit"] else "commission"] += e["commission"]
    row["attainment"] += Decimal(0) if e["credit"] else e["base"]
statements = []
for (period, rep), row in sorted(totals.items()):
    payout = min(row["commission"] + row["clawback"], cap)
    statements.append({"quarter": period, "rep_id": rep, "attainment_eur": wfio.fmt(row["attainment"]),
                       "commission_eur": wfio.fmt(row["commission"]), "clawback_eur": wfio.fmt(row["clawback"]),
                       "payout_eur": wfio.fmt(payout), "capped": payout == cap})
wfio.write_csv("rep_statements.csv", ["quarter", "rep_id", "attainment_eur", "commission_eur", "clawback_eur",
                                      "payout_eur"], statements)
in_range = [d for d in records.values() if first <= quarter(d["date"]) <= last]
wfio.write_json("summary.json", {
    "documents": len(in_range),
    "commissioned_documents": len(lines),
    "voided_invoices": sum(d["excluded"] == "void" for d in in_range),
    "total_payout_eur": float(sum(wfio.rounded(Decimal(s["payout_eur"])) for s in statements)),
    "capped_statements": sum(s["capped"] for s in statements),
})
