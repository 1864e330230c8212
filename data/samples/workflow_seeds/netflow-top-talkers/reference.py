"""Top talkers and their egress volume from flow records."""
import ipaddress
from collections import defaultdict

import wfio

p = wfio.params()
internal = ipaddress.ip_network(p["internal_net"])
top = int(p["top_n"])
egress = defaultdict(lambda: {"bytes": 0, "flows": 0, "peers": set()})
for flow in wfio.table("flows"):
    src, dst = ipaddress.ip_address(flow["src"]), ipaddress.ip_address(flow["dst"])
    if src in internal and dst not in internal:
        e = egress[flow["src"]]
        e["bytes"] += int(flow["bytes"])
        e["flows"] += 1
        e["peers"].add(flow["dst"])
ranked = sorted(egress.items(), key=lambda item: (-item[1]["bytes"], ipaddress.ip_address(item[0])))[:top]
total = sum(e["bytes"] for e in egress.values())
rows = [{"rank": i, "src": src, "egress_bytes": e["bytes"], "flows": e["flows"], "distinct_peers": len(e["peers"]),
         "share_pct": f"{100 * e['bytes'] / total:.2f}"} for i, (src, e) in enumerate(ranked, start=1)]
wfio.write_csv("top_talkers.csv", ["rank", "src", "egress_bytes", "flows", "distinct_peers", "share_pct"], rows)
