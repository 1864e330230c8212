"""How well the rule-based diagnosis tells failure from success and finds the decisive step, on public labelled runs.

Three measurements, each on a calibration part and a held-out part (a fixed split by a hash of the task id, or of
the file name for Who&When; `--held-out` sets its share):

1. SWE runs with published SWE-bench verdicts, per system (agent and model): every rule's firing rate on failed
   runs and on resolved runs relabelled as failed (a rule that fires as often on resolved runs points at
   nothing), and the share of runs that get a confident capability diagnosis (confidence >= 0.6). Twice: with
   the harness's per-test results the verdicts carry (`Outcome.tests`: which FAIL_TO_PASS / PASS_TO_PASS tests
   failed), and from the trace alone (those results removed). A third table says whether what the trace shows
   about those tests (did the agent run them after its last change?) separates failed from resolved runs by
   itself.
2. Who&When's Algorithm-Generated multi-agent transcripts: how often the diagnosis names the annotated agent and
   step, beside trivial baselines and the published LLM figures.
3. MAST's human-labelled multi-agent traces and TRAIL's span-level annotations (GAIA and SWE-bench runs of
   smolagents, OpenInference span trees): for each annotated failure mode or error category that names one of our
   failure modes (`MAST_MODES`, `TRAIL_MODES`), the precision and recall of the rules naming that mode, beside
   always naming it and the majority guess; for TRAIL, how often the decisive step lies on an annotated span,
   beside the last step and the first action. Every annotated run is diagnosed as a failure (the traces hold no
   verdict, or an annotated failure in a run graded correct). MAST is measured per part, on both parts together
   and per system; a trace no reader knows is counted by system with the reason.

By default it reads the small copies kept under tests/fixtures/diagnosis. For the full measurement point it at
larger local copies (`--swe LABEL RUNS VERDICTS…`, repeatable):

    .venv/bin/python bench/diagnosis_quality.py \\
        --swe mini-swe-agent/gemini-3-pro DATA/mini-swe-agent-gemini-3-pro/trajs \\
              DATA/mini-swe-agent-gemini-3-pro/trajs/sb-cli-reports DATA/mini-swe-agent-gemini-3-pro/logs \\
        --swe SWE-agent/gpt-4o DATA/java/20240825_SWE-agent_gpt-4o-2024-05-13/trajs \\
              DATA/java/20240825_SWE-agent_gpt-4o-2024-05-13/results/results.json \\
              DATA/java/20240825_SWE-agent_gpt-4o-2024-05-13/logs \\
        --who-and-when "DATA/who_and_when/Who&When/Algorithm-Generated" \\
        --trail DATA/trail-benchmark/benchmarking \\
        --mast "DATA/mas-failure-taxonomy/new_data/round[1,3]/final_iaa_19_traces.json" \\
               DATA/mas-failure-taxonomy/new_data/general/all_human_annotations.json

Where to get them (public GitHub repositories):
- `gruckion/mini-swe-agent` (MIT), folder `swebench_results/20251118_gemini-3-pro-74pct/`: 500 mini-swe-agent runs
  of Gemini 3 Pro on SWE-bench Verified, `trajs/` with the sb-cli report under `trajs/sb-cli-reports/`, and the
  harness's per-instance `logs/<id>/report.json` (with `tests_status`).
- `multi-swe-bench/experiments`, folders `evaluation/java/verified/20240825_SWE-agent_<model>/`: SWE-agent runs of
  five models on SWE-bench-java Verified (91 instances each): `trajs/*.traj`, `results/results.json`, and the
  harness's `logs/<id>/run_instance.log` (its `report: {…}` line holds `tests_status`). No licence file: used
  here for measurement only, never kept in the repository.
- `mingyin1/Agents_Failure_Attribution` (MIT), folder `Who&When/Algorithm-Generated/` only. The Hand-Crafted
  split is kept for independent evaluation: this script refuses any path that names it.
- TRAIL (`patronus-ai/trail-benchmark`, MIT; also the Hugging Face dataset PatronusAI/TRAIL), folder
  `benchmarking/`: `data/GAIA/*.json` and `data/SWE Bench/*.json` (148 traces) with their annotations in
  `processed_annotations_gaia/` and `processed_annotations_swe_bench/` (same file names). A copy of the upstream
  files is in the fork `JuneHou/CausalError` at commit 0ffbed9 (its later commits change some annotations).
- MAST's annotated traces (Hugging Face mcemri/MAD, CC BY 4.0): the hub is the only source of the files
  themselves. Their human-labelled file (19 traces) is re-exported by `mkhvalch/mas-failure-taxonomy` (no licence
  of its own): `new_data/round[1,3]/final_iaa_19_traces.json` (each record's `trace_text` is the file's `trace`)
  and `new_data/general/all_human_annotations.json` (the three annotators' votes, `hf_annotations`, by
  `hf_<trace_id>`); `--mast` takes those two, or MAD's own file (`trace`, `annotations`). Every system's traces
  are read (AG2's JSON by `group_chat`; AppWorld, ChatDev, Magentic-One and OpenManus plain-text logs, MetaGPT's run
  records and communication log, HyperAgent's JSON log, each by its own reader; the file names Magentic-One and
  OpenManus `GAIA`). Its labels say little of a given trace: its 19 traces have only 8 distinct sets of majority
  labels (in each of the three early rounds the AppWorld, HyperAgent and AG2 traces share one set and the ChatDev
  and MetaGPT traces another; three of the four final-taxonomy traces share one, the OpenManus trace has none), and
  three taxonomy versions are mixed. The LLM-annotated full file
  (1,242 traces) is on the hub only.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
FIXTURES = REPO / "tests" / "fixtures" / "diagnosis"
CONFIDENT = 0.6
HELD_OUT = 0.4
FORBIDDEN = "hand-crafted"
PUBLISHED = ("Who&When (ICML 2025): best LLM judges without help 7-9 % step accuracy (as cited in issue 18); "
             "a tracer trained for attribution about 20 %")
PARTS = ("calibration", "held-out")


def held_out(key: str, share: float) -> bool:
    """Whether a run belongs to the held-out part: a fixed split by the hash of its id."""
    return int(hashlib.sha256(key.encode()).hexdigest()[:8], 16) % 1000 < share * 1000


def relabelled(episode):
    """A run presented as a graded model failure: a resolved SWE run (its harness results, every test passing,
    kept), or an annotated run whose trace holds no verdict."""
    return episode.model_copy(update={"outcome": episode.outcome.model_copy(
        update={"success": False, "score": 0.0, "failure_origin": "model", "graded": True})})


def trace_only(episode):
    """The run without the harness's per-test results: what the rules see from the trace and verdict alone."""
    return episode.model_copy(update={"outcome": episode.outcome.model_copy(update={"tests": None})})


def swe_runs(runs: Path, verdict_files: list[Path]):
    """Graded episodes of a run folder (runs without a verdict, or with an evaluation error, are counted and
    left out)."""
    from taskforge.diagnosis.readers import discover, read_traces
    from taskforge.diagnosis.verdicts import graded_by, load_verdicts
    from taskforge.schemas import Episode

    verdicts = load_verdicts(verdict_files)
    episodes, unmatched = [], 0
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
    """Counts of one part (calibration or held-out) of one system's SWE measurement."""

    runs: Counter = field(default_factory=Counter)
    fires: Counter = field(default_factory=Counter)
    confident_fires: Counter = field(default_factory=Counter)
    diagnosed: Counter = field(default_factory=Counter)
    confident: Counter = field(default_factory=Counter)
    trace_signals: Counter = field(default_factory=Counter)


def measure_swe(episodes, share: float, strip_tests: bool) -> dict[str, Part]:
    """Per part: every rule's firing (and confident firing) on failed and relabelled resolved runs, the runs with
    any / a confident capability diagnosis, and what the trace shows about the tests the harness ran."""
    from taskforge.diagnosis.diagnose import diagnose
    from taskforge.diagnosis.rules import rules_for

    parts = {name: Part() for name in PARTS}
    for episode in episodes:
        part = parts["held-out" if held_out(episode.task_id, share) else "calibration"]
        side = "failed" if not episode.outcome.success else "resolved"
        case = episode if side == "failed" else relabelled(episode)
        case = trace_only(case) if strip_tests else case
        part.runs[side] += 1
        for rule in rules_for(case.family):
            finding = rule(case)
            if finding is not None and finding.mode.applies_to(case.family):
                part.fires[(rule.__name__, side)] += 1
                part.confident_fires[(rule.__name__, side)] += finding.confidence >= CONFIDENT
        found = [d for d in diagnose(case) if not d.failure_mode.is_infrastructure]
        part.diagnosed[side] += bool(found)
        part.confident[side] += any(d.confidence >= CONFIDENT for d in found)
        _count_trace_signals(episode, side, part.trace_signals)
    return parts


def _count_trace_signals(episode, side: str, counts: Counter) -> None:
    """What the trace alone shows about the tests that decide the task (those the harness named), for failed and
    resolved runs alike: whether the agent ever ran them, ran them after its last change to the patch's files,
    and whether its last check after that change ran clean."""
    from taskforge.diagnosis.signals import calls, failed, runs_of_tests, solution_changes

    tests = episode.outcome.tests
    if tests is None:
        return
    names = [*tests.fail_to_pass_failed, *tests.fail_to_pass_passed, *tests.pass_to_pass_failed]
    changed = solution_changes(episode)
    last = changed[-1].step if changed else -1
    checks = [c for c in calls(episode) if c.step > last and c.is_check and c.observation is not None]
    counts[("with test results", side)] += 1
    counts[("ran the deciding tests at all", side)] += bool(runs_of_tests(episode, names))
    counts[("ran them after its last change", side)] += bool(runs_of_tests(episode, names, after=last))
    counts[("a check after its last change", side)] += bool(checks)
    counts[("that check ran clean", side)] += bool(checks) and not failed(checks[-1].observation)


def print_swe(label: str, parts: dict[str, Part], unmatched: int, strip_tests: bool) -> None:
    """The SWE tables of one system: per rule, then per run."""
    from taskforge.diagnosis.rules import RULES

    evidence = "from the trace alone" if strip_tests else "with the harness's per-test results"
    for name, part in parts.items():
        if not part.runs:
            continue
        print(f"\n{label}, {name}, {evidence}: {part.runs['failed']} failed, {part.runs['resolved']} resolved "
              f"(relabelled as failed)" + (f"; {unmatched} runs without a verdict left out"
                                           if unmatched and name == "calibration" else ""))
        print(f"{'rule':<30}{'fires: failed':>14}{'resolved':>10}{'confident: failed':>19}{'resolved':>10}")
        for rule in RULES:
            cells = [part.fires[(rule.__name__, "failed")], part.fires[(rule.__name__, "resolved")],
                     part.confident_fires[(rule.__name__, "failed")], part.confident_fires[(rule.__name__, "resolved")]]
            if any(cells):
                print(f"{rule.__name__:<30}{_rate(cells[0], part.runs['failed']):>14}"
                      f"{_rate(cells[1], part.runs['resolved']):>10}{_rate(cells[2], part.runs['failed']):>19}"
                      f"{_rate(cells[3], part.runs['resolved']):>10}")
        print(f"{'any capability diagnosis':<30}{_rate(part.diagnosed['failed'], part.runs['failed']):>14}"
              f"{_rate(part.diagnosed['resolved'], part.runs['resolved']):>10}")
        print(f"{'a confident one (>= 0.6)':<30}{_rate(part.confident['failed'], part.runs['failed']):>14}"
              f"{_rate(part.confident['resolved'], part.runs['resolved']):>10}   goal: >= 70 % of failed, "
              "<= 20 % of resolved")


def print_trace_signals(label: str, parts: dict[str, Part]) -> None:
    """Whether the trace alone separates: the share of failed and resolved runs showing each signal about the
    tests the harness ran."""
    for name, part in parts.items():
        counts = part.trace_signals
        if not counts[("with test results", "failed")]:
            continue
        failed, resolved = counts[("with test results", "failed")], counts[("with test results", "resolved")]
        print(f"\n{label}, {name}: what the trace shows about the deciding tests (runs with test results: "
              f"{failed} failed, {resolved} resolved)")
        print(f"{'signal':<36}{'failed':>8}{'resolved':>10}")
        for signal in ("ran the deciding tests at all", "ran them after its last change",
                       "a check after its last change", "that check ran clean"):
            print(f"{signal:<36}{_rate(counts[(signal, 'failed')], failed):>8}"
                  f"{_rate(counts[(signal, 'resolved')], resolved):>10}")


def print_summary(rows: list[tuple[str, str, Part, Part]]) -> None:
    """One line per system and part: confident diagnoses on failed and relabelled resolved runs, with the
    harness's per-test results and from the trace alone."""
    print("\nSummary: runs with a confident capability diagnosis (goal: >= 70 % of failed, <= 20 % of resolved)")
    print(f"{'system':<40}{'part':<13}{'failed':>7}{'resolved':>9}{'with test results':>20}{'trace alone':>15}")
    totals = {part: [Part(), Part()] for part in PARTS}
    for label, part_name, with_tests, alone in rows:
        for total, part in zip(totals[part_name], (with_tests, alone)):
            total.runs.update(part.runs)
            total.confident.update(part.confident)
        print(_summary_line(label, part_name, with_tests, alone))
    if len({label for label, *_ in rows}) > 1:
        for part_name, (with_tests, alone) in totals.items():
            print(_summary_line("all systems", part_name, with_tests, alone))


def _summary_line(label: str, part_name: str, with_tests: Part, alone: Part) -> str:
    failed, resolved = with_tests.runs["failed"], with_tests.runs["resolved"]
    pair = [f"{_rate(p.confident['failed'], failed)} / {_rate(p.confident['resolved'], resolved)}"
            for p in (with_tests, alone)]
    return f"{label[:39]:<40}{part_name:<13}{failed:>7}{resolved:>9}{pair[0]:>20}{pair[1]:>15}"


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


METHODS = ("rules (decisive step)", "always the last step", "the first action", "the second turn",
           "the most active agent's first turn", "the agent most often at fault, first turn")
"""The rules and every trivial baseline: the last step, the first agent turn, the second agent turn (the most
common labelled position in the calibration part), the first turn of the agent that spoke most, and the first turn
of the transcript's agent named most often as the mistake agent in the calibration part (a prior over names,
learnt from the calibration labels only)."""


def measure_attribution(labelled, share: float) -> dict[str, Counter]:
    """Per part: agent and step hits of the diagnosis's decisive step and of the trivial baselines."""
    from taskforge.diagnosis.diagnose import attribution, diagnose

    parts = {name: Counter() for name in PARTS}
    at_fault = Counter(agent for episode, agent, _ in labelled if not held_out(Path(episode.source_file).stem, share))
    for episode, agent, step in labelled:
        part = parts["held-out" if held_out(Path(episode.source_file).stem, share) else "calibration"]
        part["n"] += 1
        turns = [s for s in episode.steps if s.role == "assistant"]
        found = diagnose(episode)
        part["diagnosed"] += bool(found)
        busiest = Counter(s.actor for s in turns).most_common(1)[0][0] if turns else None
        second = turns[1] if len(turns) > 1 else turns[0] if turns else None
        usual = max((s.actor for s in turns), key=lambda name: at_fault[name], default=None)
        guesses = {
            "rules (decisive step)": attribution(found),
            "always the last step": (turns[-1].actor if turns else None, episode.steps[-1].index),
            "the first action": (turns[0].actor if turns else None, turns[0].index if turns else None),
            "the second turn": (second.actor if second else None, second.index if second else None),
            "the most active agent's first turn": (busiest, next((s.index for s in turns if s.actor == busiest),
                                                                  None)),
            "the agent most often at fault, first turn": (usual, next((s.index for s in turns if s.actor == usual),
                                                                       None)),
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
        print(f"{'method':<44}{'agent accuracy':>16}{'step accuracy':>15}")
        for method in METHODS:
            print(f"{method:<44}{_rate(part[(method, 'agent')], part['n']):>16}"
                  f"{_rate(part[(method, 'step')], part['n']):>15}")
    print(f"published: {PUBLISHED}")


TRAIL_MODES = {
    "formatting errors": "interaction.format_error",
    "formatting error": "interaction.format_error",
    "resource abuse": "research.repeats_unproductive_approach",
    "goal deviation": "research.lost_objective",
    "language-only": "knowledge.incorrect_answer",
    "tool output misinterpretation": "research.ignored_intermediate_finding",
    "poor information retrieval": "literature.insufficient_exploration",
}
"""TRAIL's error categories (lower case: the annotations spell some several ways) that name one of our failure
modes: formatting errors; resource abuse (the same tool called again and again); goal deviation; language-only
hallucinations (an answer no tool result led to); tool output misinterpretation; poor information retrieval. The
others (instruction non-compliance, tool selection, task orchestration, context handling, incorrect problem
identification, and the infrastructure ones: authentication, service, timeout …) have no mode of ours."""
TRAIL_SPLITS = (("GAIA", "processed_annotations_gaia"), ("SWE Bench", "processed_annotations_swe_bench"))
TRAIL_METHODS = ("rules (decisive step)", "always the last step", "the first action")


def trail(folder: Path):
    """TRAIL traces read by the OpenInference reader, each with its annotated modes and spans (a trace without an
    annotation file is left out)."""
    from taskforge.diagnosis.readers import discover, read_traces
    from taskforge.schemas import Episode

    labelled = []
    for split, annotations in TRAIL_SPLITS:
        traces = folder / "data" / split
        if not traces.is_dir():
            continue
        for episode in read_traces(discover([traces])):
            label = folder / annotations / Path(episode.source_file).name if isinstance(episode, Episode) else None
            if label is not None and label.exists():
                errors = _lenient_json(label)["errors"]
                categories = {e["category"].strip().lower() for e in errors}
                labelled.append((episode, {TRAIL_MODES[c] for c in categories if c in TRAIL_MODES},
                                 {str(e.get("location")) for e in errors}))
    return labelled


def _lenient_json(path: Path):
    """A JSON file that may have a comma before a closing bracket (a few TRAIL annotation files do)."""
    return json.loads(re.sub(r",(\s*[\]}])", r"\1", path.read_text()))


MAST_MODES = {
    "step repetition": "research.repeats_unproductive_approach",
    "task derailment": "research.lost_objective",
    "derailment from task": "research.lost_objective",
    "premature termination": "research.premature_termination",
    "ill specified termination condition leading to premature termination": "research.premature_termination",
    "no or incomplete verification": "research.no_verification",
    "lack of result verification": "research.no_verification",
}
"""MAST's failure modes (the label's first line without its code, lower case, as named in the final taxonomy and
in the earlier rounds' ones) that name one of our failure modes. The others (disobeying the task or role
specification, reasoning-action mismatch, ignored input, withholding information, weak verification …) have no
mode of ours."""


def mast(traces: Path, votes: Path | None):
    """MAST's human-labelled traces, each with the modes at least two of its three annotators marked, the unread
    ones counted by system with the reason, and how many distinct sets of majority labels the traces have.
    `traces` is MAD's human-labelled file (records with `trace` and `annotations`) or its re-export (`trace_text`,
    the votes in `votes` by `hf_<id>`)."""
    import tempfile

    from taskforge.diagnosis.readers import discover, read_traces
    from taskforge.schemas import Episode

    by_id = {}
    if votes:
        by_id = {r["trace_id"]: r["hf_annotations"] for r in json.loads(votes.read_text()) if "hf_annotations" in r}
    labelled, unread, label_sets = [], Counter(), set()
    with tempfile.TemporaryDirectory() as folder:
        for record in json.loads(traces.read_text()):
            trace_id = record.get("trace_id", record.get("index"))
            marked = ({a["failure mode"]: [a[f"annotator_{k}"] for k in (1, 2, 3)] for a in record["annotations"]}
                      if "annotations" in record else
                      {label: list(v.values()) for label, v in by_id[f"hf_{trace_id}"].items()})
            labels = {re.sub(r"^[\d.]+\s*", "", label.split("\n")[0]).strip().lower()
                      for label, votes_of in marked.items() if sum(map(bool, votes_of)) >= 2}
            path = Path(folder) / f"{record['mas_name']}-{trace_id}.json"
            path.write_text(record.get("trace", record.get("trace_text", "")))
            for item in read_traces(discover([path])):
                if isinstance(item, Episode):
                    labelled.append((item, {MAST_MODES[c] for c in labels if c in MAST_MODES}, None))
                else:
                    unread[(record["mas_name"], item.reason.split(": ", 1)[-1].split(" (tried")[0])] += 1
            label_sets.add(frozenset(labels))
    return labelled, unread, len(label_sets)


def measure_modes(labelled, share: float, modes) -> dict[str, Counter]:
    """Per part: for every mapped mode, the runs annotated with it, those the rules name it on (any confidence /
    confident) and the hits; where the annotation names spans, whether the decisive step (and each baseline's step)
    lies on one. Every annotated run is diagnosed as a failure."""
    from taskforge.diagnosis.diagnose import attribution, diagnose

    parts = {name: Counter() for name in PARTS}
    for episode, annotated, locations in labelled:
        part = parts["held-out" if held_out(episode.task_id, share) else "calibration"]
        part["n"] += 1
        found = [d for d in diagnose(relabelled(episode)) if not d.failure_mode.is_infrastructure]
        named = {d.failure_mode.value for d in found}
        confident = {d.failure_mode.value for d in found if d.confidence >= CONFIDENT}
        for mode in set(modes.values()):
            part[("annotated", mode)] += mode in annotated
            part[("named", mode)] += mode in named
            part[("hit", mode)] += mode in annotated and mode in named
            part[("confident", mode)] += mode in confident
            part[("confident hit", mode)] += mode in annotated and mode in confident
        if not locations:
            continue
        spans = episode.metadata["span_ids"]
        turns = [s.index for s in episode.steps if s.role == "assistant"]
        steps = {"rules (decisive step)": attribution(found)[1], "always the last step": episode.steps[-1].index,
                 "the first action": turns[0] if turns else None}
        part["located runs"] += 1
        for method, step in steps.items():
            part[("located", method)] += step is not None and spans[step] in locations
    return parts


def print_modes(title: str, parts: dict[str, Counter], modes) -> None:
    """Per part: precision and recall per mapped mode beside always naming it and the majority guess, then (where
    the annotations name spans) the location line."""
    for name, part in parts.items():
        n = part["n"]
        if not n:
            continue
        print(f"\n{title}, {name}: {n} annotated runs (every one diagnosed as a failure); precision / recall")
        print(f"{'mode':<40}{'annotated':>10}{'rules, any':>16}{'rules, confident':>18}{'always':>14}{'majority':>14}")
        for mode in sorted(set(modes.values())):
            positives = part[("annotated", mode)]
            majority = positives * 2 > n
            cells = [_pr(part[("hit", mode)], part[("named", mode)], positives),
                     _pr(part[("confident hit", mode)], part[("confident", mode)], positives),
                     _pr(positives, n, positives), _pr(positives if majority else 0, n if majority else 0, positives)]
            print(f"{mode:<40}{positives:>10}" + "".join(f"{c:>{w}}" for c, w in zip(cells, (16, 18, 14, 14))))
        if part["located runs"]:
            print(f"{'step on an annotated span':<40}{part['located runs']:>10} runs with errors: "
                  + ", ".join(f"{method} {_rate(part[('located', method)], part['located runs'])}"
                              for method in TRAIL_METHODS))


def print_mast_systems(labelled) -> None:
    """Per MAST system: its traces, the format they were read as, and per mapped mode how many traces the
    annotators' majority marks with it and how many the rules name it on (any confidence)."""
    from taskforge.diagnosis.diagnose import diagnose

    systems: dict[str, Counter] = {}
    for episode, annotated, _ in labelled:
        system = Path(episode.source_file).name.split("-", 1)[0]
        row = systems.setdefault(f"{system} ({episode.source_format})", Counter())
        row["n"] += 1
        named = {d.failure_mode.value for d in diagnose(relabelled(episode)) if not d.failure_mode.is_infrastructure}
        for mode in set(MAST_MODES.values()):
            row[("annotated", mode)] += mode in annotated
            row[("named", mode)] += mode in named
    modes = sorted(set(MAST_MODES.values()))
    print("\nMAST per system: traces; per mode, annotated / named by the rules ("
          + ", ".join(m.split(".")[-1] for m in modes) + ")")
    for system, row in sorted(systems.items()):
        cells = "  ".join(f"{row[('annotated', m)]}/{row[('named', m)]}" for m in modes)
        print(f"{system:<32}{row['n']:>4}  {cells}")


def _pr(hits: int, named: int, positives: int) -> str:
    """`precision / recall` in percent ('-' where undefined)."""
    return f"{_rate(hits, named)} / {_rate(hits, positives)}"


def main() -> None:
    """Run both measurements on the given (or the kept) public files and print their tables."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--swe", nargs="+", action="append", metavar="LABEL RUNS VERDICTS",
                        help="a system's label, its run folder (SWE-agent / mini-swe-agent / OpenHands runs) and "
                             "its verdict files or folders (repeatable)")
    parser.add_argument("--who-and-when", type=Path, help="Who&When's Algorithm-Generated folder")
    parser.add_argument("--trail", type=Path, help="TRAIL's benchmarking folder (data/ and processed_annotations_*/)")
    parser.add_argument("--mast", type=Path, nargs="+", metavar="TRACES [VOTES]",
                        help="MAST's human-labelled file, or its re-export's traces and votes")
    parser.add_argument("--held-out", type=float, default=HELD_OUT, help="share of runs in the held-out part")
    args = parser.parse_args()
    mini = FIXTURES / "mini-swe-agent-gemini-3-pro"
    systems = args.swe or [["mini-swe-agent/gemini-3-pro (kept sample)", str(mini / "trajs"),
                            str(mini / "report.json"), str(mini / "logs")]]
    rows = []
    for system in systems:
        if len(system) < 3:
            raise SystemExit(f"--swe {' '.join(system)}: give a label, a run folder and at least one verdict file")
        label, runs, *verdict_files = system
        episodes, unmatched = swe_runs(Path(runs), [Path(v) for v in verdict_files])
        print(f"\n== {label}: {len(episodes)} runs with a verdict from {runs}")
        with_tests = measure_swe(episodes, args.held_out, strip_tests=False)
        alone = measure_swe(episodes, args.held_out, strip_tests=True)
        print_swe(label, with_tests, unmatched, strip_tests=False)
        print_swe(label, alone, unmatched, strip_tests=True)
        print_trace_signals(label, with_tests)
        rows += [(label, name, with_tests[name], alone[name]) for name in PARTS]
    print_summary(rows)
    folder = args.who_and_when or FIXTURES / "who_and_when"
    print_attribution(measure_attribution(who_and_when(folder), args.held_out))
    print_modes("TRAIL", measure_modes(trail(args.trail or FIXTURES / "trail"), args.held_out, TRAIL_MODES),
                TRAIL_MODES)
    kept = FIXTURES / "mast"
    traces, *votes = args.mast or [kept / "ag2_traces.json", kept / "ag2_votes.json"]
    labelled, unread, label_sets = mast(traces, votes[0] if votes else None)
    print(f"\nMAST human-labelled: {len(labelled)} traces read; not read: "
          + ("; ".join(f"{system} {count} ({reason})" for (system, reason), count in sorted(unread.items())) or "none"))
    print(f"Weak evidence per trace: the {len(labelled) + sum(unread.values())} traces have only {label_sets} distinct "
          "sets of majority labels (mostly one per round, shared by its systems).")
    parts = measure_modes(labelled, args.held_out, MAST_MODES)
    print_modes("MAST (majority of three annotators)", parts, MAST_MODES)
    print_modes("MAST (majority of three annotators)", {"both parts": sum(parts.values(), Counter())}, MAST_MODES)
    print_mast_systems(labelled)


if __name__ == "__main__":
    main()
