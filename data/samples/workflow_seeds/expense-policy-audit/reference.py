"""Audit expense claims against the travel and expense policy."""
from collections import defaultdict

import wfio

p = wfio.params()
policy = {r["category"]: r for r in wfio.table("policy")}
flags, per_employee = [], defaultdict(lambda: {"claims": 0, "claimed": wfio.dec(0), "reimbursable": wfio.dec(0)})
for claim in wfio.table("expenses"):
    if not p["start"] <= claim["date"] <= p["end"]:
        continue
    rule, amount = policy[claim["category"]], wfio.dec(claim["amount"])
    reasons, allowed = [], amount
    if amount > wfio.dec(rule["limit_per_claim"]):
        reasons.append("over_limit")
        allowed = wfio.dec(rule["limit_per_claim"])
    if claim["receipt"] != "yes" and amount > wfio.dec(rule["receipt_required_over"]):
        reasons.append("missing_receipt")
        allowed = wfio.dec(0)
    e = per_employee[claim["employee"]]
    e["claims"] += 1
    e["claimed"] += amount
    e["reimbursable"] += allowed
    if reasons:
        flags.append({"claim": claim["claim"], "employee": claim["employee"], "category": claim["category"],
                      "amount": wfio.fmt(amount), "reasons": ";".join(reasons), "reimbursable": wfio.fmt(allowed)})
wfio.write_csv("flagged_claims.csv", ["claim", "employee", "category", "amount", "reasons", "reimbursable"], flags)
wfio.write_csv("employee_totals.csv", ["employee", "claims", "claimed", "reimbursable"],
               [{"employee": n, "claims": e["claims"], "claimed": wfio.fmt(e["claimed"]), "reimbursable": wfio.fmt(e["reimbursable"])}
                for n, e in sorted(per_employee.items())])
