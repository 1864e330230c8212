"""unarXive full texts (data/samples/papers/unarxive/, 13 verbatim records of the unarXive data sample, CC BY-SA
4.0) become the one paper record: arXiv metadata, sections of rendered text without placeholders, references; a
truncated or unusable line is quarantined with its file and line while the rest loads."""

from __future__ import annotations

import json
import re

import pytest

from factories import literature_tasks
from taskforge.builders.literature.collection import load_collection
from taskforge.builders.literature.debris import has_unresolved_reference
from taskforge.builders.literature.findings import findings
from taskforge.builders.literature.readers.unarxive import render
from taskforge.store.layout import SAMPLES_DIR

SUBSET = SAMPLES_DIR / "papers" / "unarxive" / "arXiv_src_2212_086.jsonl"


@pytest.fixture(scope="module")
def papers():
    loaded = load_collection(SUBSET)
    assert loaded.quarantined == []
    return loaded.collection.by_id


def test_a_record_keeps_its_arxiv_metadata_sections_and_references(papers):
    paper = papers["arxiv-2212-11809"]
    assert paper.title.startswith("Mind the Retrosynthesis Gap: Bridging the divide between Single-step")
    assert (paper.arxiv_id, paper.year, paper.venue) == ("2212.11809", 2022, "arXiv")
    assert paper.authors[:2] == ["Alan Kai Hassen", "Paula Torren-Peraire"]
    assert [s.name for s in paper.sections] == ["introduction", "methods", "single_step_retrosynthesis_prediction",
                                                "multi_step_retrosynthesis_planning", "discussion", "conclusion",
                                                "acknowledgements"]
    assert "doi:10.1038/nature25978" in paper.references and "openalex:w1557379335" in paper.references


def test_no_placeholder_reaches_the_text(papers):
    texts = [s.text for p in papers.values() for s in p.sections]
    assert len(papers) == 13 and not any(re.search(r"\{\{(?:formula|cite|figure|table):", t) for t in texts)


def test_citations_are_numbered_and_formulas_rendered_plain_or_as_inline_latex(papers):
    retro = papers["arxiv-2212-11809"].sections[0].text
    assert retro.startswith("Artificial intelligence has greatly impacted the drug discovery pipeline by achieving "
                            "human-like performance in the field of retrosynthesis [1].")
    channel = papers["arxiv-2212-11858"].sections[0].text
    assert re.search(r"in a region\(≈ 0\.6 × 0\.4\s+km\\\(\^2\\\)\) of Beijing", channel)


def test_a_results_passage_citing_a_lost_figure_number_keeps_its_findings_but_never_quotes_the_reference(papers):
    """`Fig. REF` in one sentence of 2212.11809's results leaves the other sentences' accuracies findings."""
    found = [f for f in findings(papers["arxiv-2212-11809"])
             if f.passage_id == "single_step_retrosynthesis_prediction:1"]
    assert has_unresolved_reference(found[0].passage) and not any(has_unresolved_reference(f.sentence) for f in found)
    assert {"54.7", "60.0", "73.3"} <= {f.value for f in found}


def test_a_formula_without_its_latex_is_an_error():
    with pytest.raises(ValueError, match="formula f1 is not among the record's ref_entries"):
        render("x = {{formula:f1}} .", {}, {})
    assert render("a gain {{cite:b}} of {{formula:f2}} .{{figure:g}}", {"f2": "4.2\\%"}, {"b": 3}) == \
        "a gain [3] of 4.2%."


def test_a_truncated_or_unusable_line_is_quarantined_with_file_and_line_and_the_rest_loads(tmp_path):
    lines = SUBSET.read_text(encoding="utf-8").splitlines()[:4]
    unusable = json.loads(lines[2])
    unusable["body_text"] = "not a list of paragraphs"
    folder = tmp_path / "ux"
    folder.mkdir()
    (folder / "part.jsonl").write_text("\n".join([lines[0], lines[1][:5000], json.dumps(unusable), lines[3]]) + "\n",
                                       encoding="utf-8")

    loaded = load_collection(folder)

    reasons = {q.source: q.reason for q in loaded.quarantined}
    assert set(reasons) == {"ux/part.jsonl:2", "ux/part.jsonl:3"}
    assert reasons["ux/part.jsonl:2"].startswith("ux/part.jsonl:2: not valid JSON")
    assert reasons["ux/part.jsonl:3"].endswith("body_text must be a list of paragraphs")
    assert len(loaded.collection) == 2


def test_the_default_collection_holds_each_full_text_once_beside_the_arxiv_metadata():
    loaded = load_collection(SAMPLES_DIR / "papers")
    assert not [q for q in loaded.quarantined if "duplicate" in q.reason]
    with_text = [p.paper_id for p in loaded.collection.papers if p.sections and p.paper_id.startswith("arxiv-")]
    assert len(with_text) == 13


def test_a_number_drawn_twice_is_one_task_whatever_the_seed(tmp_path):
    """2212.11889 has one full-text number to ask (1.2 MK): both draws give the same options in the same order."""
    source = tmp_path / "papers"
    source.mkdir()
    (source / "coronal.jsonl").write_text(next(line for line in SUBSET.read_text(encoding="utf-8").splitlines()
                                               if '"paper_id": "2212.11889"' in line) + "\n", encoding="utf-8")
    first, second = literature_tasks(source, tmp_path / "data", ["fulltext_qa"], per_kind=2)
    assert first.reference["answer_text"] == "1.2" and first.payload["options"] == second.payload["options"]
    assert first.task_id == second.task_id
