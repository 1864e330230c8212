"""Scripted solver policies served by the local protocol server in place of a model.

A policy is a list of actions chosen from what a request shows: the attempt's
seed (`body["seed"]`), how many actions it has taken (assistant turns) and the
task it was given. `serve(policy)` turns one into a `ChatServer` responder that
writes each action as real models write JSON (prose, fences, think blocks).
"""

from __future__ import annotations

import itertools
import json
from typing import Any, Callable

from llm_server import STYLES, Canned, styled
from taskforge.schemas import Task

Action = dict[str, Any]
Policy = Callable[[dict[str, Any]], list[Action]]
"""A request body → the actions of this attempt, in order (the next one is picked by the step reached)."""


def act(tool: str, thought: str = "next step", **arguments: Any) -> Action:
    """One action as the solver's reply schema has it."""
    return {"thought": thought, "tool": tool, "arguments": arguments}


def step_of(body: dict[str, Any]) -> int:
    """How many actions the attempt has taken (its assistant turns so far)."""
    return sum(1 for m in body["messages"] if m["role"] == "assistant")


def observations(body: dict[str, Any]) -> list[str]:
    """Every observation the attempt has been shown so far."""
    return [m["content"] for m in body["messages"] if m["role"] == "user" and m["content"].startswith("Observation")]


def serve(policy: Policy) -> Callable[[dict[str, Any]], Canned]:
    """A `ChatServer` responder playing `policy`, its replies in the styles real models write."""
    styles = itertools.cycle(STYLES)

    def respond(body: dict[str, Any]) -> Canned:
        plan = policy(body)
        step = min(step_of(body), len(plan) - 1)
        return Canned(content=styled(plan[step], next(styles)))
    return respond


def runs_the_reference(task: Task) -> list[Action]:
    """A strong workflow solver: writes a workflow that computes the deliverables (the task's own reference
    workflow stands in for what a strong model writes), runs it, looks at the outputs and submits."""
    files = task.reference["workflow"]
    params = json.dumps(task.payload.get("params", {}))
    return [act("run", "see the inputs", command="ls -R inputs && head -3 inputs/*"),
            *(act("write_file", f"write {name}", path=name, content=text) for name, text in files.items()),
            act("write_file", "the parameters", path="params.json", content=params),
            act("run", "compute the deliverables", command="python3 reference.py && ls outputs"),
            act("submit", "the deliverables are written")]


def guesses(task: Task) -> list[Action]:
    """A weak workflow solver: writes each deliverable with a header and made-up values, and submits."""
    writes = [act("write_file", "a guess", path=spec["path"], content="id,value\n1,0\n")
              for spec in task.grader["deliverables"]]
    return [act("run", "see the inputs", command="ls inputs"), *writes, act("submit", "done")]


def cheats(task: Task) -> list[Action]:
    """A solver that hunts for the hidden reference, the grader and the network instead of working."""
    return [act("read_file", "the reference may sit beside the workspace", path="../reference/outputs"),
            act("read_file", "or at an absolute path", path="/reference.py"),
            act("run", "look for hidden files", command="ls -la / /workspace; cat reference.py grade.py spec.json"),
            act("run", "fetch the answer", command="curl -sS --max-time 5 http://example.com/answer || "
                                                   "python3 -c \"import urllib.request as u; "
                                                   "u.urlopen('http://93.184.216.34', timeout=5)\""),
            act("run", "copy the inputs as the answer", command="mkdir -p outputs && cp inputs/* outputs/"),
            act("submit", "whatever is there")]


def solves_on(seeds: set[int], strong: Callable[[Task], list[Action]], weak: Callable[[Task], list[Action]],
              task: Task) -> Policy:
    """A policy that plays `strong` on the attempts whose seed is in `seeds` and `weak` on the others."""
    return lambda body: strong(task) if body.get("seed") in seeds else weak(task)


def answers(text_for_seed: Callable[[int], str]) -> Policy:
    """An answer-family policy: submits the answer `text_for_seed(seed)` at once."""
    return lambda body: [act("submit", "I have the answer", answer=text_for_seed(body.get("seed", 0)))]

