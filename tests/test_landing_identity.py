"""The fast landing and screen give what the row-by-row ones gave: the same task ids and shard bytes, the same
catalog rows, the same MinHash signatures and the same decontamination matches, for the same inputs (tasks
decontaminated together get what each gets alone).

Each reference below is the earlier implementation, kept here only to compare with: rows built one task at a
time (`to_row` of the task with its check durations zeroed) and written with one `write_table`; catalog rows
built per task and per check; per-word CRC-32 shingles signed by `datasketch.MinHash`; 13-grams of regex words.
"""

from __future__ import annotations

import hashlib
import io
import random
import re
import unicodedata
import zlib

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from datasketch import MinHash

from factories import long_context_tasks
from taskforge.schemas import Message, Task, ValidationResult, arrow_schema, canonical_json, to_row
from taskforge.flows.tasks import write_decided
from taskforge.store.batches import iter_record_batches, task_batch_name, write_batch
from taskforge.store.catalog import Catalog
from taskforge.store.landing import SIGNATURE, land, land_files
from taskforge.store.manifest import verify_manifest
from taskforge.store.shards import ShardWriter
from taskforge.validators import evalsets as evalsets_module
from taskforge.validators.byte_patterns import PatternScan
from taskforge.validators.evalsets import EvalItem, EvalSet, Registry
from taskforge.validators.shingles import Words
from taskforge.validators import decontamination, near_duplicates
from taskforge.validators.decontamination import DecontaminationCheck
from taskforge.validators.near_duplicates import NUM_PERM, SCHEME, SEED, asked_text, signature, signatures
from taskforge.validators.runner import validate


def _reference_words(text: str) -> list[str]:
    return re.findall(r"[^\W_]+", unicodedata.normalize("NFKC", text).casefold())


def _reference_signature(text: str) -> bytes:
    words = [zlib.crc32(w.encode()) for w in _reference_words(text)]
    shingles = set()
    width = min(5, len(words))
    for start in range(len(words) - width + 1) if words else ():
        combined = 0
        for word in words[start:start + width]:
            combined = (combined * 1_000_003 + word) % (1 << 64)
        shingles.add((combined ^ (combined >> 32)) & 0xFFFFFFFF)
    minhash = MinHash(num_perm=NUM_PERM, seed=SEED, scheme=SCHEME, hashfunc=int)
    minhash.update_batch(sorted(shingles))
    return minhash.hashvalues.astype(np.uint32).tobytes()


def _reference_shard(tasks: list[Task]) -> bytes:
    rows = [to_row(t.model_copy(update={"validation": [v.model_copy(update={"duration_s": 0.0})
                                                         for v in t.validation]})) for t in tasks]
    sink = io.BytesIO()
    pq.write_table(pa.Table.from_pylist(rows, schema=arrow_schema(Task)), sink, compression="zstd",
                   write_statistics=True)
    return sink.getvalue()


def read_batches(paths) -> pa.Table:
    return pa.Table.from_batches([batch for path in paths for batch in iter_record_batches(path)])


def _decided(count: int) -> list[Task]:
    tasks = [validate(t) for t in long_context_tasks(count, target_tokens=2048)]
    tasks[1] = tasks[1].model_copy(update={"status": "rejected", "reasons": ["leakage: planted"]})
    return tasks


def _shard_bytes(root) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*.parquet"))}


def _reference_shards(groups: list[list[Task]], max_rows: int) -> dict[str, bytes]:
    """The shards the row-by-row landing wrote: per landed group, its accepted tasks by id, `max_rows` a shard."""
    shards = {}
    for group in groups:
        accepted = sorted((t for t in group if t.status == "accepted"), key=lambda t: t.task_id)
        for start in range(0, len(accepted), max_rows):
            chunk = accepted[start:start + max_rows]
            name = hashlib.sha256("\n".join(t.task_id for t in chunk).encode()).hexdigest()[:16]
            shards[f"long_context/part-{name}.parquet"] = _reference_shard(chunk)
    return shards


def test_shards_and_catalog_rows_are_those_of_the_row_by_row_landing(tmp_path):
    tasks = _decided(5)
    batch = write_batch(tmp_path / "decided.parquet", tasks, Task)
    halves = [write_batch(tmp_path / "decided-0.parquet", tasks[:3], Task),
              write_decided(tmp_path / task_batch_name("decided-1"), tasks[3:])]
    expected = {"objects": _reference_shards([tasks], 2),
                "files": _reference_shards([tasks[0:2], tasks[2:4], tasks[4:]], 2),
                "two files": _reference_shards([tasks[0:4], tasks[4:]], 4)}
    for way, landing in (("objects", lambda c, root: land(tasks, c, root, "cycle-1", ShardWriter(root, max_rows=2))),
                         ("files", lambda c, root: land_files([batch], c, root, "cycle-1",
                                                              ShardWriter(root, max_rows=2))),
                         ("two files", lambda c, root: land_files(halves, c, root, "cycle-1",
                                                                  ShardWriter(root, max_rows=4)))):
        with Catalog(tmp_path / f"{way}.duckdb") as catalog:
            result = landing(catalog, tmp_path / way)
            assert (result.accepted, result.rejected) == (4, 1)
            assert _shard_bytes(tmp_path / way) == expected[way]
            assert verify_manifest(tmp_path / way) == [], "recorded sizes and sha256 are those of the files"
            assert sorted(s.bytes for s in result.shards) == sorted(len(b) for b in expected[way].values())
            stored = catalog.query("SELECT * FROM validations ORDER BY task_id, position")
            landed = catalog.query("SELECT task_id, cycle_id, status, reasons, lineage FROM tasks ORDER BY task_id")
        assert stored == sorted(({**to_row(v), "task_id": t.task_id, "position": n}
                                 for t in tasks for n, v in enumerate(t.validation)),
                                key=lambda r: (r["task_id"], r["position"]))
        assert landed == [{"task_id": t.task_id, "cycle_id": t.lineage.cycle_id, "status": t.status,
                           "reasons": t.reasons, "lineage": canonical_json(t.lineage.model_dump())}
                          for t in sorted(tasks, key=lambda t: t.task_id)]


def test_the_screen_decides_the_same_whether_tasks_land_as_objects_or_from_files(tmp_path):
    from taskforge.flows.screening import landing_screen
    from taskforge.store.layout import DataDir

    tasks = _decided(4)
    original = tasks[0]
    user = original.prompt[-1].content
    copy_payload = {**original.payload, "copy": 1}
    tasks.append(original.model_copy(update={"task_id": original.task_id + "-copy", "payload": copy_payload,
                                             "prompt": [*original.prompt[:-1], Message(role="user", content=user)]}))
    decided = write_decided(tmp_path / task_batch_name("decided"), tasks)
    signed = read_batches([decided]).column(SIGNATURE.name).to_pylist()
    assert signed == [signature(asked_text(t.prompt)) if t.status == "accepted" else None for t in tasks]
    outcomes = {}
    for way, files in (("objects", None), ("files", [write_batch(tmp_path / "decided.parquet", tasks, Task)]),
                       ("signed by the validate stage", [decided])):
        data = DataDir(tmp_path / way)
        with data.open_catalog() as catalog:
            screen = landing_screen(catalog, data)
            if files is None:
                land(tasks, catalog, data.shards, "cycle-1", screen=screen.land_rows)
            else:
                land_files(files, catalog, data.shards, "cycle-1", screen=screen.land_rows)
            outcomes[way] = (catalog.query("SELECT task_id, status, reasons FROM tasks ORDER BY task_id"),
                             screen.passed, _shard_bytes(data.shards))
    assert outcomes["objects"] == outcomes["files"] == outcomes["signed by the validate stage"]
    copy = next(row for row in outcomes["objects"][0] if row["task_id"] == original.task_id + "-copy")
    assert copy["status"] == "rejected" and f"task {original.task_id}" in copy["reasons"][0]


def test_the_screen_decides_task_rows_as_it_decides_each_task_alone(tmp_path):
    from taskforge.flows.screening import landing_screen
    from taskforge.store.layout import DataDir

    tasks = _decided(5)
    original = tasks[0]
    copy = original.model_copy(update={"task_id": original.task_id + "-copy",
                                       "payload": {**original.payload, "copy": 1}})
    undecontaminated = tasks[2].model_copy(update={"validation": [v for v in tasks[2].validation
                                                                  if v.check != "decontamination"]})
    unchecked = tasks[3].model_copy(update={"validation": []})
    failed_before = tasks[4].model_copy(update={"validation": [*tasks[4].validation, ValidationResult(
        check="planted", passed=False, reason="planted")]})
    landing = [original, copy, tasks[1], undecontaminated, unchecked, failed_before]

    expected = {}
    data = DataDir(tmp_path / "alone")
    with data.open_catalog() as catalog:
        screen = landing_screen(catalog, data)
        for task in sorted(landing, key=lambda t: t.task_id):
            expected[task.task_id] = screen.land(task)
    data = DataDir(tmp_path / "rows")
    with data.open_catalog() as catalog:
        land(landing, catalog, data.shards, "cycle-1", screen=landing_screen(catalog, data).land_rows)
        landed = catalog.query("SELECT task_id, status, reasons FROM tasks ORDER BY task_id")
        stored = catalog.query("SELECT * EXCLUDE (duration_s) FROM validations ORDER BY task_id, position")
    assert landed == [{"task_id": t.task_id, "status": t.status, "reasons": t.reasons}
                      for t in sorted(expected.values(), key=lambda t: t.task_id)]
    assert stored == [{**{k: v for k, v in to_row(v).items() if k != "duration_s"}, "task_id": t.task_id, "position": n}
                      for t in sorted(expected.values(), key=lambda t: t.task_id) for n, v in enumerate(t.validation)]
    statuses = {t.task_id: t.status for t in expected.values()}
    assert statuses[copy.task_id] == statuses[failed_before.task_id] == statuses[tasks[1].task_id] == "rejected"
    assert statuses[original.task_id] == statuses[undecontaminated.task_id] == statuses[unchecked.task_id] == "accepted"
    assert [v.check for v in expected[unchecked.task_id].validation] == ["decontamination", "near_duplicate"]


def test_signatures_are_those_of_datasketch_over_per_word_shingles(monkeypatch):
    texts = ["", "one", "two words", "Hello, World! Ünïcode STRASSE — “quoted” x_y__z 12ab ﬁne",
             " ".join(f"w{n % 97}x{n % 13}" for n in range(3000)), "a " * 40 + "b" * 60]
    expected = [_reference_signature(text) for text in texts]
    assert signatures(texts) == expected
    monkeypatch.setattr(near_duplicates, "TEXT_PER_GROUP", 50)
    assert signatures(texts) == expected, "signed a few texts at a time"


def test_word_hashes_are_zlib_crc32_of_regex_words():
    rng = random.Random(5)
    alphabet = "abcXYZ019_-.# \n\tÉéßſﬁΩω中文😀\u0301İK"
    texts = ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 200))) for _ in range(200)]
    texts += ["x" * n for n in range(70)] + ["é" * 30 + " " + "ß" * 25, "a" * 47 + " " + "b" * 48 + " " + "c" * 49]
    expected = [zlib.crc32(w.encode()) for text in texts for w in _reference_words(text)]
    words = Words.of(texts)
    assert words.hashes.tolist() == expected
    assert words.bounds.tolist() == np.cumsum([0] + [len(_reference_words(text)) for text in texts]).tolist()


def test_texts_hinting_at_ids_are_those_the_string_tests_find():
    rng = random.Random(6)
    pieces = ["10.", "1", "0.", "ArXiv", "arx", "iv", ".2101", ".210", "/PULL/", "/pull", "#", "_", "__", "x", ".",
              "9", "word", " ", "\n", "é", "１０.", "٢"]
    texts = ["".join(rng.choice(pieces) for _ in range(rng.randint(0, 8))) for _ in range(3000)]
    words = Words.of(texts)
    for patterns, has in ((evalsets_module._DOI_HINTS, evalsets_module._has_doi),
                          (evalsets_module._ARXIV_HINTS, evalsets_module._has_arxiv),
                          (evalsets_module._PR_HINTS, evalsets_module._has_pr)):
        held = PatternScan(words.data, words.offsets).texts_holding(patterns)
        ascii_texts = [n for n, text in enumerate(texts) if text.isascii()]
        assert [bool(held[n]) for n in ascii_texts] == [has(texts[n], texts[n].casefold()) for n in ascii_texts]
        assert any(held) and not all(held)
    texts += ["see 10.1234/ABC.5 and arXiv:2101.01234v2", "é doi 10.5555/x-y et github.com/Org/Repo/pull/12",
              "octo/cat#7 or astropy__astropy-1234 in 2301.00001", "２１０１.０１２３４ é arxiv.org/abs/2101.01234"]
    registry = Registry([EvalSet(name="s", source="s", items=[EvalItem(item_id="i", ids=("doi:10.1/x",))])])
    everywhere = [(n, key) for n, text in enumerate(texts) for finder in (evalsets_module._dois,
                  evalsets_module._arxiv_ids, evalsets_module._prs) for key in finder(text)]
    assert list(registry._ids_in(Words.of(texts), texts)) == everywhere and len(everywhere) > 8


def test_thirteen_gram_matches_are_those_of_regex_words():
    item = " ".join(f"term{n}" for n in range(30))
    registry = Registry([EvalSet(name="s", source="s", items=[EvalItem(item_id="i", text=item)])])
    copied = "Prefix: " + " ".join(_reference_words(item)[5:25]).upper()
    fields = [("a", "unrelated words only here"), ("b", copied)]
    words = _reference_words(copied)
    first = next(" ".join(words[i:i + 13]) for i in range(len(words) - 12) if " ".join(words[i:i + 13]) in item)
    assert [(m.kind, m.where, m.value) for m in registry.matches(fields)] == [("13-gram", "b", first)]


def test_tasks_decontaminated_together_get_what_each_gets_alone(tmp_path, monkeypatch):
    rng = random.Random(0)
    vocabulary = [f"term{n}" for n in range(5000)] + ["the", "of", "and"]
    words = [rng.choice(vocabulary) for _ in range(4000)]
    items = [EvalItem(item_id=f"i{n}", text=" ".join(words[n * 90:n * 90 + 90]), ids=(f"doi:10.9999/set.{n}",),
                      canaries=(f"CANARY {n} zz",) if n < 3 else ()) for n in range(40)]
    registry = Registry([EvalSet(name="s", source="s", items=items)])
    reworded = " ".join("other" if n % 5 == 0 else word for n, word in enumerate(items[7].text.split()))
    tasks = [[("prompt", "nothing of any item here")],
             [("prompt", "Prefix " + items[3].text), ("payload", f"cites doi:10.9999/set.{4}")],
             [],
             [("a", items[3].text), ("b", "CANARY 1 zz and " + reworded)],
             [("a", " ".join(words[5:25])), ("b", "")]]
    alone = [registry.matches(fields) for fields in tasks]
    assert {m.kind for found in alone for m in found} == {"13-gram", "doi", "canary", "paraphrase"}
    assert alone[0] == alone[2] == [] and alone[1] and alone[3]
    for size in (2, 5):
        assert [m for start in range(0, len(tasks), size) for m in registry.matches_many(tasks[start:start + size])
                ] == alone, f"{size} tasks a pass"

    data_dir = tmp_path / "data"
    (data_dir / "evalsets").mkdir(parents=True)
    (data_dir / "evalsets" / "s.json").write_text(EvalSet(name="s", source="s", items=items).to_json())
    landed = _decided(4)
    planted = landed[2].model_copy(update={"prompt": [*landed[2].prompt[:-1],
                                                      Message(role="user", content=items[5].text)]})
    check = DecontaminationCheck(data_dir)
    monkeypatch.setattr(decontamination, "TEXT_PER_PASS", 3000)
    together = check.run_all([*landed, planted])
    assert together == [check.run(task) for task in [*landed, planted]]
    assert [r.passed for r in together] == [True, True, True, True, False]
