"""Deduplicate a customer list on normalised e-mail and normalise the kept records."""
import wfio

keep = wfio.params()["keep"]
groups = {}
for row in wfio.table("customers"):
    groups.setdefault(row["email"].strip().lower(), []).append(row)
clean, removed = [], []
for email, rows in groups.items():
    rows.sort(key=lambda r: (r["signup_date"], int(r["customer_id"])))
    kept = rows[0] if keep == "earliest" else rows[-1]
    clean.append({"customer_id": kept["customer_id"], "name": " ".join(kept["name"].split()).title(), "email": email,
                  "country": kept["country"].strip().upper(), "signup_date": kept["signup_date"]})
    removed += [{"removed_id": r["customer_id"], "kept_id": kept["customer_id"]} for r in rows if r is not kept]
clean.sort(key=lambda r: int(r["customer_id"]))
removed.sort(key=lambda r: int(r["removed_id"]))
wfio.write_csv("customers_clean.csv", ["customer_id", "name", "email", "country", "signup_date"], clean)
wfio.write_csv("duplicates.csv", ["removed_id", "kept_id"], removed)
