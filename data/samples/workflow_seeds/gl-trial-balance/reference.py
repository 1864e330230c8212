"""Trial balance as of a date from a general ledger."""
from collections import defaultdict

import wfio

as_of = wfio.params()["as_of"]
names = {row["account"]: row["name"] for row in wfio.table("chart_of_accounts")}
net = defaultdict(lambda: wfio.dec(0))
for line in wfio.table("gl"):
    if line["date"] <= as_of:
        net[line["account"]] += wfio.dec(line["debit"]) - wfio.dec(line["credit"])
rows = []
for account in sorted(net):
    balance = net[account]
    if balance == 0:
        continue
    rows.append({"account": account, "name": names[account],
                 "debit": wfio.fmt(max(balance, 0)), "credit": wfio.fmt(max(-balance, 0))})
wfio.write_csv("trial_balance.csv", ["account", "name", "debit", "credit"], rows)
total_debit = sum(wfio.dec(r["debit"]) for r in rows)
total_credit = sum(wfio.dec(r["credit"]) for r in rows)
wfio.write_json("totals.json", {"as_of": as_of, "total_debit": float(wfio.rounded(total_debit)),
                                "total_credit": float(wfio.rounded(total_credit)), "accounts": len(rows)})
