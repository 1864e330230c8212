"""Find SSH brute-force sources in an auth log and whether any of them later logged in."""
import re
from collections import defaultdict

import wfio

threshold = int(wfio.params()["min_failures"])
LINE = re.compile(r"^(\w{3} +\d+ [\d:]{8}) \S+ sshd\[\d+\]: (Failed|Accepted) \S+ for (?:invalid user )?(\S+) from ([\d.]+) ")
failures, first, last, users, accepted = defaultdict(int), {}, {}, defaultdict(set), defaultdict(list)
for line in wfio.text("auth.log").splitlines():
    match = LINE.match(line)
    if not match:
        continue
    stamp, outcome, user, ip = match.groups()
    stamp = " ".join(stamp.split())
    if outcome == "Failed":
        failures[ip] += 1
        first.setdefault(ip, stamp)
        last[ip] = stamp
        users[ip].add(user)
    else:
        accepted[ip].append((stamp, user))
rows = []
for ip in sorted(failures, key=lambda i: (-failures[i], i)):
    if failures[ip] < threshold:
        continue
    later = [user for stamp, user in accepted[ip]]
    rows.append({"ip": ip, "failures": failures[ip], "distinct_users": len(users[ip]), "first_seen": first[ip], "last_seen": last[ip],
                 "compromised_user": later[0] if later else ""})
wfio.write_csv("suspects.csv", ["ip", "failures", "distinct_users", "first_seen", "last_seen", "compromised_user"], rows)
wfio.write_json("incident.json", {"suspect_ips": [r["ip"] for r in rows], "total_failures": sum(r["failures"] for r in rows),
                                   "compromised": sorted({f"{r['compromised_user']}@{r['ip']}" for r in rows if r["compromised_user"]})})
