"""Detect port scans in tcpdump packet records: sources sending bare SYNs to many ports."""
import re
from collections import defaultdict

import wfio

minimum = int(wfio.params()["min_ports"])
RECORD = re.compile(r"^(\S+) IP (\d+\.\d+\.\d+\.\d+)\.(\d+) > (\d+\.\d+\.\d+\.\d+)\.(\d+): Flags \[([^\]]*)\]")
probes = defaultdict(set)
answered = set()
first = {}
for line in wfio.text("packets.txt").splitlines():
    match = RECORD.match(line)
    if not match:
        continue
    time, src, _, dst, dport, flags = match.groups()
    if flags == "S":
        probes[(src, dst)].add(int(dport))
        first[(src, dst)] = min(first.get((src, dst), time), time)
    elif flags == "S.":
        answered.add((dst, src, int(match.group(3))))
rows = []
for (src, dst), ports in sorted(probes.items()):
    if len(ports) < minimum:
        continue
    open_ports = sorted(p for p in ports if (src, dst, p) in answered)
    rows.append({"scanner": src, "target": dst, "ports_probed": len(ports), "lowest_port": min(ports), "highest_port": max(ports),
                 "first_probe": first[(src, dst)], "open_ports": " ".join(map(str, open_ports))})
wfio.write_csv("scans.csv", ["scanner", "target", "ports_probed", "lowest_port", "highest_port", "first_probe", "open_ports"], rows)
