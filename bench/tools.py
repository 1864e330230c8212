"""Cost of the solver's workspace tools beside the bare sandbox session doing the same work.

    .venv/bin/python bench/tools.py [--runs N] [--backend process|docker]

On a workflow task built from the shipped seeds, measures (median of N):
opening a workspace (staging the inputs and starting the session) beside
starting a bare session over the same folder; one `run` of `true` beside one
bare `exec`; one `write_file` + `read_file` beside one bare `put` + `get` (the
fetched copy removed, as the tool leaves none; 10 x N pairs, each a few ms);
a whole scripted attempt (inputs listed, deliverables written, submitted,
graded by the task's reward). The tools add the path checks, the bash
wrapper and the observation; the floor is the sandbox itself. Ours and the
floor take turns, call by call, so that load on a shared machine weighs on
both alike.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(Path(__file__).resolve().parent))

from figures import emit  # noqa: E402

from taskforge import sandbox  # noqa: E402
from taskforge.builders.base import BuildContext  # noqa: E402
from taskforge.builders.workflow import WorkflowBuilder  # noqa: E402
from taskforge.graders.task_reward import score_task  # noqa: E402
from taskforge.graders.workflow.deliverables import write_tree  # noqa: E402
from taskforge.schemas import PlanItem, Task  # noqa: E402
from taskforge.store.layout import SAMPLES_DIR  # noqa: E402
from taskforge.tools import task_tools  # noqa: E402


def median_s(action: Callable[[], object], runs: int) -> float:
    """The median wall seconds of `runs` calls (after one warm-up)."""
    action()
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        action()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def paired_medians(ours: Callable[[], object], floor: Callable[[], object], runs: int) -> tuple[float, float]:
    """The median wall seconds of `runs` calls of each, taking turns (each goes first every other time), after one
    warm-up of each."""
    ours(), floor()
    times: tuple[list[float], list[float]] = ([], [])
    for index in range(runs):
        for side in ((0, 1) if index % 2 == 0 else (1, 0)):
            started = time.perf_counter()
            (ours, floor)[side]()
            times[side].append(time.perf_counter() - started)
    return statistics.median(times[0]), statistics.median(times[1])


def workflow_task() -> Task:
    item = PlanItem(family="workflow", capability="verification", quota=1, gap_ids=["gap-w"], priority=1.0)
    context = BuildContext(cycle_id="bench", options={"source": str(SAMPLES_DIR / "workflow_seeds")})
    return next(iter(WorkflowBuilder().build(item, context)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--backend", choices=("process", "docker"), default="process")
    args = parser.parse_args()
    chosen = sandbox.get_sandbox(args.backend)
    sandbox.default_sandbox = lambda: chosen
    task = workflow_task()
    inputs = dict(task.payload["inputs"])

    def bare_open() -> None:
        with tempfile.TemporaryDirectory() as tmp:
            write_tree(tmp, inputs)
            with chosen.session(sandbox.Job(command=(), workspace=Path(tmp), network=False)) as session:
                session.exec(("true",))

    def ours_open() -> None:
        with task_tools(task) as tools:
            tools.call("run", {"command": "true"})

    with tempfile.TemporaryDirectory() as tmp, task_tools(task) as tools:
        write_tree(tmp, inputs)
        note = Path(tmp) / "note.txt"
        note.write_text("x" * 2000)
        fetched = Path(tmp) / "out"

        def bare_put_get() -> None:
            session.put(note, "note.txt")
            session.get("note.txt", fetched)
            (fetched / "note.txt").unlink()

        with chosen.session(sandbox.Job(command=(), workspace=Path(tmp), network=False)) as session:
            tools.call("run", {"command": "true"})
            rows = [
                ("workspace open + one command", *paired_medians(ours_open, bare_open, args.runs),
                 "a bare session over the same files, one exec"),
                ("one `run` of true", *paired_medians(lambda: tools.call("run", {"command": "true"}),
                                                      lambda: session.exec(("true",)), args.runs),
                 "one bare exec in a live session"),
                ("write_file + read_file (2 kB)",
                 *paired_medians(lambda: (tools.call("write_file", {"path": "note.txt", "content": "x" * 2000}),
                                          tools.call("read_file", {"path": "note.txt"})), bare_put_get, 10 * args.runs),
                 "one bare put + get, the fetched copy removed"),
            ]

    def attempt() -> float:
        with task_tools(task) as tools:
            tools.call("run", {"command": "ls inputs"})
            for path, text in task.reference["deliverables"].items():
                tools.call("write_file", {"path": path, "content": text})
            tools.call("submit", {})
            return score_task(task, tools.submission())

    whole = median_s(attempt, args.runs)
    print(f"workspace tools on {args.backend}, median of {args.runs}")
    print(f"{'what':40} {'ours s':>10} {'floor s':>10} {'ratio':>7}")
    for stage, ours, floor, note in rows:
        print(f"{stage:40} {ours:10.4f} {floor:10.4f} {ours / floor:7.2f}")
        emit(f"{stage} (bench/tools.py, {args.backend})", round(ours, 5), round(floor, 5), "s", "<= 1.5x", note)
    print(f"{'a scripted attempt, graded':40} {whole:10.4f}")
    emit(f"a scripted workflow attempt, graded (bench/tools.py, {args.backend})", round(whole, 5), None, "s",
         note="open, list, write the deliverables, submit, grade, close")


if __name__ == "__main__":
    main()
