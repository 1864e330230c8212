"""Shipped workflow seeds load, are small, span domains; bad seeds fail with the file and the problem named."""

from __future__ import annotations

import json
import shutil

import pytest

from taskforge.builders.workflow.prompting import user_message
from taskforge.builders.workflow.seeds import load_seed, load_seeds, seed_json, write_seed
from conftest import FIXTURE_SEEDS, SAMPLES
from taskforge.schemas import InputError

SEEDS = FIXTURE_SEEDS


@pytest.fixture(scope="module")
def seeds():
    return load_seeds(SEEDS)


def test_a_few_dozen_small_seeds_across_domains(seeds):
    assert len(seeds) >= 30
    domains = {s.package.domain for s in seeds}
    assert {"financial_statements", "data_cleaning", "data_reconciliation", "log_forensics", "packet_forensics",
            "scientific_data_reduction", "document_redaction", "report_generation"} <= domains
    for seed in seeds:
        size = sum(len(t.encode()) for t in seed.package.inputs.values()) + len(seed.workflow.encode())
        assert size < 16_000, f"{seed.package.seed_id} is {size} bytes"
        assert seed.package.tools == {"python": "3.11"} and seed.package.time_budget_s >= 600


def test_prompt_states_parameters_inputs_and_deliverables(seeds):
    for seed in seeds:
        text = user_message(seed.package)
        assert all(value in text for value in seed.package.params.values()), seed.package.seed_id
        assert all(path in text for path in seed.package.input_paths())
        assert all(d.path in text for d in seed.package.deliverables)
        assert "{" not in seed.package.rendered_instructions().replace("{id}", ""), seed.package.seed_id


def test_written_seed_loads_back_identical(seeds, tmp_path):
    seed = seeds[0]
    folder = write_seed(seed, tmp_path)
    again = load_seed(folder)
    assert again == seed and seed_json(again.package) == (SEEDS / seed.package.seed_id / "seed.json").read_text()


def _copy(tmp_path, name="gl-trial-balance"):
    target = tmp_path / name
    shutil.copytree(SEEDS / name, target)
    return target


def test_undeclared_and_missing_inputs_are_named(tmp_path):
    folder = _copy(tmp_path)
    (folder / "inputs" / "notes.txt").write_text("stray")
    (folder / "inputs" / "gl.csv").unlink()
    with pytest.raises(InputError, match=r"gl-trial-balance: .*missing inputs/gl.csv, undeclared inputs/notes.txt"):
        load_seed(folder)


def test_unknown_parameter_and_bad_fields_are_named(tmp_path):
    folder = _copy(tmp_path)
    meta = json.loads((folder / "seed.json").read_text())
    (folder / "seed.json").write_text(json.dumps({**meta, "instructions": "As of {cutoff}."}))
    with pytest.raises(InputError, match="instructions name a parameter that is not set: 'cutoff'"):
        load_seed(folder)
    meta["deliverables"][0]["path"] = "../trial_balance.csv"
    (folder / "seed.json").write_text(json.dumps(meta))
    with pytest.raises(InputError, match=r"gl-trial-balance/seed.json: deliverables.0.path"):
        load_seed(folder)


def test_missing_workflow_and_binary_inputs_are_named(tmp_path):
    folder = _copy(tmp_path)
    (folder / "inputs" / "gl.csv").write_bytes(b"\xff\xfe\x00binary")
    with pytest.raises(InputError, match="gl-trial-balance/inputs/gl.csv: input files must be UTF-8 text"):
        load_seed(folder)
    (folder / "reference.py").unlink()
    with pytest.raises(InputError, match="needs seed.json and reference.py"):
        load_seed(folder)
    with pytest.raises(InputError, match="no seeds"):
        load_seeds(tmp_path / "gl-trial-balance" / "inputs")
