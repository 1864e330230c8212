"""Benchmark of trace reading and rule-based diagnosis on a large synthetic trace set.

Writes N synthetic episodes (default 10,000) in four formats (OpenAI-messages
JSONL, native JSONL, SWE-agent `.traj`, mini-swe-agent v2 `.traj.json`) into a
temporary folder, then runs each stage in a fresh subprocess and prints, side by
side: episodes per second and peak resident memory for the bare cost (plain
`json.loads` of the same bytes), the same plus validating the episodes the
readers make (`Episode.model_validate` of their fields, prepared beforehand: the
least any reader that hands out validated episodes pays), streaming reads,
reading everything into a list, reading + diagnosing, the diagnoser alone, and
the flow's batch task (read → diagnose → Parquet, into a fresh folder each round).

The machine is shared: every stage runs `--repeat` times (rounds taking turns, so
load falls on all stages alike) and its best time is kept, both wall-clock and CPU
time of the stage's own process (`time.process_time`: what other work on the
machine changes least). The ratio printed as the figure is on CPU time.

    .venv/bin/python bench/diagnose.py [--episodes 10000] [--repeat 3] [--keep DIR] [--digest]

`--digest` instead prints one digest of every episode read from the N synthetic episodes and of its diagnoses in
full: the same before and after a change made for speed (the golden file below holds a smaller set per episode).

`--golden` instead writes `tests/golden/diagnoses.json`: every episode read from the public fixtures and from
a small synthetic set, with a digest of the episode and its diagnoses in full (`tests/test_diagnosis_golden.py`
compares them, so a change made for speed provably changes no result).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from figures import emit

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
PER_JSONL_FILE = 500
GOLDEN = REPO / "tests" / "golden" / "diagnoses.json"
GOLDEN_SYNTHETIC = 240
"""Synthetic episodes in the golden file (besides every public fixture): enough that every format and most rules
show up."""
PUBLIC_FIXTURES = (REPO / "tests" / "fixtures" / "diagnosis", REPO / "tests" / "fixtures" / "traces")
STAGES = ("baseline", "baseline-validated", "read", "read-list", "read-diagnose", "diagnose-only", "batch-task")

TOOLS = ("search_papers", "read_paper", "run_python", "bash")
OBSERVATIONS = ("0 results", "arXiv:2101.0{n:04d} Graphene aerogels\narXiv:1909.0{n:04d}", "12093.50",
                "Traceback (most recent call last):\n  File \"x.py\", line 3\nKeyError: 'yhat'",
                "ConvergenceWarning: lbfgs failed to converge", "first drift: S-{n} at 2021-03-02")


def _turns(rng: random.Random, n: int) -> list[tuple[str, dict, str]]:
    """A random agent trajectory: tool, arguments, observation per turn (some repeated, some failing)."""
    turns = []
    for k in range(rng.randint(3, 12)):
        if turns and rng.random() < 0.3:
            turns.append(turns[-1])
            continue
        tool = rng.choice(TOOLS)
        arguments = {"query": f"topic {rng.randint(0, 50)} measurement {k}"} if tool == "search_papers" else \
            {"command": f"python analysis_{rng.randint(0, 9)}.py --step {k}"}
        turns.append((tool, arguments, rng.choice(OBSERVATIONS).format(n=n % 10000)))
    return turns


def _openai(rng: random.Random, n: int) -> dict:
    """One OpenAI-messages JSONL record."""
    messages = [{"role": "system", "content": "You are a research agent."},
                {"role": "user", "content": f"Estimate the half-life of compound X-{n} from the assay logs."}]
    for k, (tool, arguments, observation) in enumerate(_turns(rng, n)):
        messages.append({"role": "assistant", "content": "Working on it.", "tool_calls": [
            {"id": f"c{k}", "type": "function", "function": {"name": tool, "arguments": json.dumps(arguments)}}]})
        messages.append({"role": "tool", "tool_call_id": f"c{k}", "content": observation})
    messages.append({"role": "assistant", "content": f"The half-life is {rng.randint(2, 90)} hours."})
    success = rng.random() < 0.3
    return {"id": f"oa-{n}", "task_id": f"task-{n % 500}", "family": rng.choice(["workflow", "literature", "mle"]),
            "score": 1.0 if success else 0.0, "success": success, "messages": messages}


def _native(rng: random.Random, n: int) -> dict:
    """One native Episode JSONL record."""
    record = _openai(rng, n)
    steps = []
    for index, message in enumerate(record["messages"]):
        calls = [{"id": c["id"], "name": c["function"]["name"], "arguments": c["function"]["arguments"]}
                 for c in message.get("tool_calls", [])]
        steps.append({"index": index, "segment": 0, "role": message["role"], "content": message.get("content") or "",
                      "tool_calls": calls, "tool_call_id": message.get("tool_call_id"), "is_error": False,
                      "error": None})
    return {"episode_id": f"nat-{n}", "task_id": record["task_id"], "family": record["family"],
            "source_format": "native", "source_file": "x", "steps": steps,
            "segments": [{"index": 0, "start_step": 0, "end_step": len(steps) - 1, "summary": None}],
            "outcome": {"score": record["score"], "success": record["success"], "failure_origin":
                        "none" if record["success"] else "model", "detail": None}}


def _swe_agent(rng: random.Random, n: int) -> dict:
    """One SWE-agent `.traj` document."""
    history = [{"role": "system", "content": "SETTING: You are an autonomous programmer."},
               {"role": "user", "content": f"ISSUE: bug {n} in the parser"}]
    trajectory = []
    for _, arguments, observation in _turns(rng, n):
        action = arguments.get("command") or f"search_dir \"{arguments['query']}\""
        history += [{"role": "assistant", "content": f"Let me run {action}", "action": action},
                    {"role": "user", "content": observation}]
        trajectory.append({"action": action, "observation": observation, "response": action, "thought": ""})
    submitted = rng.random() < 0.5
    return {"environment": "swe_main", "trajectory": trajectory, "history": history,
            "info": {"exit_status": "submitted" if submitted else "exit_cost",
                     "submission": "diff --git a/x b/x\n" if submitted else None}}


def _mini(rng: random.Random, n: int) -> dict:
    """One mini-swe-agent v2 `.traj.json` document."""
    messages = [{"role": "system", "content": "You are a helpful assistant that can interact with a computer."},
                {"role": "user", "content": f"Please solve this issue: bug {n}"}]
    for k, (_, arguments, observation) in enumerate(_turns(rng, n)):
        command = arguments.get("command") or f"grep -rn '{arguments['query']}' ."
        messages.append({"role": "assistant", "content": "", "tool_calls": [
            {"id": f"call_{k}", "type": "function",
             "function": {"name": "bash", "arguments": json.dumps({"command": command})}}],
            "extra": {"actions": [{"command": command, "tool_call_id": f"call_{k}"}]}})
        messages.append({"role": "tool", "tool_call_id": f"call_{k}", "content": observation,
                         "extra": {"returncode": 1 if "Traceback" in observation else 0}})
    messages.append({"role": "exit", "content": "LimitsExceeded", "extra": {"exit_status": "LimitsExceeded"}})
    return {"info": {"mini_version": "2.0.0", "exit_status": "LimitsExceeded", "submission": ""},
            "messages": messages, "trajectory_format": "mini-swe-agent-1.1"}


def write_traces(root: Path, episodes: int, seed: int = 0) -> None:
    """Write the synthetic trace set: 40 % OpenAI JSONL, 20 % native JSONL, 20 % SWE-agent, 20 % mini-swe-agent."""
    rng = random.Random(seed)
    counts = {"openai": episodes * 4 // 10, "native": episodes * 2 // 10, "swe": episodes * 2 // 10}
    counts["mini"] = episodes - sum(counts.values())
    for kind, make in (("openai", _openai), ("native", _native)):
        folder = root / kind
        folder.mkdir(parents=True)
        for start in range(0, counts[kind], PER_JSONL_FILE):
            with open(folder / f"part-{start:06d}.jsonl", "w") as handle:
                for n in range(start, min(start + PER_JSONL_FILE, counts[kind])):
                    handle.write(json.dumps(make(rng, n)) + "\n")
    for kind, make, suffix in (("swe", _swe_agent, ".traj"), ("mini", _mini, ".traj.json")):
        folder = root / kind
        folder.mkdir(parents=True)
        for n in range(counts[kind]):
            (folder / f"repo__issue-{n:06d}{suffix}").write_text(json.dumps(make(rng, n)))


def _json_loads_all(root: Path) -> int:
    """Parse every record of every file with the standard library: the bare floor."""
    count = 0
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        if path.suffix == ".jsonl":
            for line in path.read_bytes().splitlines():
                json.loads(line)
                count += 1
        else:
            json.loads(path.read_bytes())
            count += 1
    return count


def golden_records(root: Path) -> list[dict]:
    """Every episode of the public fixtures (the mini-swe-agent runs graded with their harness reports) and of a
    synthetic trace set written under `root`: its id, a digest of the episode as read, and its diagnoses."""
    from taskforge.diagnosis.diagnose import diagnose
    from taskforge.diagnosis.readers import discover, read_traces
    from taskforge.diagnosis.verdicts import graded_by, load_verdicts
    from taskforge.schemas import Episode

    write_traces(root, GOLDEN_SYNTHETIC)
    mini = PUBLIC_FIXTURES[0] / "mini-swe-agent-gemini-3-pro"
    verdicts = load_verdicts([mini / "report.json", mini / "logs"])
    records = []
    for item in read_traces(discover([*PUBLIC_FIXTURES, root])):
        if not isinstance(item, Episode):
            records.append({"quarantined": Path(item.source).name, "reason": item.reason})
            continue
        verdict = verdicts.match(item) if item.source_format == "mini_swe_agent" else None
        episode = graded_by(item, verdict) if verdict is not None else item
        digest = hashlib.sha256(episode.model_dump_json().encode()).hexdigest()[:16]
        records.append({"episode": episode.episode_id, "digest": digest,
                        "diagnoses": [d.model_dump(mode="json") for d in diagnose(episode)]})
    return records


def results_digest(root: Path) -> str:
    """A digest of everything read from `root`, in order (each episode or quarantine record as JSON), and of every
    episode's diagnoses."""
    from taskforge.diagnosis.diagnose import diagnose
    from taskforge.diagnosis.readers import discover, read_traces
    from taskforge.schemas import Episode

    digest = hashlib.sha256()
    for item in read_traces(discover([root])):
        digest.update(item.model_dump_json().encode())
        for diagnosis in diagnose(item) if isinstance(item, Episode) else []:
            digest.update(diagnosis.model_dump_json().encode())
    return digest.hexdigest()


def run_stage(stage: str, root: Path) -> dict:
    """Run one stage in this process; returns episodes, seconds and peak resident memory."""
    if stage == "baseline":
        started = _clock()
        count = _json_loads_all(root)
        return _result(count, started)
    from taskforge.diagnosis.diagnose import diagnose
    from taskforge.diagnosis.readers import discover, read_traces
    from taskforge.schemas import Episode

    if stage == "baseline-validated":
        fields = [e.model_dump() for e in read_traces(discover([root])) if isinstance(e, Episode)]
        started = _clock()
        _json_loads_all(root)
        for record in fields:
            Episode.model_validate(record)
        return _result(len(fields), started)

    if stage == "batch-task":
        from taskforge.flows.tasks import diagnose_batch

        sources = [(str(s.path), s.name) for s in discover([root])]
        out = Path(tempfile.mkdtemp(prefix="batch-", dir=root.parent))
        started = _clock()
        paths = diagnose_batch.fn(sources, str(out / "batch-out"), "bench", str(out / "llm"), "bench")
        finished = _clock()
        import pyarrow.parquet as pq

        rows = pq.ParquetFile(paths["episodes"]).metadata.num_rows
        shutil.rmtree(out, ignore_errors=True)
        return _result(rows, started, finished)
    started, count, diagnosing = _clock(), 0, (0.0, 0.0)
    if stage == "read-list":
        count = sum(1 for item in list(read_traces(discover([root]))) if isinstance(item, Episode))
        return _result(count, started)
    for item in read_traces(discover([root])):
        if not isinstance(item, Episode):
            continue
        count += 1
        if stage in ("read-diagnose", "diagnose-only"):
            mark = _clock()
            diagnose(item)
            done = _clock()
            diagnosing = (diagnosing[0] + done[0] - mark[0], diagnosing[1] + done[1] - mark[1])
    if stage == "diagnose-only":
        return _result(count, (0.0, 0.0), diagnosing)
    return _result(count, started)


def _clock() -> tuple[float, float]:
    """Wall-clock and CPU time of this process, now."""
    return time.perf_counter(), time.process_time()


def _result(episodes: int, started: tuple[float, float], finished: tuple[float, float] | None = None) -> dict:
    """A stage's figures (wall and CPU seconds since `started`) with the process's peak resident memory."""
    finished = finished or _clock()
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"episodes": episodes, "seconds": round(finished[0] - started[0], 3),
            "cpu_seconds": round(finished[1] - started[1], 3), "peak_mb": round(peak_mb, 1)}


def main() -> None:
    """Write the trace set, run every stage in its own process, print the figures side by side."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=10_000)
    parser.add_argument("--keep", type=Path, help="write the traces here and keep them")
    parser.add_argument("--repeat", type=int, default=3, help="rounds of every stage; the best time is kept")
    parser.add_argument("--digest", action="store_true", help="print a digest of the episodes read and their "
                        "diagnoses, and stop")
    parser.add_argument("--golden", action="store_true", help=f"write {GOLDEN.relative_to(REPO)} and stop")
    parser.add_argument("--stage", choices=STAGES, help=argparse.SUPPRESS)
    parser.add_argument("--root", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.stage:
        print(json.dumps(run_stage(args.stage, args.root)))
        return
    if args.digest:
        with tempfile.TemporaryDirectory() as folder:
            write_traces(Path(folder) / "traces", args.episodes)
            print(f"{args.episodes} episodes: digest {results_digest(Path(folder) / 'traces')}")
        return
    if args.golden:
        with tempfile.TemporaryDirectory() as folder:
            GOLDEN.write_text(json.dumps(golden_records(Path(folder) / "traces"), indent=1, sort_keys=True) + "\n")
        print(f"wrote {GOLDEN}")
        return
    workdir = args.keep or Path(tempfile.mkdtemp(prefix="taskforge-bench-"))
    root = workdir / "traces"
    started = time.perf_counter()
    write_traces(root, args.episodes)
    size = sum(p.stat().st_size for p in root.rglob("*") if p.is_file()) / 2**20
    files = sum(1 for p in root.rglob("*") if p.is_file())
    print(f"wrote {args.episodes} episodes in {files} files ({size:.0f} MiB) in {time.perf_counter() - started:.1f} s")
    print(f"{'stage':<34}{'episodes':>9}{'wall s':>9}{'ep/s':>12}{'CPU s':>9}{'ep/CPU s':>12}{'peak RSS MiB':>14}")
    labels = {"baseline": "bare json.loads (same bytes)", "baseline-validated": "json.loads + Episode validation",
              "read": "read (streaming)", "read-list": "read into one list (not streamed)",
              "read-diagnose": "read + diagnose (streaming)", "diagnose-only": "diagnose alone (rules)",
              "batch-task": "batch task: read→diagnose→Parquet"}
    best: dict[str, dict] = {}
    try:
        for _ in range(args.repeat):
            for stage in STAGES:
                out = subprocess.run([sys.executable, __file__, "--stage", stage, "--root", str(root)],
                                     check=True, capture_output=True, text=True, cwd=REPO)
                result = json.loads(out.stdout.strip().splitlines()[-1])
                kept = best.setdefault(stage, result)
                for clock in ("seconds", "cpu_seconds"):
                    kept[clock] = min(kept[clock], result[clock])
                kept["peak_mb"] = max(kept["peak_mb"], result["peak_mb"])
        wall = {stage: r["episodes"] / r["seconds"] if r["seconds"] else float("inf") for stage, r in best.items()}
        cpu = {stage: r["episodes"] / r["cpu_seconds"] if r["cpu_seconds"] else float("inf")
               for stage, r in best.items()}
        for stage in STAGES:
            result = best[stage]
            print(f"{labels[stage]:<34}{result['episodes']:>9}{result['seconds']:>9.2f}{wall[stage]:>12.0f}"
                  f"{result['cpu_seconds']:>9.2f}{cpu[stage]:>12.0f}{result['peak_mb']:>14.0f}")
        for name, rates in (("CPU time", cpu), ("wall-clock", wall)):
            ours = rates["read-diagnose"]
            print(f"{name}: ours (read + diagnose) {ours:,.0f} ep/s, floor (bare json.loads) "
                  f"{rates['baseline']:,.0f} ep/s, ratio {ours / rates['baseline']:.2f}x (goal >= 0.5x); against "
                  f"json.loads + validation {rates['baseline-validated']:,.0f} ep/s: "
                  f"{ours / rates['baseline-validated']:.2f}x; best of {args.repeat} rounds")
    finally:
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)
    emit("diagnosis read + diagnose (bench/diagnose.py)", cpu["read-diagnose"], cpu["baseline"], "ep/s",
         ">= 0.5x", "json.loads of the same bytes; per CPU second of each stage's process")

if __name__ == "__main__":
    main()
