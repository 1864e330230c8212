"""Reading and diagnosing give exactly the results kept in tests/golden/diagnoses.json: every public fixture
and a small synthetic set in every format (`bench/diagnose.py --golden` writes the file). A change made for
speed must leave it unchanged; a change of a rule refreshes it and the diff shows what the rule now says."""

from __future__ import annotations

import importlib.util
import json
import sys

from conftest import REPO

sys.path.insert(0, str(REPO / "bench"))
_spec = importlib.util.spec_from_file_location("bench_diagnose", REPO / "bench" / "diagnose.py")
bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench)
REFRESH = ".venv/bin/python bench/diagnose.py --golden"


def test_every_episode_reads_and_diagnoses_as_the_golden_file_says(tmp_path):
    records = json.loads(json.dumps(bench.golden_records(tmp_path / "traces")))
    golden = json.loads(bench.GOLDEN.read_text())
    assert len(records) == len(golden), f"episodes read differ from the golden file (refresh: {REFRESH})"
    changed = [new.get("episode") or new.get("quarantined") for new, old in zip(records, golden) if new != old]
    assert changed == [], f"results changed for {changed[:5]}; if that is meant, run `{REFRESH}` and review the diff"
    diagnosed = [r for r in records if r.get("diagnoses")]
    modes = {d["failure_mode"] for r in diagnosed for d in r["diagnoses"]}
    assert len(diagnosed) > 100 and len(modes) >= 8, "the golden set exercises many rules"
