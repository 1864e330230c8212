"""Real paper collections in each supported format become the one paper record, and literature tasks.

Samples (with their licences) are under tests/fixtures/papers/: OpenAlex works
(CC0), a PMC JATS article (CC BY 4.0), a GROBID TEI of an ACL paper (CC BY 4.0),
S2ORC records (ODC-By; a doc2json full text of an ACL paper, CC BY 4.0), arXiv
snapshot metadata (CC0) and an ACL Anthology volume (CC BY 4.0). arXiv metadata
and the ACL Anthology carry neither references nor full text, so no kind can be
built from them alone; they join the shipped default collection, from which
every kind is built.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from factories import literature_tasks
from taskforge.builders.literature.collection import load_collection
from taskforge.builders.literature.readers.openalex import abstract_from_index
from taskforge.store.layout import SAMPLES_DIR
from taskforge.validators.runner import default_checks, validate

PAPERS = Path(__file__).parent / "fixtures" / "papers"


def _paper(fmt: str, paper_id: str):
    loaded = load_collection(PAPERS / fmt)
    assert loaded.quarantined == [] or fmt == "s2orc"
    return loaded.collection.by_id[paper_id]


def test_openalex_work_rebuilds_its_abstract_and_keeps_its_citations():
    paper = _paper("openalex", "openalex:w1565617506")
    assert paper.title == "Longer-acting clotting factor concentrates for hemophilia"
    assert (paper.doi, paper.year, paper.venue) == ("10.1111/jth.12912", 2015, "Journal of Thrombosis and Haemostasis")
    assert paper.authors == ["Jerry S. Powell"]
    assert paper.abstract.startswith("Hemophilia, when severe, leads to spontaneous life-threatening bleeding")
    assert len(paper.references) == 64 and all(r.startswith("openalex:w") for r in paper.references)
    assert abstract_from_index({"growing": [1], "Despite": [0], "interest": [2, 4], "and": [3]}) == \
        "Despite growing interest and interest"


def test_jats_article_keeps_sections_references_and_is_named_by_its_pmc_id():
    paper = _paper("jats", "pmc-6398430")
    assert paper.title.startswith("Counting crows: population structure and group size variation")
    assert (paper.doi, paper.year, paper.venue) == ("10.1093/beheco/ary157", 2018, "Behavioral Ecology")
    assert paper.authors[:2] == ["Florian Uhl", "Max Ringler"]
    assert [s.name for s in paper.sections][:4] == ["introduction", "methods", "results", "discussion"]
    assert len(paper.references) == 23 and paper.references[0] == "pmid:18804375"


def test_grobid_tei_keeps_body_divisions_and_doi_references():
    paper = _paper("tei", "2020.acl-main.207")
    assert paper.title == "SPECTER: Document-level Representation Learning using Citation-informed Transformers"
    assert paper.authors[:3] == ["Arman Cohan", "Sergey Feldman", "Iz Beltagy"]
    assert paper.abstract.startswith("Representation learning is a critical ingredient")
    assert paper.sections[0].name == "introduction" and len(paper.sections) > 5
    assert "doi:10.18653/v1/d17-1070" in paper.references


def test_s2orc_metadata_and_full_text_records():
    metadata = _paper("s2orc", "s2:66482199")
    assert (metadata.title, metadata.year) == ("Full-gesture auto-nursing and keeling over bed", 2007)
    full = _paper("s2orc", "s2:n18-3011")
    assert full.title == "Construction of the Literature Graph in Semantic Scholar"
    assert full.authors[:2] == ["Waleed Ammar", "Dirk Groeneveld"]
    assert full.abstract.startswith("We describe a deployed scalable system")
    assert len(full.sections) == 13


def test_arxiv_snapshot_record_is_named_without_its_arxiv_id():
    paper = _paper("arxiv", "arxiv-2212-11739")
    assert paper.arxiv_id == "2212.11739" and paper.year == 2022 and paper.venue == "arXiv"
    assert paper.authors[:3] == ["Weichao Li", "Jingya Zhu", "Kun Wang"]
    assert paper.title.startswith("A light Higgs boson in the NMSSM")


def test_acl_anthology_papers_carry_the_volume_venue_and_year():
    paper = _paper("acl", "2020.sdp-1.3")
    assert paper.title == "Acknowledgement Entity Recognition in CORD-19 Papers"
    assert (paper.doi, paper.year) == ("10.18653/v1/2020.sdp-1.3", 2020)
    assert paper.venue == "Proceedings of the First Workshop on Scholarly Document Processing"
    assert paper.authors[0] == "Jian Wu" and paper.abstract.startswith("Acknowledgements are ubiquitous")


def test_arxiv_oai_pmh_response_in_both_metadata_formats(tmp_path):
    record = json.loads((PAPERS / "arxiv" / "arxiv-metadata.jsonl").read_text().splitlines()[0])
    arxiv_format = (f'<record><header><identifier>oai:arXiv.org:{record["id"]}</identifier></header><metadata>'
                    f'<arXiv xmlns="http://arxiv.org/OAI/arXiv/"><id>{record["id"]}</id><created>2022-12-22</created>'
                    f'<authors><author><keyname>Li</keyname><forenames>Weichao</forenames></author></authors>'
                    f'<title>{record["title"]}</title><abstract>{record["abstract"]}</abstract></arXiv></metadata></record>')
    dublin_core = ('<record><header><identifier>oai:arXiv.org:2212.11766</identifier></header><metadata>'
                   '<oai_dc:dc xmlns:oai_dc="http://www.openarchives.org/OAI/2.0/oai_dc/" '
                   'xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>Long bet will lose</dc:title>'
                   '<dc:creator>Chen, Zengjing</dc:creator><dc:description>An abstract.</dc:description>'
                   '<dc:date>2022-12-22</dc:date><dc:identifier>http://arxiv.org/abs/2212.11766v1</dc:identifier>'
                   '</oai_dc:dc></metadata></record>')
    (tmp_path / "oai.xml").write_text(f'<OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/"><ListRecords>'
                                      f'{arxiv_format}{dublin_core}</ListRecords></OAI-PMH>')
    papers = load_collection(tmp_path / "oai.xml").collection.by_id
    first = papers["arxiv-" + record["id"].replace(".", "-")]
    assert (first.authors, first.year, first.arxiv_id) == (["Weichao Li"], 2022, record["id"])
    assert first.title == " ".join(record["title"].split())
    assert papers["arxiv-2212-11766"].authors == ["Zengjing Chen"]
    assert papers["arxiv-2212-11766"].arxiv_id == "2212.11766"


@pytest.mark.parametrize("fmt,kinds", [("openalex", ["find_papers", "table_synthesis"]), ("jats", ["fulltext_qa"]),
                                       ("tei", ["fulltext_qa"]), ("s2orc", ["fulltext_qa"])])
def test_tasks_from_a_real_collection_of_each_format_are_accepted(tmp_path, fmt, kinds):
    tasks = literature_tasks(PAPERS / fmt, tmp_path, kinds)
    checks = default_checks(tmp_path)
    assert [t.kind for t in tasks] == kinds
    assert [validate(t, checks).status for t in tasks] == ["accepted"] * len(kinds)


def test_the_shipped_real_collection_builds_every_kind(tmp_path):
    """select_evidence among them: a claim read off a result of a full-text paper, among full-text candidates
    whose passages state other figures of the same metric."""
    kinds = ["find_papers", "select_evidence", "fulltext_qa", "table_synthesis", "described_finding"]
    tasks = literature_tasks(SAMPLES_DIR / "papers", tmp_path, kinds)
    checks = default_checks(tmp_path)
    assert [t.kind for t in tasks] == kinds
    assert [validate(t, checks).status for t in tasks] == ["accepted"] * 5


def test_bad_records_of_each_format_are_quarantined_with_file_and_line_and_the_rest_loads(tmp_path):
    works = (PAPERS / "openalex" / "works.jsonl").read_text().splitlines()[:3]
    broken = json.loads(works[1])
    broken["abstract_inverted_index"] = {"word": ["one"]}
    (tmp_path / "works.jsonl").write_text("\n".join([works[0], json.dumps(broken), works[2]]) + "\n")
    acl = (PAPERS / "acl" / "2020.sdp.xml").read_text()
    (tmp_path / "acl.xml").write_text(acl.replace("<title>The future of ar<fixed-case>X</fixed-case>iv and knowledge "
                                                  "discovery in open science</title>", ""))
    (tmp_path / "cut.nxml").write_text((PAPERS / "jats" / "PMC6398430.nxml").read_text()[:5000])
    (tmp_path / "other.xml").write_text("<html><body>not a paper</body></html>")

    loaded = load_collection(tmp_path)

    reasons = {q.source: q.reason for q in loaded.quarantined}
    acl_line = acl[:acl.index('<paper id="2">')].count("\n") + 1
    assert reasons[f"{tmp_path.name}/works.jsonl:2"].endswith(
        "abstract_inverted_index: positions of 'word' are not a list of positions")
    assert reasons[f"{tmp_path.name}/acl.xml:{acl_line}"].endswith("missing title")
    assert reasons[f"{tmp_path.name}/cut.nxml"].startswith(f"{tmp_path.name}/cut.nxml:")
    assert "not well-formed XML" in reasons[f"{tmp_path.name}/cut.nxml"]
    assert "unknown XML paper format <html>" in reasons[f"{tmp_path.name}/other.xml"]
    assert len(loaded.collection) == 2 + 4
