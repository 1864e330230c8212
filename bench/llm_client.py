"""What the role client adds per call, side by side with the bare `openai` call to the same local server.

    .venv/bin/python bench/llm_client.py [--calls 200]

Prints calls per second for: the bare client (the floor), `Agents.ask` on a
cold cache (validation, cache write, slot lock, record), and a replay from
the cache (no request at all).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import openai
from pydantic import BaseModel

from figures import emit

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))

from taskforge.agents.client import Agents  # noqa: E402
from taskforge.agents.config import AgentsConfig  # noqa: E402
from llm_server import Canned, ChatServer  # noqa: E402


class Verdict(BaseModel):
    """The structured reply asked for."""

    label: str
    score: int


def _rate(calls: int, run) -> float:
    """Calls per second of `run(i)` over `calls` calls."""
    started = time.perf_counter()
    for i in range(calls):
        run(i)
    return calls / (time.perf_counter() - started)


def main() -> None:
    """Run the three measurements and print them."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--calls", type=int, default=200)
    calls = parser.parse_args().calls
    reply = json.dumps({"label": "fine", "score": 3})
    with ChatServer(lambda body: Canned(content=reply)) as server, tempfile.TemporaryDirectory() as folder:
        bare = openai.OpenAI(base_url=server.url, api_key="bench", max_retries=0)
        floor = _rate(calls, lambda i: bare.chat.completions.create(
            model="m", messages=[{"role": "user", "content": f"bare {i}"}]))
        config = AgentsConfig.load({"OPENAI_BASE_URL": server.url, "OPENAI_API_KEY": "bench",
                                    "TASKFORGE_LLM_MODEL": "m"})

        def ask(i: int) -> None:
            agents.ask("builder", "Rate.", f"ours {i}", Verdict, purpose="bench", family="swe", subject=str(i))

        with Agents(config, Path(folder), "bench", "bench") as agents:
            cold = _rate(calls, ask)
        sent = len(server.requests)
        with Agents(config, Path(folder), "bench", "bench") as agents:
            replay = _rate(calls, ask)
        assert len(server.requests) == sent, "the replay sent requests"
    print(f"{'calls':>6} {'bare openai/s':>14} {'Agents.ask cold/s':>18} {'replay/s':>10} {'cold vs bare':>13}")
    print(f"{calls:>6} {floor:>14.0f} {cold:>18.0f} {replay:>10.0f} {cold / floor:>12.2f}x")
    emit("LLM client (bench/llm_client.py)", cold, floor, "calls/s", ">= 0.9x", "bare openai client")


if __name__ == "__main__":
    main()
