"""Three-way match of supplier invoices against purchase orders and goods receipts, and the payment run."""
import csv
import datetime as dt
import io
from collections import Counter, defaultdict
from decimal import Decimal

import wfio

P = wfio.params()
TOLERANCE = Decimal(P["price_tolerance_pct"]) / 100
PAY_BY = dt.date.fromisoformat(P["pay_by"])


def repaired(text: str) -> str:
    text = " ".join(text.split())
    try:
        return text.encode("cp1252").decode("utf-8")
    except (UnicodeEncodeError, UnicodeDecodeError):
        return text


def parse_date(text: str) -> dt.date:
    text = text.strip()
    for pattern in ("%Y-%m-%d", "%d.%m.%Y", "%d %b %Y", "%Y%m%d"):
        try:
            return dt.datetime.strptime(text, pattern).date()
        except ValueError:
            continue
    raise ValueError(f"unknown date {text!r}")


def number(text: str) -> Decimal:
    return Decimal(text.replace(",", "").strip())


suppliers = {r["supplier_id"]: r for r in wfio.table("suppliers")}
by_name = {r["name"].casefold(): r["supplier_id"] for r in suppliers.values()}
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
    if abs(doc["unit_price"] - price) > price * TOLERANCE:
        status[key] = "price_variance"
    elif cumulative[doc["line"]] > received[doc["line"]]:
        status[key] = "quantity_variance"
    else:
        status[key] = "approved"
rows = []
payable = defaultdict(lambda: [0, Decimal(0)])
for doc in documents:
    key = (doc["supplier_id"], doc["invoice_id"])
    due = doc["date"] + dt.timedelta(days=int(suppliers[doc["supplier_id"]]["payment_terms_days"]))
    rows.append({"supplier_id": key[0], "invoice_id": key[1], "status": status[key], "due_date": due.isoformat(),
                 "amount": wfio.fmt(doc["amount"])})
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
    **{name: counts.get(name, 0) for name in ("approved", "price_variance", "quantity_variance", "unknown_po", "credit_note")},
    "payment_total": float(wfio.rounded(sum(t for _, t in payable.values()), 2)),
})
