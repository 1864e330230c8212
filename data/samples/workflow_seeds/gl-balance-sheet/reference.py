"""Balance sheet at a date, closing revenue and expenses into retained earnings."""
from collections import defaultdict

import wfio

as_of = wfio.params()["as_of"]
coa = {row["account"]: row for row in wfio.table("chart_of_accounts")}
net = defaultdict(lambda: wfio.dec(0))
for line in wfio.table("gl"):
    if line["date"] <= as_of:
        net[line["account"]] += wfio.dec(line["debit"]) - wfio.dec(line["credit"])


def total(*kinds):
    return sum((v for a, v in net.items() if coa[a]["type"] in kinds), wfio.dec(0))


assets = total("asset")
liabilities = -total("liability")
capital = -total("equity")
retained = -total("revenue", "cogs", "expense")
wfio.write_json("balance_sheet.json", {
    "as_of": as_of, "total_assets": float(wfio.rounded(assets)), "total_liabilities": float(wfio.rounded(liabilities)),
    "contributed_capital": float(wfio.rounded(capital)), "retained_earnings": float(wfio.rounded(retained)),
    "total_liabilities_and_equity": float(wfio.rounded(liabilities + capital + retained)),
})
rows = []
for account in sorted(net):
    kind = coa[account]["type"]
    if kind in ("asset", "liability", "equity") and net[account] != 0:
        sign = 1 if kind == "asset" else -1
        rows.append({"account": account, "name": coa[account]["name"], "section": kind, "amount": wfio.fmt(sign * net[account])})
wfio.write_csv("balance_sheet_lines.csv", ["account", "name", "section", "amount"], rows)
