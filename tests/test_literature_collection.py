"""Paper collections and the search environment: normalised ids, quarantine, content versions, BM25, tools."""

from __future__ import annotations

import json
import math
import random
from collections import Counter

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from taskforge.builders.literature.collection import load_collection
from factories import paper_collection
from taskforge.graders.literature.bm25 import Analyzer, BM25Index
from taskforge.graders.literature.environment import SearchEnvironment, environment_for
from taskforge.graders.paper_ids import arxiv_ids_in, dois_in, normalise_arxiv, normalise_doi
from taskforge.graders.literature.papers import load_snapshot, save_snapshot
from taskforge.schemas import InputError


@pytest.fixture(scope="module")
def source(tmp_path_factory):
    return paper_collection(tmp_path_factory.mktemp("papers") / "papers.jsonl")


@pytest.fixture(scope="module")
def collection(source):
    return load_collection(source).collection


def test_ids_are_normalised():
    assert normalise_doi("https://doi.org/10.5555/TF.2019.000012") == "10.5555/tf.2019.000012"
    assert normalise_doi("doi:10.1000/ABC.1.") == "10.1000/abc.1"
    assert normalise_doi("not a doi") is None
    assert normalise_arxiv("arXiv:2101.01234v3") == "2101.01234"
    assert normalise_arxiv("https://arxiv.org/abs/hep-th/9901001v2") == "hep-th/9901001"
    assert normalise_arxiv("2113.01234") is None, "month 13 is not an arXiv id"
    text = "see https://doi.org/10.5555/TF.1 (arXiv:1905.00012v2), hep-th/9901001 and a value of 2019.1234"
    assert dois_in(text) == {"10.5555/tf.1"}
    assert arxiv_ids_in(text) == {"1905.00012"}


def test_collection_loads_with_normalised_ids_and_resolved_references(source, collection):
    raw = [json.loads(line) for line in source.read_text().splitlines()]
    assert len(collection) == len(raw) == 300
    assert all(p.paper_id == p.paper_id.casefold() and (p.doi is None or p.doi == p.doi.casefold())
               for p in collection.papers)
    assert not any(p.arxiv_id and "v" in p.arxiv_id for p in collection.papers)
    written = Counter("doi.org" in r.casefold() or r.startswith("arXiv:") or r.startswith("TF-")
                      for record in raw for r in record["references"])
    assert written[True] > 100, "the synthetic records cite by URL, arXiv id and raw id"
    inside = [r for p in collection.papers for r in p.references if not r.startswith("doi:10.9999")]
    assert inside and all(r in collection.by_id for r in inside), "every in-collection citation resolves to an id"
    cited = next(pid for pid, citing in collection.cited_by.items() if len(citing) > 3)
    assert all(cited in collection.by_id[c].references for c in collection.cited_by[cited])


def test_bad_records_are_quarantined_with_file_and_line_and_the_rest_loads(tmp_path, source):
    lines = source.read_text().splitlines()[:20]
    broken = json.loads(lines[3])
    lines[3] = json.dumps({**broken, "title": ""})
    lines[5] = lines[5][:40]
    lines[7] = json.dumps({**json.loads(lines[7]), "year": "soon"})
    lines.append(lines[10])
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join(lines) + "\n")
    loaded = load_collection(path)
    reasons = [q.reason for q in loaded.quarantined]
    assert len(loaded.collection) == 17
    duplicate = json.loads(lines[10])["id"].casefold()
    assert reasons[0] == "bad.jsonl:4: missing title"
    assert reasons[1].startswith("bad.jsonl:6: not valid JSON (")
    assert reasons[2] == "bad.jsonl:8: year 'soon' is not a number"
    assert reasons[3].startswith(f"bad.jsonl:21: duplicate {duplicate} (first at bad.jsonl:11), doi:10.5555/")
    assert all(q.stage == "load_papers" and q.item_id.startswith("q-") for q in loaded.quarantined)


def test_unreadable_source_is_an_input_error_naming_it(tmp_path):
    (tmp_path / "notes.txt").write_text("hello")
    with pytest.raises(InputError, match="notes.txt: a paper collection must be"):
        load_collection(tmp_path / "notes.txt")
    (tmp_path / "empty.jsonl").write_text('{"title": ""}\n')
    with pytest.raises(InputError, match="no usable paper records"):
        load_collection(tmp_path / "empty.jsonl")


def test_version_follows_content_not_order_or_format(tmp_path, source, collection):
    lines = source.read_text().splitlines()
    random.Random(1).shuffle(lines)
    shuffled = tmp_path / "shuffled.jsonl"
    shuffled.write_text("\n".join(lines) + "\n")
    assert load_collection(shuffled, "papers").collection.version == collection.version
    records = [json.loads(line) for line in lines]
    as_parquet = tmp_path / "papers.parquet"
    pq.write_table(pa.Table.from_pylist(records), as_parquet)
    assert load_collection(as_parquet, "papers").collection.version == collection.version
    records[0]["abstract"] += " One more sentence."
    changed = tmp_path / "changed.jsonl"
    changed.write_text("\n".join(json.dumps(r) for r in records) + "\n")
    assert load_collection(changed, "papers").collection.version != collection.version


def test_snapshot_round_trip_and_tamper_detection(tmp_path, collection):
    relative = save_snapshot(collection, tmp_path)
    assert relative == f"collections/{collection.version}.parquet"
    assert load_snapshot(tmp_path, "papers", collection.version).papers == collection.papers
    with pytest.raises(InputError, match="no snapshot"):
        load_snapshot(tmp_path, "papers", "v-0000000000000000")


def _plain_bm25(texts: list[str], query: str, k1: float = 1.2, b: float = 0.75) -> list[float]:
    """BM25 written out term by term, to check the vectorised index against."""
    analyzer = Analyzer()
    docs = [Counter(analyzer.terms(t)) for t in texts]
    lengths = [sum(d.values()) for d in docs]
    average = sum(lengths) / len(lengths)
    scores = []
    for doc, length in zip(docs, lengths):
        score = 0.0
        for term in set(analyzer.terms(query)):
            df = sum(1 for d in docs if term in d)
            if term in doc:
                idf = math.log(1 + (len(docs) - df + 0.5) / (df + 0.5))
                score += idf * doc[term] * (k1 + 1) / (doc[term] + k1 * (1 - b + b * length / average))
        scores.append(score)
    return scores


def test_bm25_scores_match_the_formula_and_ties_break_by_document_order():
    texts = ["graph neural networks for molecules", "graph kernels", "language models for code code code",
             "molecules and proteins", "graph kernels"]
    index = BM25Index(texts)
    for query in ("graph molecules", "code", "kernels graph graph", "proteins the of"):
        expected = _plain_bm25(texts, query)
        got = dict(index.search(query, 5))
        assert set(got) == {i for i, s in enumerate(expected) if s > 0}
        assert all(abs(got[i] - expected[i]) < 1e-4 for i in got)
    assert [i for i, _ in index.search("kernels", 5)] == [1, 4]
    assert index.search("absent words", 3) == [] and index.search("", 3) == []


def test_search_and_read_tools_return_intermediate_results(collection):
    env = SearchEnvironment(collection)
    paper = next(p for p in collection.papers if p.sections and collection.cited_by.get(p.paper_id))
    hits = json.loads(env.call("search", {"query": paper.title, "k": 3}))
    assert hits["results"][0]["paper_id"] == paper.paper_id and len(hits["results"]) == 3
    assert json.loads(env.call("search", '{"query": "reaches", "k": 500}'))["k"] == 50
    meta = env.read(paper.paper_id.upper(), "metadata")
    assert meta["doi"] == paper.doi and "experiments" in meta["sections"]
    passages = env.read(paper.paper_id, "experiments")["passages"]
    assert passages[0]["passage"] == "experiments:1" and passages[0]["text"] in paper.sections[2].text
    assert {c["paper_id"] for c in env.read(paper.paper_id, "cited_by")["cited_by"]} == set(
        collection.cited_by[paper.paper_id])
    assert "error" in env.read(paper.paper_id, "appendix") and "error" in env.read("tf-nope", "abstract")
    assert "error" in json.loads(env.call("browse", {}))


def test_environment_spec_rebuilds_the_same_tools_from_the_snapshot(tmp_path, collection):
    env = SearchEnvironment(collection)
    spec = env.spec(save_snapshot(collection, tmp_path))
    assert spec["index"]["k1"] == 1.2 and spec["index"]["b"] == 0.75
    assert spec["index"]["analyzer"]["name"] == Analyzer.name
    assert [t["function"]["name"] for t in spec["tools"]] == ["search", "read"]
    assert spec["collection"] == {"collection_id": "papers", "version": collection.version,
                                  "papers": 300, "snapshot": f"collections/{collection.version}.parquet"}
    rebuilt = environment_for(spec, tmp_path)
    assert rebuilt.search("reaches accuracy CoraLite", 10) == env.search("reaches accuracy CoraLite", 10)
