"""The common output of the bench scripts: one `BENCH {json}` line per figure, which `bench/all.py` collects.

    from figures import emit
    emit("landing, no screen", ours=3900.0, floor=4700.0, unit="rows/s", goal=">= 0.8x")

`goal` is `>= N` or `<= N` followed by `x` (about the ratio ours / floor) or by the unit (about ours).
"""

from __future__ import annotations

import json

PREFIX = "BENCH "


def emit(stage: str, ours: float, floor: float | None, unit: str, goal: str = "", note: str = "") -> None:
    """Print one figure: the stage, our rate or time, the floor measured in the same run (None when there is
    none), the unit of both, the goal and a short note (what the floor is)."""
    ratio = ours / floor if floor else None
    print(PREFIX + json.dumps({"stage": stage, "ours": ours, "floor": floor, "unit": unit, "ratio": ratio,
                               "goal": goal, "note": note}, ensure_ascii=False), flush=True)
