"""Spot DNS tunnelling: per registered domain, label lengths and character entropy of subdomains."""
import math
import re
from collections import Counter, defaultdict

import wfio

p = wfio.params()
min_label, min_names = int(p["min_label_length"]), int(p["min_distinct_names"])
QUERY = re.compile(r"client ([\d.]+)#\d+ query: (\S+) IN")
names, clients, counts = defaultdict(set), defaultdict(set), Counter()
for line in wfio.text("dns_queries.log").splitlines():
    match = QUERY.search(line)
    if not match:
        continue
    client, name = match.groups()
    labels = name.lower().rstrip(".").split(".")
    base = ".".join(labels[-2:])
    counts[base] += 1
    names[base].add(".".join(labels[:-2]))
    clients[base].add(client)
rows = []
for base in sorted(counts):
    subs = [s for s in names[base] if s]
    chars = Counter("".join(s.replace(".", "") for s in sorted(subs)))
    total = sum(chars.values())
    entropy = -sum(n / total * math.log2(n / total) for n in chars.values()) if total else 0.0
    longest = max((len(label) for s in subs for label in s.split(".")), default=0)
    rows.append({"domain": base, "queries": counts[base], "distinct_names": len(names[base]), "max_label_length": longest,
                 "entropy_bits": f"{entropy:.3f}", "suspicious": "yes" if longest >= min_label and len(names[base]) >= min_names else "no"})
wfio.write_csv("domains.csv", ["domain", "queries", "distinct_names", "max_label_length", "entropy_bits", "suspicious"], rows)
flagged = [r["domain"] for r in rows if r["suspicious"] == "yes"]
wfio.write_json("findings.json", {"suspicious_domains": flagged, "clients": sorted({c for d in flagged for c in clients[d]})})
