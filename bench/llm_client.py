"""What the role client adds per call, side by side with the bare `openai` client against the same local server.

    .venv/bin/python bench/llm_client.py [--calls 300] [--rounds 5]

Calls per second, as the median of `--rounds` interleaved rounds (the machine
is shared, so one round alone is noise):
- floor: the bare `openai` client's `chat.completions.create` sending the very
  request `Agents.ask` sends (system message with the schema, response format);
- minimal: the bare client sending a one-message request without a schema;
- ours: `Agents.ask` on a cold cache (budget check, request, validation, cache
  write, concurrency slot, call record);
- replay: `Agents.ask` answered from the cache (no request at all).
The ratio is ours over the floor (goal ≥ 0.9).
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

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))

from taskforge.agents.client import Agents  # noqa: E402
from taskforge.agents.config import AgentsConfig  # noqa: E402
from llm_server import Canned, ChatServer  # noqa: E402


class Verdict(BaseModel):
    """The structured reply asked for."""

    label: str
    score: int


def _rate(calls: int, run: Callable[[int], object]) -> float:
    """Calls per second of `run(i)` over `calls` calls."""
    started = time.perf_counter()
    for i in range(calls):
        run(i)
    return calls / (time.perf_counter() - started)


def _ask(agents: Agents, tag: str) -> Callable[[int], object]:
    """One `Agents.ask` per index, each with its own user text."""
    return lambda i: agents.ask("builder", "Rate.", f"{tag} {i}", Verdict, purpose="bench", family="swe",
                                subject=str(i))


def main() -> None:
    """Run the interleaved rounds and print the medians and the ratio."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    reply = json.dumps({"label": "fine", "score": 3})
    rates: dict[str, list[float]] = {"floor": [], "minimal": [], "ours": [], "replay": []}
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
            rates["floor"].append(_rate(args.calls, same_request))
            rates["minimal"].append(_rate(args.calls, lambda i: bare.chat.completions.create(
                model="m", messages=[{"role": "user", "content": f"minimal {i}"}])))
            with Agents(config, Path(folder) / f"round-{round_}", "bench", "bench") as agents:
                rates["ours"].append(_rate(args.calls, _ask(agents, f"ours {round_}")))
            requests = len(server.requests)
            with Agents(config, Path(folder) / f"round-{round_}", "bench", "bench") as agents:
                rates["replay"].append(_rate(args.calls, _ask(agents, f"ours {round_}")))
            assert len(server.requests) == requests, "the replay sent requests"
        bare.close()
    median = {name: statistics.median(values) for name, values in rates.items()}
    print(f"{'calls':>6} {'rounds':>6} {'floor/s':>8} {'minimal/s':>10} {'ours/s':>7} {'replay/s':>9} "
          f"{'ours/floor':>11} {'ours/minimal':>13}")
    print(f"{args.calls:>6} {args.rounds:>6} {median['floor']:>8.0f} {median['minimal']:>10.0f} "
          f"{median['ours']:>7.0f} {median['replay']:>9.0f} {median['ours'] / median['floor']:>10.2f}x "
          f"{median['ours'] / median['minimal']:>12.2f}x")
    print("per round (floor, ours): " + ", ".join(f"{f:.0f}/{o:.0f}" for f, o in zip(rates["floor"], rates["ours"])))


if __name__ == "__main__":
    main()
