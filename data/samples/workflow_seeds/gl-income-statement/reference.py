"""Income statement for a period from a general ledger."""
from collections import defaultdict

import wfio

p = wfio.params()
kinds = {row["account"]: row["type"] for row in wfio.table("chart_of_accounts")}
names = {row["account"]: row["name"] for row in wfio.table("chart_of_accounts")}
activity = defaultdict(lambda: wfio.dec(0))
for line in wfio.table("gl"):
    if p["start"] <= line["date"] <= p["end"]:
        activity[line["account"]] += wfio.dec(line["debit"]) - wfio.dec(line["credit"])


def total(kind):
    return sum((v for a, v in activity.items() if kinds[a] == kind), wfio.dec(0))


revenue = -total("revenue")
cogs = total("cogs")
opex = total("expense")
gross = revenue - cogs
operating = gross - opex
margin = gross / revenue * 100 if revenue else wfio.dec(0)
wfio.write_json("income_statement.json", {
    "period": f"{p['start']}..{p['end']}", "revenue": float(wfio.rounded(revenue)), "cogs": float(wfio.rounded(cogs)),
    "gross_profit": float(wfio.rounded(gross)), "operating_expenses": float(wfio.rounded(opex)),
    "net_income": float(wfio.rounded(operating)), "gross_margin_pct": float(wfio.rounded(margin, 1)),
})
rows = [{"account": a, "name": names[a], "amount": wfio.fmt(v)}
        for a, v in sorted(activity.items()) if kinds[a] == "expense" and v != 0]
wfio.write_csv("expenses_by_account.csv", ["account", "name", "amount"], rows)
