"""How well the rule-based diagnosis tells failure from success and finds the decisive step, on public labelled runs.

Two measurements, each on a calibration part and a held-out part (a fixed split by a hash of the run's id;
`--held-out` sets its share):

1. SWE runs with published SWE-bench verdicts: every rule's firing rate on failed runs and on resolved runs
   relabelled as failed (a rule that fires as often on resolved runs points at nothing), and the share of runs
   that get a confident capability diagnosis (confidence >= 0.6).
2. Who&When's Algorithm-Generated multi-agent transcripts: how often the diagnosis names the annotated agent and
   step, beside the always-last-step and first-action baselines and the published LLM figures.

By default it reads the small copies kept under tests/fixtures/diagnosis. For the full measurement point it at
larger local copies:

    .venv/bin/python bench/diagnosis_quality.py \
        --swe-runs DATA/mini-swe-agent-gemini-3-pro/trajs \
        --swe-verdicts DATA/mini-swe-agent-gemini-3-pro/trajs/sb-cli-reports \
        --who-and-when "DATA/who_and_when/Who&When/Algorithm-Generated"

Where to get them (public GitHub repositories, MIT licence):
- SWE runs: `gruckion/mini-swe-agent`, folder `swebench_results/20251118_gemini-3-pro-74pct/` (500 mini-swe-agent
  runs of Gemini 3 Pro on SWE-bench Verified, `trajs/` with the sb-cli report under `trajs/sb-cli-reports/`, and
  per-instance `logs/<id>/report.json`). Any SWE-agent, mini-swe-agent or OpenHands run folder with its SWE-bench
  report works the same way (`--swe-runs` and `--swe-verdicts` may be repeated, in pairs).
- Who&When: `mingyin1/Agents_Failure_Attribution`, folder `Who&When/Algorithm-Generated/` only. The Hand-Crafted
  split is kept for independent evaluation: this script refuses any path that names it.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
FIXTURES = REPO / "tests" / "fixtures" / "diagnosis"
CONFIDENT = 0.6
HELD_OUT = 0.4
FORBIDDEN = "hand-crafted"
PUBLISHED = ("Who&When (ICML 2025): best LLM judges without help 7-9 % step accuracy (as cited in issue 18); "
             "a tracer trained for attribution about 20 %")


def held_out(key: str, share: float) -> bool:
    """Whether a run belongs to the held-out part: a fixed split by the hash of its id."""
    return int(hashlib.sha256(key.encode()).hexdigest()[:8], 16) % 1000 < share * 1000


def relabelled(episode):
    """A resolved run presented as a failure."""
    return episode.model_copy(update={"outcome": episode.outcome.model_copy(
        update={"success": False, "score": 0.0, "failure_origin": "model"})})


def swe_runs(pairs: list[tuple[Path, Path]]):
    """Graded episodes of every run folder with a verdict (runs without one are counted and left out)."""
    from taskforge.diagnosis.readers import discover, read_traces
    from taskforge.diagnosis.verdicts import graded_by, load_verdicts
    from taskforge.schemas import Episode

    episodes, unmatched = [], 0
    for runs, verdict_file in pairs:
        verdicts = load_verdicts([verdict_file])
        for item in read_traces(discover([runs])):
            if isinstance(item, Episode):
                verdict = verdicts.match(item)
                if verdict is None or verdict.resolved is None:
                    unmatched += 1
                else:
                    episodes.append(graded_by(item, verdict))
    return episodes, unmatched


@dataclass
class Part:
    """Counts of one part (calibration or held-out) of the SWE measurement."""

    failed: int = 0
    resolved: int = 0
    fires: Counter = None
    confident_fires: Counter = None
    confident: Counter = None
    diagnosed: Counter = None

    def __post_init__(self):
        self.fires, self.confident_fires, self.confident, self.diagnosed = Counter(), Counter(), Counter(), Counter()


def measure_swe(episodes, share: float) -> dict[str, Part]:
    """Per part: every rule's firing (and confident firing) on failed and relabelled resolved runs, and the runs
    with any / a confident capability diagnosis."""
    from taskforge.diagnosis.diagnose import diagnose
    from taskforge.diagnosis.rules import RULES

    parts = {"calibration": Part(), "held-out": Part()}
    for episode in episodes:
        part = parts["held-out" if held_out(episode.task_id, share) else "calibration"]
        side = "failed" if not episode.outcome.success else "resolved"
        setattr(part, side, getattr(part, side) + 1)
        case = episode if side == "failed" else relabelled(episode)
        for rule in RULES:
            finding = rule(case)
            if finding is not None and finding.mode.applies_to(case.family):
                part.fires[(rule.__name__, side)] += 1
                part.confident_fires[(rule.__name__, side)] += finding.confidence >= CONFIDENT
        found = [d for d in diagnose(case) if not d.failure_mode.is_infrastructure]
        part.diagnosed[side] += bool(found)
        part.confident[side] += any(d.confidence >= CONFIDENT for d in found)
    return parts


def print_swe(parts: dict[str, Part], unmatched: int) -> None:
    """The SWE tables: per rule, then per run."""
    from taskforge.diagnosis.rules import RULES

    for name, part in parts.items():
        if not part.failed and not part.resolved:
            continue
        print(f"\nSWE runs, {name}: {part.failed} failed, {part.resolved} resolved (relabelled as failed)"
              + (f"; {unmatched} runs without a verdict left out" if unmatched and name == "calibration" else ""))
        print(f"{'rule':<30}{'fires: failed':>14}{'resolved':>10}{'confident: failed':>19}{'resolved':>10}")
        for rule in RULES:
            cells = [part.fires[(rule.__name__, "failed")], part.fires[(rule.__name__, "resolved")],
                     part.confident_fires[(rule.__name__, "failed")], part.confident_fires[(rule.__name__, "resolved")]]
            if any(cells):
                print(f"{rule.__name__:<30}{_rate(cells[0], part.failed):>14}{_rate(cells[1], part.resolved):>10}"
                      f"{_rate(cells[2], part.failed):>19}{_rate(cells[3], part.resolved):>10}")
        print(f"{'any capability diagnosis':<30}{_rate(part.diagnosed['failed'], part.failed):>14}"
              f"{_rate(part.diagnosed['resolved'], part.resolved):>10}")
        print(f"{'a confident one (>= 0.6)':<30}{_rate(part.confident['failed'], part.failed):>14}"
              f"{_rate(part.confident['resolved'], part.resolved):>10}   goal: >= 70 % of failed, <= 20 % of resolved")


def _rate(count: int, total: int) -> str:
    return f"{100 * count / total:.0f} %" if total else "-"


def who_and_when(folder: Path):
    """Algorithm-Generated transcripts read by the group-chat reader, each with its annotated agent and step."""
    from taskforge.diagnosis.readers import discover, read_traces
    from taskforge.schemas import Episode

    if FORBIDDEN in str(folder).lower().replace("_", "-"):
        raise SystemExit(f"refusing {folder}: Who&When's Hand-Crafted split is kept for independent evaluation")
    labelled = []
    for source in discover([folder]):
        if source.path.suffix != ".json":
            continue
        label = json.loads(source.path.read_text())
        for episode in read_traces([source]):
            if isinstance(episode, Episode):
                labelled.append((episode, label["mistake_agent"], int(label["mistake_step"])))
    return labelled


def measure_attribution(labelled, share: float) -> dict[str, Counter]:
    """Per part: agent and step hits of the diagnosis's decisive step and of the two trivial baselines."""
    from taskforge.diagnosis.diagnose import attribution, diagnose

    parts = {"calibration": Counter(), "held-out": Counter()}
    for episode, agent, step in labelled:
        part = parts["held-out" if held_out(Path(episode.source_file).stem, share) else "calibration"]
        part["n"] += 1
        agents = [s for s in episode.steps if s.role == "assistant"]
        found = diagnose(episode)
        part["diagnosed"] += bool(found)
        guesses = {
            "rules (decisive step)": attribution(found),
            "always the last step": (agents[-1].actor if agents else None, episode.steps[-1].index),
            "the first action": (agents[0].actor if agents else None, agents[0].index if agents else None),
        }
        for method, (guess_agent, guess_step) in guesses.items():
            part[(method, "agent")] += guess_agent == agent
            part[(method, "step")] += guess_step == step
    return parts


def print_attribution(parts: dict[str, Counter]) -> None:
    """The attribution table, one block per part."""
    for name, part in parts.items():
        if not part["n"]:
            continue
        print(f"\nWho&When Algorithm-Generated, {name}: {part['n']} failed multi-agent transcripts")
        print(f"{'method':<26}{'agent accuracy':>16}{'step accuracy':>15}")
        for method in ("rules (decisive step)", "always the last step", "the first action"):
            print(f"{method:<26}{_rate(part[(method, 'agent')], part['n']):>16}"
                  f"{_rate(part[(method, 'step')], part['n']):>15}")
    print(f"published: {PUBLISHED}")


def main() -> None:
    """Run both measurements on the given (or the kept) public files and print their tables."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--swe-runs", type=Path, action="append", help="a folder of SWE-agent/mini-swe-agent/"
                        "OpenHands runs (repeatable, paired with --swe-verdicts)")
    parser.add_argument("--swe-verdicts", type=Path, action="append", help="the SWE-bench report of those runs")
    parser.add_argument("--who-and-when", type=Path, help="Who&When's Algorithm-Generated folder")
    parser.add_argument("--held-out", type=float, default=HELD_OUT, help="share of runs in the held-out part")
    args = parser.parse_args()
    runs = args.swe_runs or [FIXTURES / "mini-swe-agent-gemini-3-pro" / "trajs"]
    verdicts = args.swe_verdicts or [FIXTURES / "mini-swe-agent-gemini-3-pro" / "report.json"]
    if len(runs) != len(verdicts):
        raise SystemExit("give one --swe-verdicts per --swe-runs")
    episodes, unmatched = swe_runs(list(zip(runs, verdicts)))
    print(f"SWE runs: {len(episodes)} with a verdict from {', '.join(str(r) for r in runs)}")
    print_swe(measure_swe(episodes, args.held_out), unmatched)
    folder = args.who_and_when or FIXTURES / "who_and_when"
    print_attribution(measure_attribution(who_and_when(folder), args.held_out))


if __name__ == "__main__":
    main()
