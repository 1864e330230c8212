"""Reachability check: the gold papers of a literature task can be reached through the task's own tools.

The reference half that needs the environment: the task's environment is
rebuilt from its collection snapshot, and the reference tool path is replayed
in it. The task is rejected when a gold paper is not in the index, when no
step of the path surfaces a gold paper or returns a key passage as recorded,
or when the path could not have been followed by a solver (a search using
words the prompt does not contain, a read of a paper id nothing showed).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator

from taskforge.graders.literature.bm25 import Analyzer
from taskforge.graders.literature.environment import ENVIRONMENT_KIND, environment_for
from taskforge.graders.literature.papers import mentions
from taskforge.schemas import Task, ValidationResult
from taskforge.schemas.literature import LiteratureReference


def _strings(value: Any) -> Iterator[str]:
    """Every string inside a JSON value."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


class ReachabilityCheck:
    """Replays the reference tool path of a literature task in its environment (snapshots under `data_dir`)."""

    name = "reachability"

    def __init__(self, data_dir: Path | None = None):
        self.data_dir = data_dir

    def applies_to(self, task: Task) -> bool:
        return task.environment.get("kind") == ENVIRONMENT_KIND

    def run(self, task: Task) -> ValidationResult:
        env = environment_for(task.environment, self.data_dir)
        visible = "\n".join(m.content for m in task.prompt)
        prompt_terms = set(Analyzer().terms(visible))
        reference = LiteratureReference.of(task)
        gold = reference.gold_ids
        problems = [f"gold paper {pid} is not in the index" for pid in gold if pid not in env.collection.by_id]
        seen_text, returned = visible, set()
        for step, call in enumerate(reference.tool_path, start=1):
            args = call.arguments
            if call.tool == "search":
                unseen = sorted(set(Analyzer().terms(args["query"])) - prompt_terms)
                if unseen:
                    problems.append(f"step {step}: the search uses words the prompt does not contain "
                                    f"({', '.join(unseen)})")
            elif not mentions(seen_text, args["paper_id"]):
                problems.append(f"step {step}: reads {args['paper_id']}, which neither the prompt nor an earlier "
                                f"result shows")
            output = env.call(call.tool, args)
            seen_text += "\n" + output
            returned.update(_strings(json.loads(output)))
        problems += [f"no step of the reference path reaches gold paper {pid}" for pid in gold
                     if pid in env.collection.by_id and pid not in returned]
        problems += [f"key passage {p.paper_id} {p.passage} is not returned by the tools as recorded"
                     for p in reference.key_passages if p.text not in returned]
        return ValidationResult(check=self.name, passed=not problems, reason="; ".join(problems) or None,
                                detail={"problems": problems, "steps": len(reference.tool_path),
                                        "collection_version": env.collection.version})
