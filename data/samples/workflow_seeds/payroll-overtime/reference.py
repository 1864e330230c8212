"""Weekly payroll with overtime above a weekly threshold."""
from collections import defaultdict

import wfio

p = wfio.params()
threshold, premium = wfio.dec(p["overtime_after_hours"]), wfio.dec(p["overtime_multiplier"])
people = {row["employee"]: row for row in wfio.table("employees")}
weekly = defaultdict(lambda: wfio.dec(0))
for entry in wfio.table("timesheets"):
    weekly[(entry["employee"], entry["iso_week"])] += wfio.dec(entry["hours"])
totals = defaultdict(lambda: {"regular_hours": wfio.dec(0), "overtime_hours": wfio.dec(0)})
for (employee, _), hours in weekly.items():
    totals[employee]["regular_hours"] += min(hours, threshold)
    totals[employee]["overtime_hours"] += max(hours - threshold, 0)
rows = []
for employee in sorted(totals):
    rate = wfio.dec(people[employee]["hourly_rate"])
    t = totals[employee]
    gross = t["regular_hours"] * rate + t["overtime_hours"] * rate * premium
    rows.append({"employee": employee, "name": people[employee]["name"], "regular_hours": wfio.fmt(t["regular_hours"], 1),
                 "overtime_hours": wfio.fmt(t["overtime_hours"], 1), "gross_pay": wfio.fmt(gross)})
wfio.write_csv("payroll.csv", ["employee", "name", "regular_hours", "overtime_hours", "gross_pay"], rows)
wfio.write_json("payroll_totals.json", {"employees": len(rows), "total_gross_pay": float(sum(wfio.dec(r["gross_pay"]) for r in rows)),
                                         "total_overtime_hours": float(sum(wfio.dec(r["overtime_hours"]) for r in rows))})
