"""What the role client adds per call, side by side with the bare `openai` client against the same local server.

    .venv/bin/python bench/llm_client.py [--calls 300] [--rounds 5]

Calls per second, the kinds taking turns in blocks of 20 calls (the machine is
shared: whatever load comes and goes falls on every kind alike), as the median
of `--rounds` rounds; ours includes writing its cache entries to disk at the
end of each of its blocks:
- floor: the bare `openai` client's `chat.completions.create` sending the very
  request `Agents.ask` sends (system message with the schema, response format);
- minimal: the bare client sending a one-message request without a schema;
- ours: `Agents.ask` on a cold cache (budget check, request, validation, cache
  write, concurrency slot, call record);
- replay: `Agents.ask` answered from the cache (no request at all).
The ratios are the medians, over rounds, of ours over the floor and over the
minimal request within one round (goal ≥ 0.9); CPU milliseconds per call (all
threads of the process) are printed beside them, less at the mercy of the
machine's load than the wall time.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

import openai
from pydantic import BaseModel

from figures import emit

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))

from taskforge.agents.client import Agents  # noqa: E402
from taskforge.agents.config import AgentsConfig  # noqa: E402
from llm_server import Canned, ChatServer  # noqa: E402


BLOCK = 10
"""Calls of one kind in a row before the next kind's turn."""


class Verdict(BaseModel):
    """The structured reply asked for."""

    label: str
    score: int


def _interleaved(calls: int, kinds: dict[str, Callable[[int], object]],
                 settle: dict[str, Callable[[], object]] | None = None) -> dict[str, tuple[float, float]]:
    """Calls per second and CPU seconds per call (every thread of this process: client, writer, server) of
    each kind, the kinds taking turns in blocks of `BLOCK`; a kind's `settle` runs at the end of each of its
    blocks and counts in its time (ours writes the block's cache entries to disk there, so no work of ours
    is left to run during another kind's calls)."""
    wall, cpu = dict.fromkeys(kinds, 0.0), dict.fromkeys(kinds, 0.0)
    for start in range(0, calls, BLOCK):
        for name, run in kinds.items():
            began, began_cpu = time.perf_counter(), time.process_time()
            for i in range(start, min(start + BLOCK, calls)):
                run(i)
            if settle and name in settle:
                settle[name]()
            wall[name] += time.perf_counter() - began
            cpu[name] += time.process_time() - began_cpu
    return {name: (calls / wall[name], cpu[name] / calls) for name in kinds}


def _ask(agents: Agents, tag: str) -> Callable[[int], object]:
    """One `Agents.ask` per index, each with its own user text."""
    return lambda i: agents.ask("builder", "Rate.", f"{tag} {i}", Verdict, purpose="bench", family="swe",
                                subject=str(i))


def main() -> None:
    """Run the interleaved rounds and print the medians and the ratio."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=9)
    args = parser.parse_args()
    reply = json.dumps({"label": "fine", "score": 3})
    rounds: dict[str, list[float]] = {"floor": [], "minimal": [], "ours": [], "replay": []}
    cpu_per_call: dict[str, list[float]] = {name: [] for name in rounds}
    with ChatServer(lambda body: Canned(content=reply)) as server, tempfile.TemporaryDirectory() as folder:
        config = AgentsConfig.load({"OPENAI_BASE_URL": server.url, "OPENAI_API_KEY": "bench",
                                    "TASKFORGE_LLM_MODEL": "m", "TASKFORGE_REVIEWER_MODEL": "r",
                                    "TASKFORGE_JUDGE_MODEL": "j"})
        with Agents(config, Path(folder) / "probe", "bench", "bench") as agents:
            _ask(agents, "probe")(0)
        sent = server.requests[-1]
        bare = openai.OpenAI(base_url=server.url, api_key="bench", max_retries=0)

        def same_request(i: int) -> object:
            messages = [sent["messages"][0], {"role": "user", "content": f"bare {i}"}]
            return bare.chat.completions.create(**{**sent, "messages": messages})

        for round_ in range(args.rounds):
            with Agents(config, Path(folder) / f"round-{round_}", "bench", "bench") as cold:
                rates = _interleaved(args.calls, {
                    "floor": same_request,
                    "minimal": lambda i: bare.chat.completions.create(
                        model="m", messages=[{"role": "user", "content": f"minimal {i}"}]),
                    "ours": _ask(cold, f"ours {round_}")}, settle={"ours": cold.cache.flush})
            requests = len(server.requests)
            with Agents(config, Path(folder) / f"round-{round_}", "bench", "bench") as warm:
                rates |= _interleaved(args.calls, {"replay": _ask(warm, f"ours {round_}")})
            assert len(server.requests) == requests, "the replay sent requests"
            for name, (rate, cpu) in rates.items():
                rounds[name].append(rate)
                cpu_per_call[name].append(cpu)
        bare.close()
    median = {name: statistics.median(values) for name, values in rounds.items()}
    cpu = {name: statistics.median(values) * 1e3 for name, values in cpu_per_call.items()}
    ratios = [o / f for o, f in zip(rounds["ours"], rounds["floor"])]
    print(f"{'calls':>6} {'rounds':>6} {'floor/s':>8} {'minimal/s':>10} {'ours/s':>7} {'replay/s':>9} "
          f"{'ours/floor':>11} {'ours/minimal':>13}   cpu ms/call floor, minimal, ours")
    print(f"{args.calls:>6} {args.rounds:>6} {median['floor']:>8.0f} {median['minimal']:>10.0f} "
          f"{median['ours']:>7.0f} {median['replay']:>9.0f} {statistics.median(ratios):>10.2f}x "
          f"{statistics.median(o / m for o, m in zip(rounds['ours'], rounds['minimal'])):>12.2f}x"
          f"   {cpu['floor']:.2f}, {cpu['minimal']:.2f}, {cpu['ours']:.2f}")
    print(f"ours/floor per round (same load within a round): min {min(ratios):.2f}x, max {max(ratios):.2f}x")
    emit("LLM client (bench/llm_client.py)", median["ours"], median["floor"], "calls/s", ">= 0.9x",
         "bare openai client, same request")
    emit("LLM client vs a minimal request", median["ours"], median["minimal"], "calls/s", ">= 0.9x",
         "bare openai client, minimal request")


if __name__ == "__main__":
    main()
