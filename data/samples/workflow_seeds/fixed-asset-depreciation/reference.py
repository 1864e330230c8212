"""Depreciation of fixed assets for a fiscal year (straight line or double declining balance)."""
import datetime as dt

import wfio

year = int(wfio.params()["fiscal_year"])


def schedule(asset):
    """Depreciation per calendar year from the year of service, prorated by months in the first year."""
    cost, salvage, life = wfio.dec(asset["cost"]), wfio.dec(asset["salvage"]), int(asset["life_years"])
    start = dt.date.fromisoformat(asset["in_service"])
    first_fraction = wfio.dec(12 - start.month + 1) / 12
    book, charges, current = cost, {}, start.year
    while book > salvage:
        if asset["method"] == "SL":
            charge = (cost - salvage) / life
        else:
            charge = book * 2 / life
        if current == start.year:
            charge *= first_fraction
        charge = min(wfio.rounded(charge), book - salvage)
        if charge <= 0:
            break
        charges[current] = charge
        book -= charge
        current += 1
    return charges


rows = []
for asset in wfio.table("assets"):
    charges = schedule(asset)
    if dt.date.fromisoformat(asset["in_service"]).year > year:
        continue
    accumulated = sum((v for y, v in charges.items() if y <= year), wfio.dec(0))
    rows.append({"asset_id": asset["asset_id"], "depreciation": wfio.fmt(charges.get(year, 0)),
                 "accumulated": wfio.fmt(accumulated), "net_book_value": wfio.fmt(wfio.dec(asset["cost"]) - accumulated)})
wfio.write_csv("depreciation.csv", ["asset_id", "depreciation", "accumulated", "net_book_value"], rows)
wfio.write_json("summary.json", {"fiscal_year": year, "total_depreciation": float(sum(wfio.dec(r["depreciation"]) for r in rows)),
                                 "total_net_book_value": float(sum(wfio.dec(r["net_book_value"]) for r in rows))})
