"""Diagnosis on real public runs (tests/fixtures/diagnosis, see SOURCES.md there): outside verdicts, readers,
and each defect the old rules had on them.

Resolved runs are relabelled as failed where a test asks what a rule would say: a rule that fires on a run the
SWE-bench harness resolved points at nothing wrong.
"""

from __future__ import annotations

import csv
import json
import zipfile

import pytest

from conftest import REPO, SHARED
from taskforge.diagnosis.diagnose import attribution, diagnose, rule_findings
from taskforge.diagnosis.readers import discover, read_traces
from taskforge.diagnosis.readers.base import CUT, SourceFile, json_head
from taskforge.diagnosis.rules import (FINDING, broke_passing_tests, dismissed_failing_test, ended_on_clean_run,
                                       format_errors, ignored_warning_sign, issue_tests_still_fail, no_verification,
                                       patch_adds_unrelated_files, plan_abandoned, repeated_actions, rules_for,
                                       task_misstated, unsupported_answer)
from taskforge.diagnosis.signals import (WARNING_SIGN, calls, evidence_text, fact_origin, final_answer,
                                         first_executed_turn, near_identical_groups, own_plan, plan_turns)
from taskforge.diagnosis.verdicts import graded_by, load_verdicts
from taskforge.schemas import Episode, FailureMode, Quarantined

PUBLIC = REPO / "tests" / "fixtures" / "diagnosis"
MINI = PUBLIC / "mini-swe-agent-gemini-3-pro"
WHO_AND_WHEN = PUBLIC / "who_and_when"
TRAIL = PUBLIC / "trail"
MAST = PUBLIC / "mast"
RESOLVED = {"pytest-dev__pytest-5631", "django__django-11163", "django__django-15277", "pydata__xarray-4629",
            "django__django-14349"}
FAILED = {"django__django-15957", "sympy__sympy-20916", "astropy__astropy-7606", "django__django-11276",
          "psf__requests-2317"}
CONFIDENT = 0.6


def _read(paths):
    items = list(read_traces(discover(paths)))
    return [i for i in items if isinstance(i, Episode)], [i for i in items if isinstance(i, Quarantined)]


@pytest.fixture(scope="module")
def runs() -> dict[str, Episode]:
    """The mini-swe-agent runs graded by the sb-cli report, by instance id (the trace and the verdict alone)."""
    episodes, quarantined = _read([MINI / "trajs"])
    assert quarantined == []
    verdicts = load_verdicts([MINI / "report.json"])
    return {e.task_id: graded_by(e, verdicts.match(e)) for e in episodes}


@pytest.fixture(scope="module")
def tested(runs) -> dict[str, Episode]:
    """The same runs graded by the sb-cli report and the harness's per-instance reports: with per-test results."""
    verdicts = load_verdicts([MINI / "report.json", MINI / "logs"])
    return {instance: graded_by(episode, verdicts.match(episode)) for instance, episode in runs.items()}


def relabelled(episode: Episode) -> Episode:
    """A resolved run presented as a failure."""
    return episode.model_copy(update={"outcome": episode.outcome.model_copy(
        update={"success": False, "score": 0.0, "failure_origin": "model"})})


def test_report_verdicts_grade_runs_that_carry_none(runs):
    assert set(runs) == RESOLVED | FAILED
    episodes, _ = _read([MINI / "trajs"])
    assert all(not e.outcome.graded for e in episodes), "mini-swe-agent runs carry no verdict of their own"
    assert {i for i, e in runs.items() if e.outcome.success} == RESOLVED
    assert all(e.outcome.graded and e.outcome.failure_origin == "model" for i, e in runs.items() if i in FAILED)
    assert "verdict from report.json: not resolved" in runs["sympy__sympy-20916"].outcome.detail


def test_per_instance_reports_and_generic_files_give_the_same_verdicts(tmp_path):
    from_report = load_verdicts([MINI / "report.json"]).by_key
    per_instance = load_verdicts([MINI / "logs"])
    assert per_instance.problems == []
    assert {k: v.resolved for k, v in per_instance.by_key.items()} == {k: from_report[k].resolved
                                                                        for k in RESOLVED | FAILED}
    (tmp_path / "v.jsonl").write_text("".join(json.dumps({"instance_id": k, "resolved": v.resolved}) + "\n"
                                              for k, v in per_instance.by_key.items()))
    with open(tmp_path / "v.csv", "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["episode_id", "score"])
        writer.writerows([k, 1.0 if v.resolved else 0.0] for k, v in per_instance.by_key.items())
    for name in ("v.jsonl", "v.csv"):
        loaded = load_verdicts([tmp_path / name])
        assert {k: v.resolved for k, v in loaded.by_key.items()} == {k: v.resolved for k, v in per_instance.by_key.items()}
    (tmp_path / "conflict.jsonl").write_text(json.dumps({"instance_id": "sympy__sympy-20916", "resolved": True}) + "\n")
    (tmp_path / "broken.json").write_text('{"resolved_ids": [')
    mixed = load_verdicts([MINI / "report.json", tmp_path / "conflict.jsonl", tmp_path / "broken.json"])
    assert mixed.by_key["sympy__sympy-20916"].resolved is False, "the first verdict stands"
    reasons = {q.source: q.reason for q in mixed.problems}
    assert "conflicting verdict" in reasons["conflict.jsonl#sympy__sympy-20916"]
    assert "broken.json" in reasons and all(q.stage == "verdicts" for q in mixed.problems)


@pytest.mark.usefixtures("prefect_server")
def test_cli_diagnoses_the_failed_runs_and_none_of_the_resolved(capsys, data_dir, tmp_path):
    from taskforge.flows.cli import main
    from taskforge.store.catalog import Catalog

    assert main(["diagnose", str(MINI / "trajs"), "--verdicts", str(MINI / "report.json"),
                 "--data-dir", str(data_dir), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["episodes"] == 10 and summary["failed_episodes"] == 5 and summary["ungraded_episodes"] == 0
    assert {d["task_id"] for d in summary["diagnoses"]} == FAILED
    assert summary["verdicts"]["matched"] == 10 and summary["verdicts"]["unmatched_verdicts"] == 490
    with Catalog(data_dir / "catalog.duckdb", read_only=True) as catalog:
        leftovers = catalog.query("SELECT count(*) AS n FROM quarantine WHERE stage = 'verdicts'")
    assert leftovers == [{"n": 490}], "verdict ids no run matched are recorded"

    assert main(["diagnose", str(MINI / "trajs"), "--data-dir", str(data_dir / "no-verdicts"), "--json"]) == 0
    ungraded = json.loads(capsys.readouterr().out)
    assert ungraded["ungraded_episodes"] == 10 and ungraded["diagnoses"] == []


def test_harness_notices_are_never_warning_signs(runs):
    pip = runs["pytest-dev__pytest-5631"]
    notice = next(s for s in pip.steps if s.role == "tool" and "Running pip as the 'root' user" in s.content)
    assert WARNING_SIGN.search(notice.content) is None or WARNING_SIGN.search(evidence_text(notice.content)) is None
    too_long = runs["django__django-11163"]
    assert any("The output of your last command was too long" in s.content for s in too_long.steps)
    for instance in RESOLVED:
        assert ignored_warning_sign(relabelled(runs[instance])) is None, instance
    assert WARNING_SIGN.search(evidence_text("No divide by zero warnings!\nresult: 3")) is None
    assert WARNING_SIGN.search(evidence_text("RuntimeWarning: divide by zero encountered")) is not None


def test_refused_turns_ran_nothing(runs):
    episode = runs["django__django-15277"]
    refused = [s for s in episode.steps if s.is_error and (s.error or "").startswith("format error")]
    assert any(s.error == "format error: found 3 actions" for s in refused)
    for step in refused:
        turn = episode.steps[step.index - 1]
        assert turn.role == "assistant" and turn.tool_calls == [] and "```" in turn.content


def test_cat_patch_is_not_a_change_and_the_submit_command_is_not_a_run(runs):
    episode = runs["django__django-14349"]
    shown = [c for c in calls(episode) if "cat patch" in c.text]
    assert shown and not any(c.is_change for c in shown)
    submits = [c for c in calls(episode) if "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT" in c.text]
    assert submits and not any(c.is_change or c.is_check for c in submits)
    assert no_verification(relabelled(episode)) is None


def test_rerunning_a_test_after_an_edit_is_verification_not_repetition(runs):
    reruns = 0
    for instance in RESOLVED:
        episode = relabelled(runs[instance])
        changes = [c.step for c in calls(episode) if c.is_change]
        for group in near_identical_groups([c for c in calls(episode) if c.is_check]):
            reruns += sum(1 for a, b in zip(group, group[1:]) if any(a.step < s < b.step for s in changes))
        assert repeated_actions(episode) is None, instance
    assert reruns >= 3, "the fixtures re-run checks after edits"


def test_a_failing_test_called_pre_existing_is_its_own_mode(runs):
    episode = relabelled(runs["pydata__xarray-4629"])
    finding = dismissed_failing_test(episode)
    assert finding is not None and finding.mode is FailureMode.DISMISSED_FAILING_TEST
    said = episode.steps[finding.decisive_step]
    assert said.role == "assistant" and finding.signals["dismissal"].lower() in said.content.lower()
    assert finding.signals["failure_step"] < finding.decisive_step


def test_a_patch_that_adds_a_scratch_script_is_found_below_confident_and_defers_to_the_harness(runs, tested):
    finding = patch_adds_unrelated_files(runs["sympy__sympy-20916"])
    assert finding.mode is FailureMode.IMPLEMENTATION_ERROR and finding.confidence < CONFIDENT
    assert finding.signals["added_files"] == ["verify_split_super_sub.py"]
    assert all(patch_adds_unrelated_files(runs[i]) is None for i in RESOLVED)
    assert patch_adds_unrelated_files(tested["sympy__sympy-20916"]) is None, "the harness's results say why instead"


def test_no_confident_diagnosis_on_these_resolved_runs_and_one_on_each_failed_run(tested):
    for instance in RESOLVED:
        assert all(d.confidence < CONFIDENT for d in diagnose(relabelled(tested[instance]))), instance
    for instance in FAILED:
        found = diagnose(tested[instance])
        assert found[0].confidence >= CONFIDENT and found[0].decisive_step is not None, instance


def test_harness_reports_carry_which_tests_failed_onto_the_outcome(runs, tested):
    assert all(e.outcome.tests is None for e in runs.values()), "the run report alone has no per-test results"
    tests = tested["django__django-15957"].outcome.tests
    assert len(tests.fail_to_pass_failed) == 4 and tests.fail_to_pass_passed == [] and tests.patch_applied
    assert all(name.endswith("(prefetch_related.tests.PrefetchLimitTests)") for name in tests.fail_to_pass_failed)
    assert tests.pass_to_pass_failed == [] and len(tests.pass_to_pass_passed) == 89
    resolved = tested["django__django-14349"].outcome.tests
    assert resolved.failing == [] and resolved.fail_to_pass_passed


def test_the_issue_tests_still_failing_is_a_confident_implementation_error_at_the_fix(tested):
    episode = tested["django__django-15957"]
    finding = issue_tests_still_fail(episode)
    assert finding.mode is FailureMode.IMPLEMENTATION_ERROR and finding.confidence >= CONFIDENT
    assert finding.signals["still_failing_count"] == 4 and "test_m2m_forward" in finding.explanation
    made = calls(episode)
    fix = next(c for c in made if c.step == finding.decisive_step)
    assert fix.is_change and "django/db/models/fields/related_descriptors.py".rsplit("/", 1)[-1] in fix.text
    assert all(not (c.is_change and "related_descriptors" in c.text) for c in made if c.step > fix.step)
    assert all(issue_tests_still_fail(relabelled(tested[i])) is None for i in RESOLVED)


def test_a_broken_passing_test_never_run_after_the_change_is_unverified_and_one_seen_is_the_patch(tested):
    unchecked = broke_passing_tests(tested["astropy__astropy-7606"])
    assert unchecked.mode is FailureMode.NO_VERIFICATION and unchecked.confidence >= CONFIDENT
    assert unchecked.signals["broken"] == ["astropy/units/tests/test_units.py::test_compose_roundtrip[]"]
    assert unchecked.signals["ran_them"] is False
    ran = broke_passing_tests(tested["psf__requests-2317"])
    assert ran.mode is FailureMode.IMPLEMENTATION_ERROR and ran.signals["ran_them"] is True
    assert "test_requests" in next(c.text for c in calls(tested["psf__requests-2317"]) if c.step in ran.steps
                                   and c.step != ran.decisive_step)
    assert all(broke_passing_tests(relabelled(tested[i])) is None for i in RESOLVED)


def test_a_dismissal_is_confident_only_when_the_harness_found_the_dismissed_test_failing(runs, tested):
    confirmed = dismissed_failing_test(tested["django__django-11276"])
    assert confirmed.confidence >= CONFIDENT
    assert "test_escape (utils_tests.test_html.TestUtilsHtml)" in confirmed.signals["failing_after_patch"]
    assert dismissed_failing_test(runs["django__django-11276"]).confidence < CONFIDENT, "the trace alone cannot tell"
    assert dismissed_failing_test(relabelled(tested["pydata__xarray-4629"])) is None, \
        "the harness found every test passing: the failure the agent dismissed was not the one that mattered"


def test_recovered_format_errors_are_not_the_failure_and_repeats_are_no_evidence_on_swe_runs(runs):
    episode = relabelled(runs["django__django-14349"])
    assert sum(1 for s in episode.steps if (s.error or "").startswith("format error")) == 31
    assert format_errors(episode) is None, "the agent's next turns ran: it recovered"
    assert repeated_actions not in rules_for("swe") and repeated_actions in rules_for("workflow")


def test_a_file_whose_info_runs_past_the_head_is_still_recognised():
    path = MINI / "trajs" / "django__django-15957" / "django__django-15957.traj.json"
    assert json_head(SourceFile(path, path.name).head())["info"] is CUT
    (episode,), _ = _read([path])
    assert episode.source_format == "mini_swe_agent" and len(episode.steps) > 50


def test_group_chat_transcripts_name_their_agents_and_run_their_code():
    (episode,), quarantined = _read([WHO_AND_WHEN / "algorithm-generated-1.json"])
    raw = json.loads((WHO_AND_WHEN / "algorithm-generated-1.json").read_text())
    assert quarantined == [] and episode.source_format == "group_chat"
    assert [s.actor for s in episode.steps] == [m["name"] for m in raw["history"]]
    terminal = [s for s in episode.steps if s.actor == "Computer_terminal"]
    assert terminal and all(s.role == "tool" for s in terminal)
    for step in terminal:
        caller = episode.steps[step.index - 1]
        assert caller.tool_calls and step.tool_call_id == caller.tool_calls[0].id
    assert episode.metadata["expected_answer"] == raw["ground_truth"]
    assert not {"mistake_agent", "mistake_step", "mistake_reason"} & set(episode.metadata)
    assert episode.outcome.graded and not episode.outcome.success


def test_trail_span_trees_give_steps_by_agent_with_calls_answered_and_every_annotated_span_on_a_step():
    episodes, quarantined = _read([TRAIL / "data" / "GAIA"])
    assert quarantined == [] and len(episodes) == 6
    for episode in episodes:
        annotation = json.loads((TRAIL / "processed_annotations_gaia" / f"{episode.task_id}.json").read_text())
        assert episode.source_format == "openinference" and not episode.outcome.graded, "the trace holds no verdict"
        assert episode.steps[0].role == "user" and "question to answer" in episode.steps[0].content
        assert {e["location"] for e in annotation["errors"]} <= set(episode.metadata["span_ids"])
        assert len(episode.metadata["span_ids"]) == len(episode.steps) and "errors" not in episode.metadata
    delegated = next(e for e in episodes if e.task_id == "41bbc898aa7de0f31d2382ff57700a76")
    caller = {call.id: step for step in delegated.steps for call in step.tool_calls}
    answers = [(step, caller[step.tool_call_id]) for step in delegated.steps if step.tool_call_id in caller]
    assert {s.actor for s in delegated.steps} >= {"CodeAgent.run", "ToolCallingAgent.run"}
    failed = [(step, turn) for step, turn in answers if step.is_error]
    assert failed and all(turn.actor == "ToolCallingAgent.run" for _, turn in failed), "the managed agent's tool failed"
    assert failed[0][0].content.startswith("FileConversionException")
    handed_back = next((step, turn) for step, turn in answers if "final answer from your managed agent" in step.content)
    assert handed_back[1].actor == "CodeAgent.run", "the managed agent's answer is the output of the manager's code"


def test_mast_ag2_traces_run_the_proxys_code_take_their_verdict_and_never_read_the_annotators_note(tmp_path):
    records = {str(r["index"]): r for r in json.loads((MAST / "ag2_traces.json").read_text())}
    for index, record in records.items():
        (tmp_path / f"{index}.json").write_text(record["trace_text"])
    episodes, quarantined = _read([tmp_path])
    assert quarantined == [] and {e.task_id for e in episodes} == set(records)
    by_index = {e.task_id: e for e in episodes}
    for index, episode in by_index.items():
        trace = json.loads(records[index]["trace_text"])
        assert episode.source_format == "group_chat" and episode.steps[0].role == "assistant", "the proxy poses the task"
        assert {s.actor for s in episode.steps} == {"assistant", "mathproxyagent"}
        assert episode.outcome.success is trace["other_data"]["correct"]
        assert episode.metadata["question"] == "\n".join(trace["problem_statement"])
        for step in (s for s in episode.steps if s.role == "tool"):
            caller = episode.steps[step.index - 1]
            assert step.actor == "mathproxyagent" and step.tool_call_id == caller.tool_calls[0].id
        notes = [option for option in trace["note"]["options"]] + trace["note"]["text"]
        assert not any(note in step.content for note in notes for step in episode.steps)
    chalk = by_index["12"]
    assert chalk.metadata["expected_answer"] == "2" and not chalk.outcome.success
    assert [s.is_error for s in chalk.steps if s.role == "tool"] == [True, False], "the traceback, then the fix ran"
    assert not any(s.role == "tool" for s in by_index["2"].steps), "no code, so the proxy's turns are its own"


def test_multi_agent_failures_name_an_agent_and_an_early_step_not_termination():
    episodes, _ = _read([WHO_AND_WHEN])
    for episode in episodes:
        primary = diagnose(episode)[0]
        assert primary.failure_mode is not FailureMode.PREMATURE_TERMINATION, episode.source_file
        assert primary.agent is not None and primary.agent != "Computer_terminal"
        assert primary.decisive_step < episode.steps[-1].index


def test_an_answer_without_tools_is_a_wrong_answer_not_persistence():
    (episode,), _ = _read([WHO_AND_WHEN / "algorithm-generated-21.json"])
    assert calls(episode) == []
    modes = {f.mode for f in rule_findings(episode)}
    assert modes == {FailureMode.INCORRECT_ANSWER}, "no tool, and facts no observation holds: a wrong answer only"


def test_a_wrong_fact_is_traced_to_the_agent_that_stated_it_not_the_one_that_used_it():
    (prices,), _ = _read([WHO_AND_WHEN / "algorithm-generated-101.json"])
    answer = final_answer(prices)
    assert prices.steps[answer.step].actor == "Verification_Expert"
    assert attribution(diagnose(prices)) == ("Tickets_Pricing_Expert", 2)
    (movies,), _ = _read([WHO_AND_WHEN / "algorithm-generated-100.json"])
    first_run = first_executed_turn(movies)
    assert (first_run, movies.steps[first_run].actor) == (3, "StreamingService_Expert")
    assert fact_origin(movies, first_run) == 2 and attribution(diagnose(movies)) == ("Movie_Expert", 2)
    assert fact_origin(movies, 0) == 0


def test_a_task_handed_over_that_is_not_the_question_is_lost_from_the_start():
    (episode,), _ = _read([WHO_AND_WHEN / "algorithm-generated-24.json"])
    finding = task_misstated(episode)
    assert finding.mode is FailureMode.LOST_OBJECTIVE and finding.decisive_step == 0
    assert finding.signals["overlap"] < 0.15
    assert attribution(diagnose(episode)) == ("PythonDebugging_Expert", 0)
    (faithful,), _ = _read([WHO_AND_WHEN / "algorithm-generated-1.json"])
    assert task_misstated(faithful) is None


def test_a_run_ending_on_a_clean_run_without_an_answer_is_decided_by_the_code_that_ran_last():
    (episode,), _ = _read([WHO_AND_WHEN / "algorithm-generated-91.json"])
    assert final_answer(episode) is None and episode.steps[-1].role == "tool"
    assert "No Blu-Ray entries found" in episode.steps[-1].content
    (found,) = diagnose(episode)
    assert found.failure_mode is FailureMode.IMPLEMENTATION_ERROR and found.confidence < 0.6
    assert attribution([found]) == ("Blu-Ray_Expert", 8)
    (answered,), _ = _read([WHO_AND_WHEN / "algorithm-generated-1.json"])
    assert final_answer(answered) is not None and ended_on_clean_run(answered) is None


def test_an_openhands_run_waiting_for_the_user_is_not_a_graded_failure(tmp_path):
    events = json.loads((REPO / "tests" / "fixtures" / "traces" / "openhands" /
                         "astropy__astropy-12907.events.json").read_text())
    cut = next(i for i, e in enumerate(events) if e.get("action") == "finish")
    waiting = {"id": 10_000, "source": "environment", "observation": "agent_state_changed", "content": "",
               "extras": {"agent_state": "awaiting_user_input", "reason": ""}}
    (tmp_path / "gui.events.json").write_text(json.dumps([*events[:cut], waiting]))
    (episode,), _ = _read([tmp_path / "gui.events.json"])
    assert not episode.outcome.graded and "waits for the user" in episode.outcome.detail
    assert diagnose(episode) == []


def test_an_inspect_log_without_samples_and_an_empty_file_are_quarantined(tmp_path):
    source = SHARED / "fixtures" / "traces" / "inspect" / "log_read_sample.eval"
    with zipfile.ZipFile(source) as archive, zipfile.ZipFile(tmp_path / "no_samples.eval", "w") as out:
        for member in archive.namelist():
            if not member.startswith(("samples/", "_journal/summaries/", "summaries.json")):
                out.writestr(member, archive.read(member))
    (tmp_path / "empty.jsonl").write_bytes(b"")
    episodes, quarantined = _read([tmp_path])
    reasons = {q.source: q.reason for q in quarantined}
    assert episodes == []
    assert "no samples logged" in reasons[f"{tmp_path.name}/no_samples.eval"]
    assert any(k.endswith("empty.jsonl") and "empty file" in v for k, v in reasons.items())


def test_a_word_after_is_is_not_a_finding(runs):
    observations = [s.content for e in runs.values() for s in e.steps if s.role == "tool"]
    assert any(" is used" in text for text in observations)
    stated = [m.group(2) for text in observations for m in FINDING.finditer(text)]
    assert all(any(ch.isdigit() for ch in value) for value in stated)


def test_cycle_and_the_nightly_deployment_take_verdict_files():
    import inspect

    import yaml

    from taskforge.flows.cli import _parser
    from taskforge.flows.cycle import cycle

    args = _parser().parse_args(["cycle", "--traces", "runs", "--verdicts", "report.json", "logs"])
    assert args.verdicts == ["report.json", "logs"]
    nightly = next(d for d in yaml.safe_load((REPO / "prefect.yaml").read_text())["deployments"]
                   if d["name"] == "nightly-cycle")
    assert "verdicts" in nightly["parameters"]
    assert set(nightly["parameters"]) <= set(inspect.signature(cycle.fn).parameters)


def test_openai_messages_with_names_carry_their_agents(tmp_path):
    raw = json.loads((WHO_AND_WHEN / "algorithm-generated-4.json").read_text())
    messages = [{"role": "user", "content": raw["question"]}]
    messages += [{"role": "tool" if m["name"] == "Computer_terminal" else "assistant", "name": m["name"],
                  "content": m["content"]} for m in raw["history"]]
    (tmp_path / "chat.jsonl").write_text(json.dumps({"id": "ww-4", "success": False, "messages": messages}) + "\n")
    (episode,), _ = _read([tmp_path / "chat.jsonl"])
    assert [s.actor for s in episode.steps[1:]] == [m["name"] for m in raw["history"]]
    named = diagnose(episode)[0].agent
    assert named in {m["name"] for m in raw["history"]} and named != "Computer_terminal"


def test_verdicts_grade_swe_agent_and_openhands_runs_by_instance_id(tmp_path):
    (tmp_path / "verdicts.csv").write_text("instance_id,resolved\nmarshmallow-code__marshmallow-1867,true\n"
                                           "pydicom__pydicom-1458,false\nastropy__astropy-12907,false\n")
    verdicts = load_verdicts([tmp_path / "verdicts.csv"])
    episodes, _ = _read([SHARED / "fixtures" / "traces" / "swe-agent", REPO / "tests" / "fixtures" / "traces" / "openhands"])
    graded = {(e.source_format, e.task_id): graded_by(e, v) for e in episodes if (v := verdicts.match(e))}
    assert graded[("swe_agent", "marshmallow-code__marshmallow-1867")].outcome.success is True
    assert graded[("swe_agent", "pydicom__pydicom-1458")].outcome.failure_origin == "model"
    assert not graded[("openhands", "astropy__astropy-12907")].outcome.success
    assert verdicts.match(next(e for e in episodes if e.task_id == "swe-agent__test-repo-i1")) is None


def test_the_harness_instance_log_gives_the_verdict_and_test_results_of_its_report(tmp_path):
    report = json.loads((MINI / "logs" / "django__django-15957" / "report.json").read_text())
    folder = tmp_path / "logs" / "django__django-15957"
    folder.mkdir(parents=True)
    (folder / "run_instance.log").write_text(
        "2024-08-24 20:23:23,300 - INFO - Grading answer for django__django-15957...\n"
        f"2024-08-24 20:23:23,301 - INFO - report: {({'django__django-15957': report})!r}\n"
        "Result for django__django-15957: resolved: False\n")
    (tmp_path / "logs" / "ungraded").mkdir()
    (tmp_path / "logs" / "ungraded" / "run_instance.log").write_text("INFO - Failed to apply patch\n")
    (tmp_path / "logs" / "broken").mkdir()
    (tmp_path / "logs" / "broken" / "run_instance.log").write_text("INFO - report: {'broken': {'resolved': Fal\n")
    from_log = load_verdicts([tmp_path / "logs"])
    assert set(from_log.by_key) == {"django__django-15957"}, "a log that never graded its instance gives no verdict"
    assert [q.source for q in from_log.problems] == ["logs/broken/run_instance.log"]
    from_report = load_verdicts([MINI / "logs"]).by_key["django__django-15957"]
    assert from_log.by_key["django__django-15957"].tests == from_report.tests
    assert from_report.tests.fail_to_pass_failed and from_report.resolved is False


def test_a_run_report_then_instance_reports_keeps_the_verdict_and_adds_the_test_results():
    merged = load_verdicts([MINI / "report.json", MINI / "logs"])
    assert merged.problems == [] and len(merged) == 500
    assert all(merged.by_key[i].tests is not None for i in RESOLVED | FAILED)
    assert merged.by_key["django__django-15957"].source == "report.json", "the first file's verdict stands"


def test_submitting_an_empty_patch_is_stopping_early(tmp_path):
    trajectory = json.loads((SHARED / "fixtures" / "traces" / "swe-agent" / "pydicom__pydicom-1458.traj").read_text())
    trajectory["info"]["submission"] = ""
    (tmp_path / "pydicom__pydicom-1458.traj").write_text(json.dumps(trajectory))
    (episode,), _ = _read([tmp_path])
    (tmp_path / "results.json").write_text(json.dumps({"empty_patch_ids": ["pydicom__pydicom-1458"],
                                                       "resolved_ids": []}))
    graded = graded_by(episode, load_verdicts([tmp_path / "results.json"]).match(episode))
    primary = diagnose(graded)[0]
    assert primary.failure_mode is FailureMode.PREMATURE_TERMINATION and primary.confidence >= CONFIDENT
    assert primary.signals["empty_submission"] is True
    assert next(s for s in graded.steps if s.index == primary.decisive_step).role == "assistant", "the submitting turn"


def _trail(name: str) -> tuple[Episode, dict[str, set[str]]]:
    """A kept TRAIL trace and its annotated spans by error category (lower case)."""
    episode = next(e for e in read_traces(discover([TRAIL / "data" / "GAIA" / f"{name}.json"])))
    errors = json.loads((TRAIL / "processed_annotations_gaia" / f"{name}.json").read_text())["errors"]
    spans: dict[str, set[str]] = {}
    for error in errors:
        spans.setdefault(error["category"].strip().lower(), set()).add(error["location"])
    return episode, spans


def test_trail_code_smolagents_could_not_parse_is_a_format_error_except_a_recovered_one_on_swe_runs():
    episode, spans = _trail("6d5b91f06e5a7377d4798be65fe46e97")
    assert "formatting errors" in spans, "annotated with a formatting error"
    refused = [s for s in episode.steps if (s.error or "").startswith("format error")]
    assert [s.error.split("\n")[0] for s in refused] == ["format error: AgentParsingError: Error in code parsing:"]
    found = format_errors(episode)
    assert found is not None and found.mode is FailureMode.FORMAT_ERROR and found.signals["recovered"]
    assert found.decisive_step == refused[0].index - 1, "decided at the turn whose code was refused"
    assert format_errors(episode.model_copy(update={"family": "swe"})) is None, "recovered: no evidence on SWE runs"
    clean, _ = _trail("0ebe673d64647ec44c370638b82d3c78")
    assert format_errors(clean) is None


def test_trail_a_plan_to_look_things_up_answered_without_retrieving_anything_is_a_lost_objective():
    episode, spans = _trail("f39aec9b8a61fd2aaed5849cc00bc165")
    found = plan_abandoned(episode)
    assert found is not None and found.mode is FailureMode.LOST_OBJECTIVE
    assert episode.metadata["span_ids"][found.decisive_step] in spans["goal deviation"]
    reasoned, _ = _trail("0ebe673d64647ec44c370638b82d3c78")
    assert plan_abandoned(reasoned) is None, "its plan only reasons (reverse the text): nothing to look up"
    delegated, _ = _trail("41bbc898aa7de0f31d2382ff57700a76")
    assert plan_abandoned(delegated) is None, "its search agent took turns: it retrieved"
    assert plan_abandoned(episode.model_copy(update={"family": "swe"})) is None


def test_trail_an_answer_stating_facts_no_observation_holds_is_an_incorrect_answer():
    episode, spans = _trail("dbc070b918d4a052c0b686081408fb52")
    found = unsupported_answer(episode)
    assert found is not None and found.mode is FailureMode.INCORRECT_ANSWER
    assert found.signals["unsupported_facts"] >= 2
    assert episode.metadata["span_ids"][found.decisive_step] in spans["language-only"]
    reasoned, _ = _trail("0ebe673d64647ec44c370638b82d3c78")
    assert unsupported_answer(reasoned) is None, "'right' as the opposite of 'left' names no fact"


def test_gitingest_token_estimate_is_no_finding():
    summary = ("Execution logs:\nSummary: Repository: marshmallow-code/marshmallow\n"
               "Commit: 2be2d83a1a9a6d3d9b85804f3ab545cecc409bb0\nFiles analyzed: 71\n\nEstimated tokens: 144.4k\n")
    assert FINDING.search(summary), "the raw line reads as a stated estimate"
    assert not FINDING.search(evidence_text(summary)), "gitingest's size line is boilerplate (TRAIL's SWE runs)"


def test_trail_an_agents_own_facts_survey_before_it_acts_is_not_where_a_wrong_fact_came_from():
    episode, _ = _trail("27a6c5ebc3311542156fdde857a0035f")
    first_run = first_executed_turn(episode)
    survey = episode.steps[1]
    assert survey.role == "assistant" and "Facts" in survey.content and survey.index in own_plan(episode)
    assert fact_origin(episode, first_run) == first_run, "the survey restates facts; the action decided"
    (movies,), _ = _read([WHO_AND_WHEN / "algorithm-generated-100.json"])
    assert 2 in {s.index for s in plan_turns(movies)} and 2 not in own_plan(movies), "another agent's turn"
    assert fact_origin(movies, first_executed_turn(movies)) == 2, "the movie list it stated is still the origin"
