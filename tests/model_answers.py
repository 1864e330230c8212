"""What a careful model answers each LLM step with, read off the request as a real model would read it.

One answer function per reply schema, for `llm_server.RealModel`: the review
and judge answers accept with their reasoning first; the builder answers keep
to what the prompt asks (the phrases a question must state, the behaviour a
statement must describe without quoting, new rows with new keys continuing
after the table's last row, the phrases a description must state).
"""

from __future__ import annotations

import csv
import io
import re
from typing import Any

from llm_server import Answer, user_text

ANALYSIS = "I went through each point against the material shown; every one holds, as quoted above."


def _review(checks: tuple[str, ...]) -> Answer:
    """An accepting review with the given checks all true and one minor issue."""
    def answer(body: dict[str, Any]) -> dict[str, Any]:
        return {"analysis": ANALYSIS, **{c: True for c in checks},
                "issues": [{"severity": "minor", "problem": "The wording could be shorter."}], "verdict": "accept"}
    return answer


def _judgement(body: dict[str, Any]) -> dict[str, Any]:
    return {"analysis": ANALYSIS, "solvable": True, "same_capability": True, "reasons": []}


def _answer(body: dict[str, Any]) -> dict[str, Any]:
    return {"reasoning": "Reading the documents in order, I compare each item's date.", "answer": "Answer: A"}


def _statement(body: dict[str, Any]) -> dict[str, Any]:
    """An issue naming each checked call and its expected result in prose (never the test line itself)."""
    tests = user_text(body).split("# The tests added with the fix", 1)[-1]
    checks = re.findall(r"^\+\s*assert (\w+)\((.*?)\) == (.+)$", tests, re.M)
    expected = "; ".join(f"`{name}({args})` should give {value.strip()}" for name, args, value in checks)
    return {"title": "Wrong result in an edge case",
            "statement": f"Steps: call the function with the edge-case input. Observed: a wrong result. "
                         f"Expected: {expected or 'the documented behaviour'}."}


def _rewrite(body: dict[str, Any]) -> dict[str, Any]:
    """A question stating every phrase the prompt says to keep, and nothing it withholds."""
    shown = user_text(body)
    kept = re.search(r"# State each of these verbatim\n\n(.*?)(?:\n\n#|\Z)", shown, re.S)
    phrases = re.findall(r"^- “(.*)”$", kept.group(1), re.M) if kept else []
    return {"question": "Which studies would I need for the work on " + "; ".join(phrases) + "?"}


def _rows(body: dict[str, Any]) -> dict[str, Any]:
    """Two rows continuing the table after its last row: the first key column set past its largest value,
    the other columns copied from the first rows shown."""
    shown = user_text(body)
    table = re.search(r"```\n(.*?)\n```", shown, re.S).group(1)
    lines = [line for line in table.splitlines() if not line.startswith("[…")]
    rows = list(csv.DictReader(io.StringIO("\n".join(lines))))
    key = re.search(r"identified by its key \((.*?)\)", shown)
    column = key.group(1).split(", ")[0] if key else next(iter(rows[0]))
    values = [r[column] for r in rows]
    numbers = [int(v) for v in values if v.lstrip("-").isdigit()]
    start = max(numbers) + 1 if len(numbers) == len(values) else None
    return {"rows": [{**row, column: str(start) if start is not None else f"{row[column]}-new{k}"}
                     for k, row in enumerate(rows[:2])]}


def _description(body: dict[str, Any]) -> dict[str, Any]:
    """A description stating every phrase the prompt requires."""
    required = re.findall(r"`([^`]+)`", user_text(body).split("verbatim somewhere in the description:", 1)[-1])
    return {"markdown": "# Competition\n\nPredict the target for every test row.\n\n"
                        + "\n".join(f"- {phrase}" for phrase in required) + "\n"}


def _diagnosis(body: dict[str, Any]) -> dict[str, Any]:
    """The first mode the prompt lists, decided at the first assistant step the transcript shows."""
    system = body["messages"][0]["content"]
    mode = re.search(r"^- ([a-z_]+\.[a-z_]+):", system, re.M).group(1)
    step = int(re.search(r"^\[(\d+)\] assistant", user_text(body), re.M).group(1))
    return {"analysis": f"Step {step} is the first the failure rests on; later steps build on it.",
            "findings": [{"decisive_step": step, "failure_mode": mode, "evidence_steps": [step], "confidence": 0.6,
                          "explanation": f"step {step} shows it"}]}


ANSWERS: dict[str, Answer] = {
    "LongContextReview": _review(("answer_supported", "unambiguous", "answer_hidden")),
    "WorkflowReview": _review(("values_determined", "deliverables_specified", "answer_hidden")),
    "RewriteReview": _review(("same_question", "answer_hidden", "clear")),
    "DescriptionReview": _review(("consistent", "complete", "labels_hidden")),
    "StatementReview": _review(("behaviour_stated", "fix_hidden", "faithful")),
    "EvolutionJudgement": _judgement,
    "TaskAnswer": _answer,
    "ProblemStatement": _statement,
    "QuestionRewrite": _rewrite,
    "NewRows": _rows,
    "CompetitionDescription": _description,
    "LLMDiagnosisReply": lambda body: _diagnosis(body),
}
"""The answer to each reply schema."""
