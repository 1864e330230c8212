"""Run every bench script and print one table of their figures: stage, ours, floor, ratio, goal.

    .venv/bin/python bench/all.py [--only landing scale] [--skip swe] [--timeout 1800] [--json FILE]
    make bench

Each script runs in its own process with its default arguments (`--args NAME "ARGS"` overrides them, e.g.
`--args swe "--source https://github.com/… --count 30"`); its `BENCH {json}` lines (see bench/README.md and
bench/figures.py) become the rows. A script that fails, times out or prints no figure gets a row saying so.
"""

from __future__ import annotations

import argparse
import json
import re
import shlex
import subprocess
import sys
import time
from pathlib import Path

from figures import PREFIX

BENCH = Path(__file__).resolve().parent
NOT_SCRIPTS = {"all.py", "figures.py", "container_cpu.py", "solver_sample.py"}
"""Not measurements: this runner, the common output, the container CPU sampler other scripts use, and the solver
sample (a tool a person or agent drives: stage, tool, grade)."""
_GOAL = re.compile(r"^\s*(>=|<=)\s*([\d.]+)\s*(\S*)")


def scripts() -> list[str]:
    """Every bench script, by name."""
    return sorted(p.stem for p in BENCH.glob("*.py") if p.name not in NOT_SCRIPTS)


def run(name: str, arguments: list[str], timeout: float) -> tuple[list[dict], str, float]:
    """The figures a script printed, what went wrong if anything, and its wall seconds."""
    started = time.perf_counter()
    try:
        done = subprocess.run([sys.executable, str(BENCH / f"{name}.py"), *arguments], capture_output=True, text=True,
                              timeout=timeout, cwd=BENCH.parent)
    except subprocess.TimeoutExpired:
        return [], f"timed out after {timeout:.0f} s", time.perf_counter() - started
    figures = [json.loads(line[len(PREFIX):]) for line in done.stdout.splitlines() if line.startswith(PREFIX)]
    problem = ""
    if done.returncode:
        last = (done.stderr.strip().splitlines() or ["no error output"])[-1]
        problem = f"failed (exit {done.returncode}): {last[:160]}"
    elif not figures:
        problem = "printed no BENCH line"
    return figures, problem, time.perf_counter() - started


def meets(figure: dict) -> str:
    """Whether a figure meets its goal: `yes`, `no`, or empty when the goal cannot be read."""
    match = _GOAL.match(figure.get("goal") or "")
    if not match:
        return ""
    operator, bound, unit = match.group(1), float(match.group(2)), match.group(3)
    value = figure.get("ratio") if unit == "x" else figure.get("ours")
    if value is None:
        return ""
    return "yes" if (value >= bound if operator == ">=" else value <= bound) else "no"


def number(value: float | None) -> str:
    """A figure for the table: thousands separated, three significant digits below 100."""
    if value is None:
        return "—"
    return f"{value:,.0f}" if abs(value) >= 100 else f"{value:.3g}"


def table(rows: list[tuple[str, dict | None, str]]) -> str:
    """The markdown table of every script's figures (or its problem)."""
    lines = ["| stage | ours | floor (same run) | ratio | goal | met |", "|---|---|---|---|---|---|"]
    for name, figure, problem in rows:
        if figure is None:
            lines.append(f"| `bench/{name}.py` | {problem} | | | | |")
            continue
        unit = figure.get("unit", "")
        floor = f"{number(figure.get('floor'))} {unit}" if figure.get("floor") is not None else "—"
        if figure.get("note") and figure.get("floor") is not None:
            floor += f" ({figure['note']})"
        ratio = f"{figure['ratio']:.2f}×" if figure.get("ratio") is not None else "—"
        lines.append(f"| {figure['stage']} | {number(figure['ours'])} {unit} | {floor} | {ratio} | "
                     f"{figure.get('goal', '')} | {meets(figure)} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", default=None, help="script names to run (default: all)")
    parser.add_argument("--skip", nargs="*", default=[], help="script names to leave out")
    parser.add_argument("--args", nargs=2, action="append", default=[], metavar=("NAME", "ARGS"),
                        help="arguments for one script, as one string")
    parser.add_argument("--timeout", type=float, default=1800, help="seconds per script")
    parser.add_argument("--json", type=Path, help="also write every figure to this file")
    args = parser.parse_args()
    extra = {name: shlex.split(values) for name, values in args.args}
    chosen = [n for n in (args.only or scripts()) if n not in args.skip]
    unknown = sorted(set(chosen) - set(scripts()))
    if unknown:
        raise SystemExit(f"no bench script named {', '.join(unknown)}; there are {', '.join(scripts())}")
    rows: list[tuple[str, dict | None, str]] = []
    collected = []
    for name in chosen:
        print(f"running bench/{name}.py …", file=sys.stderr, flush=True)
        figures, problem, seconds = run(name, extra.get(name, []), args.timeout)
        print(f"  {len(figures)} figure(s) in {seconds:.0f} s{'; ' + problem if problem else ''}", file=sys.stderr)
        rows += [(name, figure, "") for figure in figures] or [(name, None, problem)]
        if figures and problem:
            rows.append((name, None, problem))
        collected += [{"script": name, **figure} for figure in figures]
    print(table(rows))
    if args.json:
        args.json.write_text(json.dumps(collected, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
