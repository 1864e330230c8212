"""The solver gate (`difficulty`) against the local protocol server with scripted policies in place of a model:
a policy that always solves gets the task rejected as too easy (and handed back for evolution: the validate stage
decides a harder variant after it), one that solves
sometimes keeps it with its pass rate recorded, one that fails keeps it (its reference works), one that cheats
finds nothing hidden and no network; a task never solved whose reference is broken is rejected; without a solver
endpoint the gate says it was skipped and why. Workflow tasks run in the real process sandbox."""

from __future__ import annotations

import json

import pytest

from taskforge import sandbox
from taskforge.agents.client import Agents
from taskforge.agents.config import AgentsConfig
from taskforge.builders.base import BuildContext
from taskforge.builders.workflow import WorkflowBuilder
from taskforge.flows.evolution import validate_evolving
from taskforge.schemas import PlanItem, Task, ValidationResult
from taskforge.validators.base import CheckContext
from taskforge.validators.difficulty import GateSettings, GateSettingsError, SolverGate
from taskforge.agents.solver import SolverSettings
from taskforge.validators.registry import question_checks
from taskforge.validators.runner import validate
from conftest import SAMPLES
from factories import long_context_tasks
from llm_server import ChatServer
from solver_policies import answers, cheats, guesses, observations, runs_the_reference, serve, solves_on
from test_agents import endpoint_env, write_prices

SETTINGS = GateSettings(solver=SolverSettings(attempts=4, max_steps=12), ceiling=0.75)


@pytest.fixture(scope="module")
def process_sandbox():
    with pytest.MonkeyPatch.context() as patch:
        chosen = sandbox.get_sandbox("process")
        patch.setattr(sandbox, "default_sandbox", lambda: chosen)
        yield chosen


@pytest.fixture(scope="module")
def workflow_task(process_sandbox) -> Task:
    item = PlanItem(family="workflow", capability="verification", quota=1, gap_ids=["gap-w"], priority=1.0)
    context = BuildContext(cycle_id="test-cycle", options={"source": str(SAMPLES / "workflow_seeds")})
    return next(iter(WorkflowBuilder().build(item, context)))


def solver_agents(server: ChatServer, folder, **extra: str) -> Agents:
    """The solver role pointed at the local server (no other role has a model)."""
    env = endpoint_env(server, folder, TASKFORGE_SOLVER_MODEL="policy-model", TASKFORGE_LLM_MODEL="",
                       TASKFORGE_LLM_CONFIG=str(write_prices(folder / "prices", "policy-model")), **extra)
    return Agents(AgentsConfig.load(env), folder / "llm", "cycle-t", "validate")


def gate(agents: Agents | None, evolves: bool = True) -> SolverGate:
    return SolverGate(agents, None, evolves, SETTINGS)


def test_a_task_the_strong_policy_always_solves_is_rejected_as_too_easy_and_handed_back(workflow_task, tmp_path):
    with ChatServer(serve(lambda body: runs_the_reference(workflow_task))) as server:
        agents = solver_agents(server, tmp_path)
        result = gate(agents).run(workflow_task)
        calls = agents.take_calls()
    assert not result.passed and result.score == 1.0
    assert result.reason.startswith("too easy: the solver solved 4 of 4 attempts (pass rate 1.0), above the "
                                    "ceiling 0.75") and "handed back for evolution" in result.reason
    assert result.detail["evolve"] is True and result.detail["model"] == "policy-model"
    attempts = result.detail["attempts"]
    assert [a["outcome"] for a in attempts] == ["submitted"] * 4 and all(a["score"] == 1.0 for a in attempts)
    assert attempts[0]["actions"][-2:] == ["run", "submit"]
    assert {r.get("seed") for r in server.requests} == {0, 1, 2, 3}
    assert len(calls) == len(server.requests) and {c.purpose for c in calls} == {"solver_attempt"}
    assert all(c.role == "solver" and c.model == "policy-model" and c.cost_usd is not None for c in calls)
    system = server.requests[0]["messages"][0]["content"]
    assert '"name": "write_file"' in system and workflow_task.prompt[0].content in system
    assert json.dumps(workflow_task.reference["deliverables"])[:40] not in json.dumps(server.requests[0])


def test_a_task_solved_sometimes_is_kept_with_its_pass_rate(workflow_task, tmp_path):
    policy = solves_on({0, 2}, runs_the_reference, guesses, workflow_task)
    with ChatServer(serve(policy)) as server:
        result = gate(solver_agents(server, tmp_path)).run(workflow_task)
    assert result.passed and result.score == 0.5, result.reason
    assert [a["solved"] for a in result.detail["attempts"]] == [True, False, True, False]
    assert result.detail["pass_rate"] == 0.5 and 0.5 <= result.detail["mean_score"] < 1.0


def test_a_task_never_solved_is_kept_when_its_reference_scores_full_marks(workflow_task, tmp_path):
    with ChatServer(serve(lambda body: guesses(workflow_task))) as server:
        result = gate(solver_agents(server, tmp_path)).run(workflow_task)
    assert result.passed and result.score == 0.0 and result.detail["reference_score"] == 1.0


def test_a_cheating_policy_finds_no_hidden_file_and_no_network(workflow_task, tmp_path):
    with ChatServer(serve(lambda body: cheats(workflow_task))) as server:
        result = gate(solver_agents(server, tmp_path)).run(workflow_task)
    assert result.passed and result.score == 0.0
    assert all(a["outcome"] == "submitted" and a["score"] == 0.0 for a in result.detail["attempts"])
    seen = observations(server.requests[-1])
    assert "leaves /workspace" in seen[0] and "is outside /workspace" in seen[1]
    assert "reference.py: No such file" in seen[2] and "grade.py: No such file" in seen[2]
    assert "exit code 0" not in seen[3] and ("resolve" in seen[3] or "unreachable" in seen[3])


def test_a_task_never_solved_whose_reference_is_broken_is_rejected(workflow_task, tmp_path):
    spec = dict(workflow_task.grader["deliverables"][0])
    broken_grader = {**workflow_task.grader, "deliverables": [{**spec, "path": "outputs/never_written.csv"}]}
    broken = workflow_task.model_copy(update={"grader": broken_grader})
    with ChatServer(serve(lambda body: guesses(broken))) as server:
        result = gate(solver_agents(server, tmp_path)).run(broken)
    assert not result.passed and result.detail["reference_score"] < 1.0
    assert "never solved in 4 attempts and the task's own reference scores" in result.reason


def test_an_answer_family_task_is_attempted_and_graded_by_its_reward(tmp_path):
    (task,) = long_context_tasks(1, target_tokens=2048)
    right = task.reference["answer"]
    with ChatServer(serve(answers(lambda seed: f"Answer: {right}" if seed == 0 else "Answer: nobody"))) as server:
        result = SolverGate(solver_agents(server, tmp_path), None, True, SETTINGS).run(task)
    assert result.passed and result.score == 0.25, result.reason
    assert all(len(a["actions"]) == 1 for a in result.detail["attempts"])


def test_without_a_solver_the_gate_says_it_was_skipped_and_why(workflow_task, tmp_path):
    assert gate(None).run(workflow_task).detail["skipped"].startswith("skipped: no LLM roles in this run")
    with ChatServer() as server:
        unnamed = Agents(AgentsConfig.load(endpoint_env(server, tmp_path)), tmp_path / "llm", "c", "validate")
        reason = gate(unnamed).run(workflow_task).detail["skipped"]
        assert "no solver model named (TASKFORGE_SOLVER_MODEL" in reason and not server.requests
    rejected = workflow_task.model_copy(update={"validation": [
        *workflow_task.validation, ValidationResult(check="leakage", passed=False, reason="planted")]})
    assert "already rejected by leakage" in gate(unnamed).run(rejected).reason


def test_every_family_answers_difficulty_and_validate_records_it(workflow_task):
    checks = question_checks(CheckContext())
    difficulty = next(check for check in checks if check.name == "difficulty")
    assert {family: [part.evolves for part in strategy.parts] for family, strategy in difficulty.strategies.items()
            } == {"literature": [False], "swe": [False], "mle": [False], "long_context": [False], "workflow": [True]}
    decided = validate(workflow_task, checks)
    gate_result = next(r for r in decided.validation if r.check == "difficulty")
    assert gate_result.passed and gate_result.detail["strategy"] == ["solver_gate"]
    assert gate_result.score is None and "no solver endpoint" in gate_result.detail["skipped"]


def test_gate_settings_come_from_the_environment():
    settings = GateSettings.from_environment({"TASKFORGE_SOLVER_ATTEMPTS": "8", "TASKFORGE_SOLVER_CEILING": "0.5"})
    assert (settings.solver.attempts, settings.ceiling, settings.solver.max_steps) == (8, 0.5, 30)
    with pytest.raises(GateSettingsError, match="TASKFORGE_SOLVER_STEPS must be a number"):
        GateSettings.from_environment({"TASKFORGE_SOLVER_STEPS": "many"})


def test_a_conversation_longer_than_the_solvers_window_is_never_sent_and_counts_as_unsolved(tmp_path):
    (task,) = long_context_tasks(1, target_tokens=4096)
    with ChatServer(serve(answers(lambda seed: "Answer: x"))) as server:
        agents = solver_agents(server, tmp_path, TASKFORGE_SOLVER_MAX_CONTEXT_TOKENS="3000",
                               TASKFORGE_SOLVER_MAX_TOKENS="512")
        result = SolverGate(agents, None, True, SETTINGS).run(task)
        calls = agents.take_calls()
    assert not server.requests and {a["outcome"] for a in result.detail["attempts"]} == {"too_long"}
    assert result.passed and result.score == 0.0 and result.detail["reference_score"] == 1.0
    assert {c.status for c in calls} == {"too_long"} and "the conversation takes" in calls[0].error


def test_a_too_easy_workflow_task_is_handed_back_and_its_harder_variant_is_tried_again(workflow_task, tmp_path,
                                                                                        monkeypatch):
    monkeypatch.setenv("TASKFORGE_SOLVER_ATTEMPTS", "2")
    parent_prompt = workflow_task.prompt[-1].content

    def only_the_parent(body):
        shown = next(m["content"] for m in body["messages"] if m["role"] == "user")
        return runs_the_reference(workflow_task) if shown == parent_prompt else guesses(workflow_task)

    with ChatServer(serve(only_the_parent)) as server:
        checks = question_checks(CheckContext(agents=solver_agents(server, tmp_path)))
        parent, child = validate_evolving([workflow_task], checks, BuildContext(cycle_id="test-cycle"))
    gate_of = {task.task_id: next(r for r in task.validation if r.check == "difficulty") for task in (parent, child)}
    assert parent.status == "rejected" and gate_of[parent.task_id].score == 1.0
    assert gate_of[parent.task_id].detail["evolved_into"] == child.task_id
    assert child.lineage.parent_task_id == parent.task_id and child.payload["generation"] == 1
    assert gate_of[child.task_id].passed and gate_of[child.task_id].score == 0.0
    assert {next(m["content"] for m in r["messages"] if m["role"] == "user") for r in server.requests} == {
        parent_prompt, child.prompt[-1].content}
