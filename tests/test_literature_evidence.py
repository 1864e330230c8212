"""select_evidence from real papers: claims only from results (the shipped papers' own debris refused), a task from
the shipped full-text collection accepted, and a gold passage swapped for a near miss rejected by the re-derived
answer."""

from __future__ import annotations

import pytest

from conftest import SAMPLES
from factories import literature_tasks
from taskforge.builders.literature.findings import sentence_findings
from taskforge.builders.literature.kinds.select_evidence import claim_of, evidence_passages, near_misses
from taskforge.graders.literature.environment import environment_for
from taskforge.validators.questions import parts_of
from taskforge.validators.runner import default_checks, validate

MESH = ("Particularly, on the MeSH (MAG) dataset, we obtain an 86.4 (82.0) F1 score which is about a ∆= + 2.3 (+1.5) "
        "point absolute increase over the best baseline on each dataset respectively.")
COCITATION = ("On the other hand, on cocitation data our method is able to achieve the best results with nDCG of 94.8, "
              "improving over SGC with 2.3 points.")


def _claims(sentence: str, section: str = "results") -> dict[str, dict | None]:
    """The claim each finding of a sentence makes, by its number."""
    return {f.value: claim_of(f) for f in sentence_findings(f"{section}:1", sentence, sentence)}


@pytest.mark.parametrize("section,sentence,number", [
    ("results", "In particular, 0.22 μM CSP treated cells had significantly higher survival rate than un-nanosized "
                "curcuminoids under Aβ stress (Figure 1).", "0.22"),
    ("electrochemical_biosensors", "The spinning parameters were 22 kV applied voltage, 12 cm receiving distance, "
                                   "and 0.5 mL/h feed rate.", "0.5"),
    ("results", MESH, "82.0"),
    ("results", MESH, "1.5"),
    ("methods", "The tagger reached an accuracy of 91.2 on the held-out part of WSJ.", "91.2"),
])
def test_numbers_that_are_not_the_papers_results_make_no_claim(section, sentence, number):
    """A dose, a configured parameter, a bracketed alternative (the other dataset's figure) and a methods-section
    number (real sentences of the shipped papers) are findings by metric word, never claims."""
    claims = _claims(sentence, section)
    assert number in claims and claims[number] is None


def test_relative_gains_are_claimed_as_improvements():
    # data/samples/papers/unarxive (2212.11790), comparison to the state of the art
    ncl = _claims("On ActivityNet, NCL gives 13% and 10% relative gains on text-to-video and video-to-text R@1, "
                  "respectively, compared to the previous state-of-the-art of CLIP4Clip [24].")
    assert ncl["13"]["gain"] and ncl["10"]["gain"] and ncl["10"]["setting"] == "NCL"
    assert not _claims(COCITATION)["94.8"]["gain"]


def test_a_claim_names_the_setting_it_was_measured_for_not_the_baseline():
    mesh = _claims(MESH)
    assert mesh["86.4"] == {"value": "86.4", "metric": "F1", "setting": "MeSH", "gain": False}
    assert mesh["2.3"]["gain"] and mesh["2.3"]["setting"] == "MeSH"
    cocitation = _claims(COCITATION)
    assert cocitation["94.8"]["setting"] is None and not cocitation["94.8"]["gain"]
    assert cocitation["2.3"]["setting"] != "SGC" and cocitation["2.3"]["gain"]


@pytest.fixture(scope="module")
def shipped(tmp_path_factory):
    data_dir = tmp_path_factory.mktemp("shipped")
    (task,) = literature_tasks(SAMPLES / "papers", data_dir, ["select_evidence"])
    return task, data_dir


def _failed(task, data_dir) -> dict[str, str]:
    failed = {}
    for result in validate(task, default_checks(data_dir)).validation:
        if not result.passed:
            failed[result.check] = result.reason
            failed.update({name: part.reason for name, part in parts_of(result).items() if not part.passed})
    return failed


def test_the_shipped_papers_make_an_accepted_task_with_near_miss_passages(shipped):
    task, data_dir = shipped
    assert _failed(task, data_dir) == {}
    assert len(task.payload["candidates"]) >= 2 and task.reference["distractor_ids"]
    assert task.payload["difficulty"]["near_miss_passages"] >= 2
    claim = task.payload["claim"]
    assert "Section" not in claim and "figure" not in claim


def test_planted_gold_passage_swapped_for_a_near_miss_is_rejected(shipped):
    task, data_dir = shipped
    env = environment_for(task.environment, data_dir)
    evidence = {c["paper_id"]: evidence_passages(env.collection.by_id[c["paper_id"]]) for c in task.payload["candidates"]}
    paper_id, passage = near_misses(evidence, task.reference["support"])[0]
    answer = {**task.reference["answer"], "passages": [{"paper_id": paper_id, "passage": passage}]}
    swapped = task.model_copy(update={"reference": {**task.reference, "answer": answer}})
    reason = _failed(swapped, data_dir)["rederived_answer"]
    assert f"lists ('{paper_id}', '{passage}'), which the snapshot does not give" in reason
