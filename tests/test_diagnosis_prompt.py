"""The diagnoser's prompt and reply handling: definitions, expected answer, decisive step first, head-and-tail
steps, replies filtered by family and origin, an over-long transcript recorded (local protocol server)."""

from __future__ import annotations

import json

import pytest

from factories import episode, scripted
from llm_server import ChatServer
from taskforge.diagnosis.llm import (EPISODE_CHARS, LLMDiagnosisReply, LLMFinding, diagnose_with_llm, render_episode,
                                     system_prompt)
from taskforge.schemas import FailureMode
from test_agents import make_agents

M = FailureMode


@pytest.fixture
def server():
    """A fresh local Chat Completions server per test."""
    with ChatServer() as running:
        yield running


def _reply(*findings: dict, analysis: str = "Step 4 edits; the later tests fail.") -> str:
    return json.dumps({"analysis": analysis, "findings": list(findings)})


def _finding(mode: FailureMode, step: int, confidence: float = 0.7) -> dict:
    return {"decisive_step": step, "failure_mode": mode.value, "evidence_steps": [step], "confidence": confidence,
            "explanation": f"step {step} shows it"}


def test_every_mode_is_defined_and_the_prompt_shows_only_the_modes_an_episode_can_have():
    assert all(len(mode.definition) > 40 for mode in FailureMode)
    workflow = episode("ep-w", repeats=1, family="workflow")
    prompt = system_prompt(workflow)
    assert f"{M.LOST_OBJECTIVE.value}: {M.LOST_OBJECTIVE.definition}" in prompt
    assert "literature." not in prompt and "infrastructure." not in prompt, "other families' and infra modes left out"
    assert "decisive step" in prompt.split("Taxonomy:")[0]
    broken = episode("ep-i", origin="infrastructure", family="workflow")
    assert M.INFRA_TIMEOUT.value in system_prompt(broken)


def test_reasoning_comes_first_and_each_finding_names_its_decisive_step_first():
    assert list(LLMDiagnosisReply.model_json_schema()["properties"]) == ["analysis", "findings"]
    assert list(LLMFinding.model_json_schema()["properties"])[:2] == ["decisive_step", "failure_mode"]


def test_the_expected_answer_and_the_question_of_a_long_document_are_shown():
    documents = "\n".join(f"Document {k}: " + "filler text about unrelated events. " * 40 for k in range(12))
    question = "Question: in which year did the second survey of the reef start?"
    case = scripted(("user", f"{documents}\n\n{question}"), ("say", "The second survey started in 1998."),
                    family="long_context", metadata={"expected_answer": "2003"})
    text = render_episode(case).text
    assert question in text and "Expected answer: 2003" in text
    assert "characters cut]" in text


def test_a_long_pytest_log_keeps_its_failure_summary():
    log = "\n".join(f"tests/test_ops.py::test_case_{k} PASSED" for k in range(400))
    log += "\nFAILED tests/test_ops.py::test_power - AssertionError: 8 != 9\n===== 1 failed, 400 passed in 3.2s ====="
    case = scripted(("user", "Fix power()."), ("call", "bash", {"command": "pytest tests/test_ops.py"}, log),
                    ("say", "Done."), family="swe")
    text = render_episode(case).text
    assert "FAILED tests/test_ops.py::test_power" in text and "1 failed, 400 passed" in text
    assert len(text) < len(log)


def test_replies_are_filtered_by_family_and_origin_and_the_drops_recorded(server, tmp_path):
    case = episode("ep-f", repeats=1, family="workflow")
    server.queue(_reply(_finding(M.PREMATURE_DISCARD, 2), _finding(M.INFRA_TOOL_ERROR, 3),
                        _finding(M.LOST_OBJECTIVE, 2, 0.6), _finding(M.LOST_OBJECTIVE, 4, 0.8)))
    reply = diagnose_with_llm(make_agents(server, tmp_path), case)
    (kept,) = reply.value
    assert kept.failure_mode is M.LOST_OBJECTIVE and kept.decisive_step == 4 and kept.confidence == 0.8
    assert {d["why"] for d in kept.signals["dropped_findings"]} == {
        "not a mode of workflow episodes", "an infrastructure mode on a model failure", "named twice"}
    sent = server.requests[0]["messages"]
    listed = [line for line in sent[0]["content"].splitlines() if line.startswith("- ")]
    assert listed and not any(line.startswith("- literature.") for line in listed)
    assert "[2] assistant" in sent[1]["content"]


def test_an_over_long_transcript_is_shortened_and_recorded(server, tmp_path):
    turns = [("call", "bash", {"command": f"cat part_{k}.txt"}, "x" * 1500) for k in range(60)]
    case = scripted(("user", "Summarise the parts."), *turns, ("say", "Summary: nothing."), family="workflow")
    rendered = render_episode(case)
    assert rendered.steps_omitted > 0 and len(rendered.text) < EPISODE_CHARS + 10_000
    assert "steps omitted: the episode is too long for the window" in rendered.text
    server.queue(_reply(_finding(M.LOST_OBJECTIVE, case.steps[-1].index)))
    (found,) = diagnose_with_llm(make_agents(server, tmp_path), case).value
    assert found.signals["input"] == rendered.cut and found.signals["input"]["too_long_for_window"] is True
