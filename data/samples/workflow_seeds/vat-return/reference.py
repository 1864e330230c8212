"""Quarterly VAT return from sales and purchase registers."""
from collections import defaultdict

import wfio

p = wfio.params()


def in_quarter(row):
    return p["start"] <= row["date"] <= p["end"]


by_rate = defaultdict(lambda: {"sales_net": wfio.dec(0), "output_vat": wfio.dec(0), "purchases_net": wfio.dec(0), "input_vat": wfio.dec(0)})
for kind, stem in (("sales", "sales"), ("purchases", "purchases")):
    for row in wfio.table(stem):
        if not in_quarter(row):
            continue
        net = wfio.dec(row["net_amount"])
        vat = wfio.rounded(net * wfio.dec(row["vat_rate_pct"]) / 100)
        bucket = by_rate[row["vat_rate_pct"]]
        bucket[f"{kind}_net"] += net
        bucket["output_vat" if kind == "sales" else "input_vat"] += vat
rows = [{"vat_rate_pct": rate, **{k: wfio.fmt(v) for k, v in values.items()}}
        for rate, values in sorted(by_rate.items(), key=lambda item: -int(item[0]))]
wfio.write_csv("vat_by_rate.csv", ["vat_rate_pct", "sales_net", "output_vat", "purchases_net", "input_vat"], rows)
output_vat = sum((v["output_vat"] for v in by_rate.values()), wfio.dec(0))
input_vat = sum((v["input_vat"] for v in by_rate.values()), wfio.dec(0))
wfio.write_json("vat_return.json", {"period": f"{p['start']}..{p['end']}", "output_vat": float(output_vat),
                                    "input_vat": float(input_vat), "net_vat_payable": float(output_vat - input_vat)})
