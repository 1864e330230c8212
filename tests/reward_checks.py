"""The reward contract every released RL row keeps, checked the same way for every family: its reference scores
1 however a model wraps it (a code fence, sentences around it, a JSON `{"answer": …}` for a text answer), and
each no-op scores 0."""

from __future__ import annotations

import json
from typing import Any

from taskforge.graders.reward import compute_score, family_of, reward_entry

FENCE_LANGUAGE = {"workflow": "json", "mle": "csv", "swe": "diff"}


def wrappings(answer: str, family: str) -> dict[str, str]:
    """A correct answer as models write it."""
    language = FENCE_LANGUAGE.get(family, "")
    fenced = f"```{language}\n{answer}\n```"
    wrapped = {"bare": answer, "fenced": fenced,
               "prose": f"I read everything twice before answering.\n\n{answer}\n\nTell me if you need more.",
               "fenced with prose": f"Here is the result of my work:\n\n{fenced}\n\nI double-checked every value."}
    if answer.startswith("Answer:"):
        value = answer.removeprefix("Answer:").strip()
        wrapped["json answer"] = f"My reply:\n```json\n{json.dumps({'answer': value})}\n```"
        wrapped["bold marker"] = f"After checking each document:\n\n**Answer:** {value}"
    return wrapped


def reward_scores(row: dict[str, Any]) -> tuple[dict[str, float], list[float]]:
    """The score of each wrapping of the row's reference, and of each of its no-ops."""
    info, truth = row["extra_info"], row["reward_model"]["ground_truth"]
    family = family_of(row["data_source"], info)
    entry = reward_entry(family)
    reference, grader = json.loads(truth), json.loads(info["grader"])
    answer = entry.reference_submission(reference, grader)
    wrapped = {name: compute_score(row["data_source"], text, truth, info)
               for name, text in wrappings(answer, family).items()}
    return wrapped, [compute_score(row["data_source"], noop, truth, info) for noop in entry.noop_submissions(grader)]


def assert_reward_contract(row: dict[str, Any]) -> None:
    """Reference 1 in every wrapping, every no-op 0."""
    wrapped, noops = reward_scores(row)
    assert wrapped == {name: 1.0 for name in wrapped}, (row["extra_info"]["task_id"], wrapped)
    assert noops and noops == [0.0] * len(noops), (row["extra_info"]["task_id"], noops)
