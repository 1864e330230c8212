"""Reconstruct user sessions from an application log."""
import datetime as dt
import re

import wfio

gap = int(wfio.params()["idle_gap_s"])
LINE = re.compile(r"^(\S+) (\w+) +\[session=(\S+) user=(\S+)\] (.*)$")
sessions = {}
for line in wfio.text("app.log").splitlines():
    match = LINE.match(line)
    if not match:
        continue
    stamp, level, sid, user, message = match.groups()
    s = sessions.setdefault(sid, {"user": user, "times": [], "actions": 0, "errors": 0, "logout": False})
    s["times"].append(dt.datetime.fromisoformat(stamp))
    if message == "logout":
        s["logout"] = True
    elif message != "login":
        s["actions"] += 1
    s["errors"] += level == "ERROR"
rows = []
for sid, s in sorted(sessions.items(), key=lambda item: (min(item[1]["times"]), item[0])):
    times = sorted(s["times"])
    rows.append({"session": sid, "user": s["user"], "start": times[0].isoformat(), "end": times[-1].isoformat(),
                 "duration_s": int((times[-1] - times[0]).total_seconds()), "actions": s["actions"], "errors": s["errors"],
                 "idle_gaps": sum(1 for a, b in zip(times, times[1:]) if (b - a).total_seconds() > gap),
                 "logged_out": "yes" if s["logout"] else "no"})
wfio.write_csv("sessions.csv", ["session", "user", "start", "end", "duration_s", "actions", "errors", "idle_gaps", "logged_out"], rows)
