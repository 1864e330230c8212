"""Readers of the multi-agent logs MAST annotated besides AG2's (tests/fixtures/diagnosis/mast, SOURCES.md there):
AppWorld, ChatDev, HyperAgent, Magentic-One, MetaGPT and OpenManus, each read from a real public trace into steps
with the agent that took them, the code or tool calls and their outputs where the log shows them, and the verdict
only where the log states one."""

from __future__ import annotations

import json

from conftest import REPO
from taskforge.diagnosis.readers import discover, read_traces
from taskforge.schemas import Episode, Quarantined

MAST = REPO / "tests" / "fixtures" / "diagnosis" / "mast"


def _one(name: str) -> Episode:
    (item,) = read_traces(discover([MAST / name]))
    assert isinstance(item, Episode), getattr(item, "reason", item)
    return item


def _answered(episode: Episode) -> dict[str, tuple]:
    """Each tool step's call id → (the calling step, the tool step)."""
    caller = {call.id: step for step in episode.steps for call in step.tool_calls}
    return {s.tool_call_id: (caller[s.tool_call_id], s) for s in episode.steps if s.tool_call_id in caller}


def test_appworld_supervisor_and_app_agents_run_code_and_the_evaluation_is_the_verdict():
    episode = _one("appworld-0.txt")
    assert episode.source_format == "appworld" and episode.task_id == "692c77d_1"
    assert episode.steps[0].role == "user" and episode.steps[0].content.startswith("Give a 5-star rating")
    turns = [s for s in episode.steps if s.role == "assistant"]
    assert [s.actor for s in turns[:3]] == ["Supervisor Agent", "Spotify Agent", "Spotify Agent"]
    assert all(len(s.tool_calls) == 1 and s.tool_calls[0].name == "python" for s in turns)
    assert "send_message(app_name='spotify'" in json.loads(turns[0].tool_calls[0].arguments)["code"]
    answered = _answered(episode)
    handed_back = next(t for c, t in answered.values() if c is turns[0])
    assert handed_back.content == "Please provide the access token to retrieve your playlists."
    failed = [(c, t) for c, t in answered.values() if t.is_error]
    assert [c.actor for c, _ in failed] == ["Supervisor Agent", "Spotify Agent"]
    assert failed[0][1].error == "TypeError: send_message() got an unexpected keyword argument 'access_token'"
    assert (episode.steps[2].role, episode.steps[2].content) == ("user", "Get my playlists"), "the supervisor's message"
    assert episode.outcome.graded and not episode.outcome.success and episode.outcome.score == 2 / 7
    assert "spotify.SongReview" in episode.outcome.detail


def test_chatdev_roles_speak_their_turns_code_updates_answer_them_and_test_reports_show_the_traceback():
    episode = _one("chatdev-15.txt")
    assert episode.source_format == "chatdev" and episode.task_id == "mmlu_6-20250326201225"
    assert episode.steps[0].content.startswith("The following are multiple choice questions")
    assert [s.actor for s in episode.steps if s.role == "assistant"][:4] == [
        "Chief Product Officer", "Chief Executive Officer", "Chief Technology Officer", "Chief Executive Officer"]
    assert not any(s.content.startswith("[ChatDev is a software company") for s in episode.steps), "system prompts"
    updates = list(_answered(episode).values())
    assert [(c.actor, c.tool_calls[0].arguments, t.content.split("\n")[0]) for c, t in updates] == [
        ("Programmer", '{"path": "main.py"}', "main.py updated.")] * 2
    reports = [s for s in episode.steps if s.role == "user" and s.is_error]
    assert len(reports) == 2 and reports[0].error.startswith("_tkinter.TclError: no display name")
    assert episode.steps[-1].content == "The software run successfully without errors." and not episode.outcome.graded


def test_hyperagent_planner_delegates_to_interns_whose_reports_answer_it_and_the_reference_patch_is_not_read():
    episode = _one("hyperagent-6.json")
    raw = json.loads((MAST / "hyperagent-6.json").read_text())
    assert episode.source_format == "hyperagent" and episode.family == "swe"
    assert episode.task_id == "scikit-learn__scikit-learn-25570" and not episode.outcome.graded
    question = episode.metadata["question"]
    assert question.startswith(raw["problem_statement"][0]) and episode.steps[0].content == question
    assert {s.actor for s in episode.steps if s.role == "assistant"} == {"Planner", "Navigator", "Editor", "Executor"}
    delegations = [(c.tool_calls[0].name, t.actor) for c, t in _answered(episode).values()]
    assert delegations == [("Codebase Navigator", "Navigator"), ("Codebase Editor", "Editor"), ("Executor", "Executor")]
    first_search = episode.steps[2]
    assert first_search.actor == "Navigator"
    assert json.loads(first_search.tool_calls[0].arguments)["code"].startswith("# Find the location of the Column")
    assert not any(raw["note"]["text"][0][:60] in s.content for s in episode.steps)
    assert raw["other_data"]["patch"] and "submission" not in episode.metadata


def test_magentic_one_surfers_act_and_observe_and_the_final_answer_is_the_orchestrators():
    episode = _one("magentic-one-17.txt")
    assert episode.source_format == "magentic_one" and not episode.outcome.graded
    assert episode.steps[0].role == "user" and episode.steps[0].content.startswith("How many at bats did the Yankee")
    assert not any("Installing build dependencies" in s.content or "!#!#" in s.content for s in episode.steps)
    actions = list(_answered(episode).values())
    assert [c.content for c, _ in actions][:2] == [
        "I typed 'New York Yankees 1977 most walks player' into the browser search bar.",
        "I clicked 'https://www.baseball-reference.com › teams › NYY'."]
    assert all(c.actor == "WebSurfer" and t.content.startswith("The web browser is open") for c, t in actions)
    assert episode.steps[-2].actor == "WebSurfer" and not episode.steps[-2].tool_calls, "its answer, no action"
    assert (episode.steps[-1].actor, episode.steps[-1].content) == ("MagenticOneOrchestrator", "FINAL ANSWER: 525")


def test_metagpt_run_records_and_communication_logs_give_each_role_its_turns():
    record, log = _one("metagpt-4.json"), _one("metagpt-16.txt")
    roles = ["SimpleCoder", "SimpleTester", "SimpleReviewer", "SimpleTester", "SimpleReviewer"]
    for episode in (record, log):
        assert episode.source_format == "metagpt" and not episode.outcome.graded
        assert [s.actor for s in episode.steps[1:]] == roles and not any(s.tool_calls for s in episode.steps)
    assert record.task_id == "metagpt-run-21"
    assert record.steps[0].content == "develop a program that detects palindromes in a text file"
    assert record.steps[1].content.startswith("```python\ndef detect_palindromes(file_path):")
    assert record.steps[3].content == "", "the reviewer's review is not in the log"
    assert log.steps[0].content.startswith("The following are multiple choice questions")
    assert log.steps[1].content.startswith("def find_answer():")
    assert log.steps[3].content.startswith("One critical comment on the test cases")


def test_openmanus_thoughts_call_tools_whose_results_answer_them():
    episode = _one("openmanus-18.txt")
    assert episode.source_format == "openmanus" and not episode.outcome.graded and "question" not in episode.metadata
    plan = episode.steps[0]
    assert plan.actor == "PlanningFlow" and "Determine Eliud Kipchoge's marathon pace" in plan.content
    answered = list(_answered(episode).values())
    calls = [c for s in episode.steps for c in s.tool_calls]
    assert len(answered) == len(calls) == 18 and all(c.actor == "Manus" for c, _ in answered)
    first_call, first_result = answered[0]
    assert json.loads(first_call.tool_calls[0].arguments) == {"action": "web_search",
                                                               "query": "Eliud Kipchoge marathon pace km/h"}
    assert first_result.content.startswith("Search results for 'Eliud Kipchoge marathon pace km/h'")
    failed = [t for _, t in answered if t.is_error]
    assert len(failed) == 2 and all("name 'time_hours' is not defined" in t.content for t in failed)
    assert episode.steps[-1].actor == "PlanningFlow" and episode.steps[-1].content.endswith("from Earth to the Moon.")


def test_a_log_of_a_known_system_without_its_task_is_quarantined_with_the_reason(tmp_path):
    log = (MAST / "chatdev-15.txt").read_text().replace("**task_prompt**", "**prompt**")
    (tmp_path / "chatdev.txt").write_text(log)
    (item,) = read_traces(discover([tmp_path / "chatdev.txt"]))
    assert isinstance(item, Quarantined) and item.source == "chatdev.txt"
    assert "ChatDev log without the task" in item.reason


def test_magentic_one_computer_terminal_answers_the_code_of_the_turn_before(tmp_path):
    log = (MAST / "magentic-one-17.txt").read_text()
    coded = log.replace("---------- MagenticOneOrchestrator ----------\nFINAL ANSWER: 525", (
        "---------- Assistant ----------\n```python\nprint(525 / 0)\n```\n"
        "---------- ComputerTerminal ----------\nTraceback (most recent call last):\n"
        "ZeroDivisionError: division by zero\n"
        "---------- MagenticOneOrchestrator ----------\nFINAL ANSWER: 525"))
    (tmp_path / "coded.txt").write_text(coded)
    (episode,) = read_traces(discover([tmp_path / "coded.txt"]))
    coder, terminal = episode.steps[-3], episode.steps[-2]
    assert coder.actor == "Assistant" and json.loads(coder.tool_calls[0].arguments) == {"code": "print(525 / 0)\n"}
    assert (terminal.role, terminal.actor) == ("tool", "ComputerTerminal") and terminal.is_error
    assert terminal.tool_call_id == coder.tool_calls[0].id
