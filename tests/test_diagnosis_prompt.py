"""The diagnoser's prompt and reply handling: definitions, expected answer, the harness's failing tests, decisive
step first, replies cross-checked and repaired, filtered by family and origin, a transcript too long for the
window sent as its view (head and tail of each step) and recorded (local protocol server)."""

from __future__ import annotations

import json

import pytest

from factories import episode, scripted
from llm_server import ChatServer
from taskforge.diagnosis.llm import VIEW, LLMDiagnosisReply, LLMFinding, diagnose_with_llm, render_episode, system_prompt
from taskforge.schemas import FailureMode, HarnessTests
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


def test_the_expected_answer_and_the_question_of_a_long_document_are_shown_and_kept_in_the_view():
    documents = "\n".join(f"Document {k}: " + "filler text about unrelated events. " * 40 for k in range(12))
    question = "Question: in which year did the second survey of the reef start?"
    case = scripted(("user", f"{documents}\n\n{question}"), ("say", "The second survey started in 1998."),
                    family="long_context", metadata={"expected_answer": "2003"})
    fit = render_episode(case)
    assert question in fit.full and "Expected answer: 2003" in fit.full
    view = fit.cut(1500)
    assert question in view and "Expected answer: 2003" in view and "Final answer (step 2)" in view
    assert "characters cut" in view and len(view) < len(fit.full) / 2


def test_a_long_pytest_log_keeps_its_failure_summary_in_the_view():
    log = "\n".join(f"tests/test_ops.py::test_case_{k} PASSED" for k in range(400))
    log += "\nFAILED tests/test_ops.py::test_power - AssertionError: 8 != 9\n===== 1 failed, 400 passed in 3.2s ====="
    case = scripted(("user", "Fix power()."), ("call", "bash", {"command": "pytest tests/test_ops.py"}, log),
                    ("say", "Done."), family="swe")
    view = render_episode(case).cut(1200)
    assert "FAILED tests/test_ops.py::test_power" in view and "1 failed, 400 passed" in view
    assert len(view) < len(log)


def test_the_harness_failing_tests_head_the_transcript():
    case = scripted(("user", "Fix power()."), ("call", "bash", {"command": "sed -i s/a/b/ ops.py"}, ""),
                    ("say", "Done."), family="swe")
    case = case.model_copy(update={"outcome": case.outcome.model_copy(update={"tests": HarnessTests(
        fail_to_pass_failed=["tests/test_ops.py::test_power"], fail_to_pass_passed=["tests/test_ops.py::test_neg"],
        pass_to_pass_failed=[f"tests/test_ops.py::test_{k}" for k in range(12)])})})
    head = render_episode(case).full.split("Steps:")[0]
    assert "Failing after the patch, 1 of 2 tests the issue asks to pass (FAIL_TO_PASS): tests/test_ops.py::test_power" \
        in head
    assert "12 of 12 tests that passed before the patch (PASS_TO_PASS)" in head and "and 2 more" in head


def test_replies_are_cross_checked_and_repaired_then_filtered_by_family_and_origin(server, tmp_path):
    case = episode("ep-f", repeats=1, family="workflow")
    late = {**_finding(M.NO_VERIFICATION, 4), "evidence_steps": [2]}
    server.queue(_reply(_finding(M.LOST_OBJECTIVE, 2, 0.6), _finding(M.LOST_OBJECTIVE, 4, 0.8), late),
                 _reply(_finding(M.PREMATURE_DISCARD, 2), _finding(M.INFRA_TOOL_ERROR, 3),
                        _finding(M.LOST_OBJECTIVE, 4, 0.8)))
    reply = diagnose_with_llm(make_agents(server, tmp_path), case)
    repair = server.requests[1]["messages"][-1]["content"]
    assert "research.lost_objective named more than once" in repair
    assert "the decisive step of research.no_verification comes after every step given as its evidence" in repair
    (kept,) = reply.value
    assert kept.failure_mode is M.LOST_OBJECTIVE and kept.decisive_step == 4 and kept.confidence == 0.8
    assert {d["why"] for d in kept.signals["dropped_findings"]} == {
        "not a mode of workflow episodes", "an infrastructure mode on a model failure"}
    assert reply.call.repairs == 1
    sent = server.requests[0]["messages"]
    listed = [line for line in sent[0]["content"].splitlines() if line.startswith("- ")]
    assert listed and not any(line.startswith("- literature.") for line in listed)
    assert "[2] assistant" in sent[1]["content"]
    with pytest.raises(ValueError, match="write the analysis"):
        LLMDiagnosisReply.model_validate({"analysis": " ", "findings": [_finding(M.LOST_OBJECTIVE, 2)]})


def test_a_transcript_too_long_for_the_window_is_sent_as_its_view_and_recorded(server, tmp_path):
    turns = [("call", "bash", {"command": f"cat part_{k}.txt"}, f"part {k}: " + "x" * 1500) for k in range(60)]
    case = scripted(("user", "Summarise the parts."), *turns, ("say", "Summary: nothing."), family="workflow")
    window = {"TASKFORGE_DIAGNOSER_MAX_CONTEXT_TOKENS": "12000", "TASKFORGE_DIAGNOSER_MAX_TOKENS": "512"}
    server.queue(_reply(_finding(M.LOST_OBJECTIVE, case.steps[-1].index)))
    agents = make_agents(server, tmp_path / "small", **window)
    reply = diagnose_with_llm(agents, case)
    (found,) = reply.value
    assert found.signals["input"] == {"view": VIEW, "too_long_for_window": True} and reply.call.view == VIEW
    sent = server.requests[-1]["messages"][1]["content"]
    assert "characters cut" in sent and "[122] assistant" in sent and "Summary: nothing." in sent
    assert all(f"part {k}: " in sent for k in range(60)), "every step keeps its head"

    tiny = make_agents(server, tmp_path / "tiny", TASKFORGE_DIAGNOSER_MAX_CONTEXT_TOKENS="2500",
                       TASKFORGE_DIAGNOSER_MAX_TOKENS="512")
    refused = diagnose_with_llm(tiny, case)
    assert not refused.ok and refused.call.status == "too_long", "nothing fits: recorded, never sent"
