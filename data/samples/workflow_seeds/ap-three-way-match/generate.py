"""Inputs of the accounts-payable three-way match: purchase orders, goods receipts, the supplier master, the AP
inbox's invoice export, the AP policy and the vendor notices that changed it during the year.

The rules live in the policy and the notices, not in the request: the price tolerance (changed on a dated day,
a larger change proposed and not adopted), payment terms of most suppliers changed for invoices from a day on,
suppliers renamed (their invoices print the new name, the master keeps the old one), payment holds (one
released), invoices voided by supplier and day only (about one in 150), and notices for another company code or
about bank details that change nothing here.

The tolerance change and twelve of the sixteen terms changes take effect by mid-May, the rest later in the year,
and the voids fall all year, so the notices change most suppliers' payment run on any run date from June on
(the dates evolution picks): a run that ignores them is wrong for most suppliers, not for two or three.

The invoice export is what an AP inbox produces after OCR and manual keying:
supplier names as printed on the invoice (case, spacing, and text that went
through a wrong code page on the way), dates in the formats of several
countries, amounts with thousands separators, invoices submitted twice, and
credit notes.
"""
import datetime as dt
import json
import os
import random

params = json.load(open("params.json", encoding="utf-8"))
rng = random.Random(params["seed"])
scale = params["scale"]
orders_n = max(30, round(params["orders"] * scale))
NAMES = ["Müller Präzisionsteile GmbH", "Søren & Dahl ApS", "Café Lumière SARL", "Ångström Optics AB", "Brück Logistik KG",
         "Peña Industrial S.L.", "Zürcher Hydraulik AG", "Łódź Metalworks sp. z o.o.", "Nordic Fasteners Oy", "Atlas Packaging Ltd",
         "Berg & Söhne OHG", "Crème Chemicals SA", "Dvořák Elektro s.r.o.", "Fjäll Timber AB", "Gómez Plásticos SA",
         "Hütte Stahlbau GmbH", "Iberia Cables SL", "Jørgensen Marine A/S", "Kraków Tools sp. j.", "Lumen Glass BV"]
suppliers = [(f"S{100 + k}", name, rng.choice([14, 30, 45, 60])) for k, name in enumerate(NAMES)]
YEAR = int(params["year"])


def some_day(low: dt.date, high: dt.date) -> dt.date:
    return low + dt.timedelta(days=rng.randrange((high - low).days + 1))


def long_date(value: dt.date) -> str:
    return rng.choice([f"{value.day} {value:%B %Y}", f"{value:%B} {value.day}, {value.year}", value.isoformat()])


renamed = {s[0]: (f"{s[1].split()[0]} {rng.choice(['Group', 'Holding', 'Industries'])} {s[1].split()[-1]}",
                  some_day(dt.date(YEAR, 3, 1), dt.date(YEAR, 8, 31)))
           for s in rng.sample([s for s in suppliers if not s[1].endswith(".")], 2)}
ITEMS = [f"ITM-{k:04d}" for k in range(400)]
BASE = dt.date(int(params["year"]), 1, 1)


def day(offset: int) -> dt.date:
    return BASE + dt.timedelta(days=offset)


def written_date(value: dt.date) -> str:
    style = rng.random()
    if style < 0.5:
        return value.isoformat()
    if style < 0.7:
        return value.strftime("%d.%m.%Y")
    if style < 0.85:
        return value.strftime("%d %b %Y")
    return value.strftime("%Y%m%d")


def written_name(name: str) -> str:
    roll = rng.random()
    if roll < 0.15:
        try:
            return name.encode("utf-8").decode("cp1252")
        except UnicodeDecodeError:
            return name
    if roll < 0.25:
        return name.upper()
    if roll < 0.32:
        return f"  {name} "
    return name


def money(value: float) -> str:
    text = f"{value:.2f}"
    return f'"{value:,.2f}"' if abs(value) >= 1000 and rng.random() < 0.4 else text


orders, receipts, invoices = [], [], []
serial = {"rcpt": 0, "inv": 0}
for k in range(orders_n):
    po = f"PO-{45000 + k}"
    supplier = rng.choice(suppliers)
    opened = rng.randrange(0, 300)
    for line in range(1, rng.randrange(1, 4) + 1):
        quantity = rng.choice([5, 10, 12, 20, 24, 50, 100, 250])
        price = round(rng.uniform(2, 900), 2)
        orders.append([po, str(line), supplier[0], rng.choice(ITEMS), str(quantity), f"{price:.2f}"])
        received, when = 0, opened
        while received < quantity and rng.random() < 0.93:
            part = quantity - received if rng.random() < 0.6 else rng.randrange(1, quantity - received + 1)
            when += rng.randrange(2, 25)
            serial["rcpt"] += 1
            receipts.append([f"GR-{serial['rcpt']:06d}", po, str(line), day(when).isoformat(), str(part)])
            received += part
        if received and rng.random() < 0.03:
            serial["rcpt"] += 1
            back = rng.randrange(1, received + 1)
            receipts.append([f"GR-{serial['rcpt']:06d}", po, str(line), day(when + 5).isoformat(), str(-back)])
            received -= back
        invoiced = 0
        while invoiced < quantity and rng.random() < 0.9:
            part = quantity - invoiced if rng.random() < 0.7 else rng.randrange(1, quantity - invoiced + 1)
            if rng.random() < 0.04:
                part += rng.randrange(1, 6)
            unit = price if rng.random() > 0.06 else round(price * rng.choice([1.04, 1.08, 1.15, 0.9]), 2)
            serial["inv"] += 1
            number = f"INV-{supplier[0][1:]}-{serial['inv']:06d}"
            issued = day(opened + rng.randrange(5, 90))
            po_written = po if rng.random() > 0.01 else po.replace("PO-", "PO-9")
            printed = renamed[supplier[0]][0] if supplier[0] in renamed and issued >= renamed[supplier[0]][1] else supplier[1]
            invoices.append([number, written_name(printed), written_date(issued), po_written, str(line), str(part),
                             f"{unit:.2f}", money(part * unit), printed, issued])
            invoiced += part
            if rng.random() < 0.03:
                serial["inv"] += 1
                back = rng.randrange(1, part + 1)
                credit = day(opened + rng.randrange(60, 150))
                printed = renamed[supplier[0]][0] if supplier[0] in renamed and credit >= renamed[supplier[0]][1] else supplier[1]
                invoices.append([f"CN-{supplier[0][1:]}-{serial['inv']:06d}", written_name(printed), written_date(credit),
                                 po, str(line), str(-back), f"{unit:.2f}", money(-back * unit), printed, credit])
rng.shuffle(invoices)
for index in rng.sample(range(len(invoices)), max(2, len(invoices) // 40)):
    copy = list(invoices[index])
    copy[0] = rng.choice([copy[0].lower(), f" {copy[0]}", copy[0]])
    copy[1] = written_name(copy[-2])
    invoices.insert(rng.randrange(index, len(invoices) + 1), copy)
tolerance = rng.choice([2, 3])
notices = []
changed = some_day(dt.date(YEAR, 2, 15), dt.date(YEAR, 5, 15))
notices.append((changed - dt.timedelta(days=rng.randrange(-10, 20)),
                f"Tolerance. The price tolerance is 5% of the PO line's unit price for invoices dated on or after "
                f"{long_date(changed)}."))
notices.append((some_day(dt.date(YEAR, 2, 1), dt.date(YEAR, 10, 1)),
                "Proposal (not adopted). Procurement proposed a price tolerance of 10%. The controller rejected it; "
                "the tolerance stands."))
SPRING, LATER = (dt.date(YEAR, 1, 15), dt.date(YEAR, 4, 15)), (dt.date(YEAR, 6, 1), dt.date(YEAR, 10, 31))
for place, supplier in enumerate(rng.sample(suppliers, 16)):
    when = some_day(*(SPRING if place < 12 else LATER))
    notices.append((when - dt.timedelta(days=rng.randrange(-10, 20)),
                    f"Payment terms. {supplier[1]} is paid {rng.choice([d for d in (14, 30, 45, 60, 90) if d != supplier[2]])} "
                    f"days after the invoice date for documents (invoices and credit notes) dated on or after "
                    f"{long_date(when)}."))
for sid, (new_name, when) in renamed.items():
    old_name = next(s[1] for s in suppliers if s[0] == sid)
    notices.append((when - dt.timedelta(days=rng.randrange(1, 20)),
                    f"Rename. {old_name} trades as {new_name} from {long_date(when)}; its supplier ID, terms and "
                    "open items are unchanged."))
held = rng.sample([s for s in suppliers if s[0] not in renamed], 2)
start, end = some_day(dt.date(YEAR, 2, 1), dt.date(YEAR, 4, 30)), some_day(dt.date(YEAR, 5, 2), dt.date(YEAR, 6, 25))
notices.append((start, f"Payment hold. {held[0][1]} is on payment hold from {long_date(start)} (bank details under "
                       "verification)."))
notices.append((end, f"Hold released. The payment hold on {held[0][1]} is released from {long_date(end)}."))
start = some_day(dt.date(YEAR, 6, 1), dt.date(YEAR, 6, 25))
notices.append((start, f"Payment hold. {held[1][1]} is on payment hold from {long_date(start)} (disputed deliveries)."))
per_day = {}
for row in invoices:
    per_day.setdefault((row[-2], row[-1]), set()).add(row[0].strip().upper())
candidates = list({r[0].strip().upper(): r for r in invoices
                    if not r[0].startswith("CN") and len(per_day[(r[-2], r[-1])]) == 1}.values())
for row in rng.sample(candidates, min(len(candidates), max(3, len(invoices) // 150))):
    notices.append((row[-1] + dt.timedelta(days=rng.randrange(2, 30)),
                    f"Void. The invoice of {row[-2]} dated {long_date(row[-1])} was issued in error and is void."))
notices.append((some_day(dt.date(YEAR, 1, 10), dt.date(YEAR, 11, 1)),
                "Other ledger. Company code 2000 (Nordic subsidiary) pays all suppliers 60 days after the invoice "
                "date from 1 April; this ledger (company code 1000) is unaffected."))
bank = rng.choice(suppliers)
notices.append((some_day(dt.date(YEAR, 1, 10), dt.date(YEAR, 11, 1)),
                f"Bank details. {bank[1]} confirmed new bank details by phone call-back; payments continue as usual."))
notices.sort(key=lambda n: n[0])
policy = "\n".join([
    f"# Accounts payable policy, company code 1000, {YEAR}", "",
    "Vendor notices (vendor_notices.md) amend this policy from the day each names.", "",
    "## 1. Documents", "",
    "A document is an invoice or a credit note (negative quantity), identified by its supplier and its document "
    "number (case and surrounding spaces are not significant); a document submitted twice counts once. The "
    "supplier is found by the name printed on the document.", "",
    "## 2. Three-way match", "",
    "Match each document to its purchase-order line (po_number, po_line). Status of an invoice: void when a "
    "vendor notice voids it; else unknown_po when its PO line does not exist; else price_variance when its unit "
    f"price differs from the PO line's unit price by more than the price tolerance ({tolerance}% of the PO "
    "price, for the invoice's date); else quantity_variance when the quantity invoiced on its PO line so far "
    "exceeds the quantity received on that line (all receipts; returns are negative); else approved. 'So far' "
    "means this invoice plus every invoice and credit note on the same PO line, void ones excepted, that comes "
    "before it in invoice-date order (ties by document number). A credit note whose PO line exists has status "
    "credit_note, otherwise unknown_po.", "",
    "## 3. Due dates", "",
    "A document is due its supplier's payment terms (days) after its invoice date: the terms in the supplier "
    "master, or those a notice set for documents of that date.", "",
    "## 4. Payment run", "",
    "The payment run to a run date pays, per supplier, the approved invoices due on or before the run date, "
    "net of the supplier's credit notes (status credit_note) dated on or before the run date. A supplier on "
    "payment hold on the run date gets nothing in the run. Amounts as invoiced, 2 decimals.", "",
    "## 5. Controls", "",
    "Segregation of duties: whoever keys an invoice does not approve the run. Bank detail changes are "
    "verified by call-back before the next run. Notices for other company codes do not apply to this ledger.", ""])
os.makedirs("inputs", exist_ok=True)
with open("inputs/ap_policy.md", "w", encoding="utf-8") as handle:
    handle.write(policy)
with open("inputs/vendor_notices.md", "w", encoding="utf-8") as handle:
    handle.write(f"# Vendor notices, company code 1000, {YEAR}\n\n" + "".join(
        f"## Notice {k}, {issued.isoformat()}\n\n{text}\n\n" for k, (issued, text) in enumerate(notices, start=1)))
with open("inputs/purchase_orders.csv", "w", encoding="utf-8") as handle:
    handle.write("po_number,po_line,supplier_id,item,quantity,unit_price\n" + "".join(",".join(r) + "\n" for r in orders))
with open("inputs/receipts.csv", "w", encoding="utf-8") as handle:
    handle.write("receipt_id,po_number,po_line,received_on,quantity\n" + "".join(",".join(r) + "\n" for r in receipts))
with open("inputs/suppliers.csv", "w", encoding="utf-8") as handle:
    handle.write("supplier_id,name,payment_terms_days\n" + "".join(f'{s},"{n}",{t}\n' for s, n, t in suppliers))
with open("inputs/invoices.csv", "w", encoding="utf-8") as handle:
    handle.write("invoice_id,supplier_name,invoice_date,po_number,po_line,quantity,unit_price,amount\n")
    for row in invoices:
        cells = [f'"{c}"' if ("," in c and not c.startswith('"')) else c for c in row[:-2]]
        handle.write(",".join(cells) + "\n")
