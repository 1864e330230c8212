"""Dark-frame correction of detector counts and per-channel signal rates."""
import statistics
from collections import defaultdict

import wfio

sigma = float(wfio.params()["clip_sigma"])
dark, light = defaultdict(list), defaultdict(list)
for row in wfio.table("frames"):
    rate = float(row["counts"]) / float(row["exposure_s"])
    (dark if row["frame_type"] == "dark" else light)[row["channel"]].append(rate)


def clipped_mean(values):
    """Mean after dropping values more than `sigma` sample standard deviations from the mean (one pass)."""
    if len(values) < 3:
        return statistics.fmean(values), len(values)
    mean, sd = statistics.fmean(values), statistics.stdev(values)
    kept = [v for v in values if abs(v - mean) <= sigma * sd]
    return statistics.fmean(kept), len(kept)


rows = []
for channel in sorted(light, key=lambda c: int(c[2:])):
    dark_rate, _ = clipped_mean(dark[channel])
    light_rate, used = clipped_mean(light[channel])
    signal = light_rate - dark_rate
    rows.append({"channel": channel, "dark_rate": f"{dark_rate:.3f}", "light_rate": f"{light_rate:.3f}", "signal_rate": f"{signal:.3f}",
                 "light_frames_used": used})
wfio.write_csv("channel_rates.csv", ["channel", "dark_rate", "light_rate", "signal_rate", "light_frames_used"], rows)
