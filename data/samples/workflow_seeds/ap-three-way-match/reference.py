"""Three-way match of supplier invoices against purchase orders and goods receipts, and the payment run, under
the AP policy as the vendor notices amended it (tolerance, terms, renames, holds and voids by dated day)."""
import csv
import datetime as dt
import io
import re
from collections import Counter, defaultdict
from decimal import Decimal

import wfio

P = wfio.params()
PAY_BY = dt.date.fromisoformat(P["pay_by"])
DATE = r"(\d{4}-\d\d-\d\d|\d{1,2} [A-Z][a-z]+ \d{4}|[A-Z][a-z]+ \d{1,2}, \d{4})"


def repaired(text: str) -> str:
    text = " ".join(text.split())
    try:
        return text.encode("cp1252").decode("utf-8")
    except (UnicodeEncodeError, UnicodeDecodeError):
        return text


def parse_date(text: str) -> dt.date:
    text = text.strip()
    for pattern in ("%Y-%m-%d", "%d.%m.%Y", "%d %b %Y", "%Y%m%d", "%d %B %Y", "%B %d, %Y"):
        try:
            return dt.datetime.strptime(text, pattern).date()
        except ValueError:
            continue
    raise ValueError(f"unknown date {text!r}")


def number(text: str) -> Decimal:
    return Decimal(text.replace(",", "").strip())


suppliers = {r["supplier_id"]: r for r in wfio.table("suppliers")}
by_name = {r["name"].casefold(): r["supplier_id"] for r in suppliers.values()}
tolerances = [(dt.date.min, Decimal(re.search(r"price tolerance \(([\d.]+)% of the PO", wfio.text("ap_policy.md")).group(1)))]
terms = {s: [(dt.date.min, int(r["payment_terms_days"]))] for s, r in suppliers.items()}
holds, voided = defaultdict(list), set()
for text in re.findall(r"## Notice \d+, \S+\n\n(.+)\n", wfio.text("vendor_notices.md")):
    if found := re.match(rf"Tolerance\. The price tolerance is ([\d.]+)% .* on or after {DATE}\.", text):
        tolerances.append((parse_date(found.group(2)), Decimal(found.group(1))))
    elif found := re.match(rf"Payment terms\. (.+) is paid (\d+) days .* on or after {DATE}\.", text):
        terms[by_name[found.group(1).casefold()]].append((parse_date(found.group(3)), int(found.group(2))))
    elif found := re.match(rf"Rename\. (.+) trades as (.+) from {DATE};", text):
        by_name[found.group(2).casefold()] = by_name[found.group(1).casefold()]
    elif found := re.match(rf"Payment hold\. (.+) is on payment hold from {DATE}", text):
        holds[by_name[found.group(1).casefold()]].append((parse_date(found.group(2)), True))
    elif found := re.match(rf"Hold released\. The payment hold on (.+) is released from {DATE}\.", text):
        holds[by_name[found.group(1).casefold()]].append((parse_date(found.group(2)), False))
    elif found := re.match(rf"Void\. The invoice of (.+) dated {DATE} was issued in error", text):
        voided.add((by_name[found.group(1).casefold()], parse_date(found.group(2))))


def in_force(changes: list, when: dt.date):
    return [value for since, value in sorted(changes) if since <= when][-1]


on_hold = {s for s, changes in holds.items() if in_force([(dt.date.min, False), *changes], PAY_BY)}
orders = {(r["po_number"], r["po_line"]): r for r in wfio.table("purchase_orders")}
received = defaultdict(int)
for r in wfio.table("receipts"):
    received[(r["po_number"], r["po_line"])] += int(r["quantity"])
documents, seen = [], set()
for row in csv.DictReader(io.StringIO(wfio.text("invoices.csv"))):
    supplier = by_name[repaired(row["supplier_name"]).casefold()]
    number_key = (supplier, row["invoice_id"].strip().upper())
    if number_key in seen:
        continue
    seen.add(number_key)
    documents.append({"supplier_id": supplier, "invoice_id": number_key[1], "date": parse_date(row["invoice_date"]),
                      "line": (row["po_number"].strip(), row["po_line"].strip()), "quantity": int(row["quantity"]),
                      "unit_price": number(row["unit_price"]), "amount": number(row["amount"])})
status = {}
cumulative = defaultdict(int)
for doc in sorted(documents, key=lambda d: (d["date"], d["invoice_id"])):
    key = (doc["supplier_id"], doc["invoice_id"])
    order = orders.get(doc["line"])
    if (doc["supplier_id"], doc["date"]) in voided and doc["quantity"] > 0:
        status[key] = "void"
        continue
    if doc["quantity"] < 0:
        status[key] = "credit_note" if order else "unknown_po"
        if order:
            cumulative[doc["line"]] += doc["quantity"]
        continue
    if order is None:
        status[key] = "unknown_po"
        continue
    cumulative[doc["line"]] += doc["quantity"]
    price = Decimal(order["unit_price"])
    if abs(doc["unit_price"] - price) > price * in_force(tolerances, doc["date"]) / 100:
        status[key] = "price_variance"
    elif cumulative[doc["line"]] > received[doc["line"]]:
        status[key] = "quantity_variance"
    else:
        status[key] = "approved"
rows = []
payable = defaultdict(lambda: [0, Decimal(0)])
for doc in documents:
    key = (doc["supplier_id"], doc["invoice_id"])
    due = doc["date"] + dt.timedelta(days=in_force(terms[doc["supplier_id"]], doc["date"]))
    rows.append({"supplier_id": key[0], "invoice_id": key[1], "status": status[key], "due_date": due.isoformat(),
                 "amount": wfio.fmt(doc["amount"])})
    if key[0] in on_hold:
        continue
    if status[key] == "approved" and due <= PAY_BY:
        payable[key[0]][0] += 1
        payable[key[0]][1] += doc["amount"]
    elif status[key] == "credit_note" and doc["date"] <= PAY_BY:
        payable[key[0]][1] += doc["amount"]
rows.sort(key=lambda r: (r["supplier_id"], r["invoice_id"]))
wfio.write_csv("invoice_status.csv", ["supplier_id", "invoice_id", "status", "due_date", "amount"], rows)
run = [{"supplier_id": s, "supplier_name": suppliers[s]["name"], "invoices": n, "amount": wfio.fmt(total)}
       for s, (n, total) in sorted(payable.items())]
wfio.write_csv("payment_run.csv", ["supplier_id", "supplier_name", "invoices", "amount"], run)
counts = Counter(status.values())
wfio.write_json("summary.json", {
    "documents": len(documents),
    **{name: counts.get(name, 0) for name in ("approved", "price_variance", "quantity_variance", "unknown_po", "credit_note",
                                               "void")},
    "payment_total": float(wfio.rounded(sum(t for _, t in payable.values()), 2)),
})
