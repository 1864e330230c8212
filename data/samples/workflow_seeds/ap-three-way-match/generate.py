"""Inputs of the accounts-payable three-way match: purchase orders, goods receipts, the supplier master and the
AP inbox's invoice export.

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
            invoices.append([number, written_name(supplier[1]), written_date(issued), po_written, str(line), str(part),
                             f"{unit:.2f}", money(part * unit), supplier[1]])
            invoiced += part
            if rng.random() < 0.03:
                serial["inv"] += 1
                back = rng.randrange(1, part + 1)
                credit = day(opened + rng.randrange(60, 150))
                invoices.append([f"CN-{supplier[0][1:]}-{serial['inv']:06d}", written_name(supplier[1]), written_date(credit),
                                 po, str(line), str(-back), f"{unit:.2f}", money(-back * unit), supplier[1]])
rng.shuffle(invoices)
for index in rng.sample(range(len(invoices)), max(2, len(invoices) // 40)):
    copy = list(invoices[index])
    copy[0] = rng.choice([copy[0].lower(), f" {copy[0]}", copy[0]])
    copy[1] = written_name(copy[-1])
    invoices.insert(rng.randrange(index, len(invoices) + 1), copy)
os.makedirs("inputs", exist_ok=True)
with open("inputs/purchase_orders.csv", "w", encoding="utf-8") as handle:
    handle.write("po_number,po_line,supplier_id,item,quantity,unit_price\n" + "".join(",".join(r) + "\n" for r in orders))
with open("inputs/receipts.csv", "w", encoding="utf-8") as handle:
    handle.write("receipt_id,po_number,po_line,received_on,quantity\n" + "".join(",".join(r) + "\n" for r in receipts))
with open("inputs/suppliers.csv", "w", encoding="utf-8") as handle:
    handle.write("supplier_id,name,payment_terms_days\n" + "".join(f'{s},"{n}",{t}\n' for s, n, t in suppliers))
with open("inputs/invoices.csv", "w", encoding="utf-8") as handle:
    handle.write("invoice_id,supplier_name,invoice_date,po_number,po_line,quantity,unit_price,amount\n")
    for row in invoices:
        cells = [f'"{c}"' if ("," in c and not c.startswith('"')) else c for c in row[:-1]]
        handle.write(",".join(cells) + "\n")
