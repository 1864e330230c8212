"""Bank reconciliation: match statement lines with cash-book entries by reference and amount."""
import wfio

p = wfio.params()
bank = [r for r in wfio.table("bank_statement") if r["date"] <= p["statement_date"]]
book = [r for r in wfio.table("cash_book") if r["date"] <= p["statement_date"]]
book_keys = {(r["reference"], wfio.dec(r["amount"])) for r in book}
bank_keys = {(r["reference"], wfio.dec(r["amount"])) for r in bank}
rows = []
for r in bank:
    if (r["reference"], wfio.dec(r["amount"])) not in book_keys:
        rows.append({"source": "bank", "date": r["date"], "reference": r["reference"], "amount": wfio.fmt(wfio.dec(r["amount"]))})
for r in book:
    if (r["reference"], wfio.dec(r["amount"])) not in bank_keys:
        rows.append({"source": "book", "date": r["date"], "reference": r["reference"], "amount": wfio.fmt(wfio.dec(r["amount"]))})
rows.sort(key=lambda r: (r["source"], r["date"], r["reference"]))
wfio.write_csv("unmatched.csv", ["source", "date", "reference", "amount"], rows)
opening = wfio.dec(p["opening_balance"])
bank_balance = opening + sum((wfio.dec(r["amount"]) for r in bank), wfio.dec(0))
book_balance = opening + sum((wfio.dec(r["amount"]) for r in book), wfio.dec(0))
not_booked = sum((wfio.dec(r["amount"]) for r in rows if r["source"] == "bank"), wfio.dec(0))
outstanding = sum((wfio.dec(r["amount"]) for r in rows if r["source"] == "book"), wfio.dec(0))
wfio.write_json("reconciliation.json", {
    "matched": len(bank) - sum(1 for r in rows if r["source"] == "bank"),
    "bank_balance": float(bank_balance), "book_balance": float(book_balance),
    "adjusted_book_balance": float(book_balance + not_booked),
    "adjusted_bank_balance": float(bank_balance + outstanding),
})
