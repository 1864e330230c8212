"""The shipped workflow seeds generate their inputs at build time: small folders, large messy inputs, the same
bytes from the same seed, capability labels from what the seed exercises, accepted tasks (built small), and
descendants whose inputs are their own (no answer of one task gives another's)."""

from __future__ import annotations

import re

import pytest

from taskforge import sandbox
from taskforge.builders.base import BuildContext
from taskforge.builders.workflow import WorkflowBuilder
from taskforge.builders.workflow.generation import REGENERATE, generated
from taskforge.builders.workflow.prompting import user_message
from taskforge.builders.workflow.seeds import GENERATOR_FILE, load_seeds
from conftest import FIXTURE_SEEDS, SAMPLES
from taskforge.schemas import CAPABILITIES, PlanItem, Quarantined
from taskforge.validators.runner import validate

SEEDS = SAMPLES / "workflow_seeds"
WORKFLOW_CAPABILITIES = {t.capability for t in CAPABILITIES.values() if "workflow" in t.families}
ANNOUNCING = ("duplicate", "byte-order", "bom", "encoding", "mojibake", "code page", "date format", "thousands")


@pytest.fixture(scope="module")
def process_backend():
    with pytest.MonkeyPatch.context() as patch:
        chosen = sandbox.get_sandbox("process")
        patch.setattr(sandbox, "default_sandbox", lambda: chosen)
        yield


@pytest.fixture(scope="module")
def shipped():
    return load_seeds(SEEDS)


def _build(capability: str, count: int, scale: float = 0.05) -> list:
    item = PlanItem(family="workflow", capability=capability, quota=count, gap_ids=[], priority=1.0)
    return list(WorkflowBuilder().build(item, BuildContext(cycle_id="gen", options={"source": str(SEEDS),
                                                                                     "scale": scale})))


def test_shipped_seeds_are_small_generators_with_workflow_capabilities(shipped):
    assert len(shipped) >= 2
    for seed in shipped:
        folder = SEEDS / seed.package.seed_id
        assert seed.pending and not (folder / "inputs").exists() and (folder / GENERATOR_FILE).is_file()
        assert sum(p.stat().st_size for p in folder.iterdir()) < 40_000
        assert seed.package.capabilities and set(seed.package.capabilities) <= WORKFLOW_CAPABILITIES


def test_inputs_are_deterministic_and_a_full_scale_build_is_a_hundred_times_a_hand_made_seed(shipped, process_backend):
    hand_made = sorted(sum(len(t) for t in s.package.inputs.values()) for s in load_seeds(FIXTURE_SEEDS))
    for seed in shipped:
        small = generated(seed, data_seed=7, scale=0.05)
        assert small.package.inputs == generated(seed, data_seed=7, scale=0.05).package.inputs
        assert small.package.inputs != generated(seed, data_seed=8, scale=0.05).package.inputs
        full = sum(len(t) for t in generated(seed, data_seed=7).package.inputs.values())
        assert full >= 100 * hand_made[len(hand_made) // 2], (seed.package.seed_id, full)


def test_the_prompt_does_not_announce_the_mess(shipped):
    for seed in shipped:
        text = user_message(seed.package).lower()
        assert not [word for word in ANNOUNCING if word in text], seed.package.seed_id


def test_every_build_holds_descendants_and_every_task_is_accepted(process_backend, shipped):
    built = _build("general", 2 * len(shipped))
    assert not [t for t in built if isinstance(t, Quarantined)], built
    assert [t.payload["generation"] for t in built] == [0, 1] * len(shipped)
    for parent, child in zip(built[::2], built[1::2]):
        assert child.payload["evolution"]["operators"][0] == REGENERATE
        shared = [p for p, text in parent.payload["inputs"].items() if child.payload["inputs"].get(p) == text]
        assert not [p for p in shared if not p.endswith(".md")], "a data file is shared (a policy text may be)"
    for task in built:
        decided = validate(task)
        assert decided.status == "accepted", (task.payload["seed_id"], decided.reasons)
        assert task.capability == task.payload["capabilities"][0], "'general' is trained by no seed: its own label"


def test_a_capability_picks_the_seeds_that_exercise_it(process_backend):
    tasks = _build("objective_tracking", 2)
    assert {t.payload["root_seed_id"] for t in tasks} == {"subscription-mrr-bridge"}
    assert {t.capability for t in tasks} == {"objective_tracking"}


def test_every_commission_account_merger_moves_an_account_to_another_territory(shipped):
    seed = next(s for s in shipped if s.package.seed_id == "sales-commission-run")
    for data_seed in (11, 12, 13):
        inputs = generated(seed, data_seed=data_seed, scale=0.05).package.inputs
        territory = {line.split(",")[1]: line.rsplit(",", 1)[1] for line in inputs["inputs/accounts.csv"].splitlines()[1:]}
        mergers = re.findall(r"Account merger\. (.+?) is merged into (.+?) as of", inputs["inputs/plan_memos.md"])
        assert len(mergers) == 2
        assert all(territory[absorbed] != territory[into] for absorbed, into in mergers), (data_seed, mergers)
