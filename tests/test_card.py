"""The release card's licences and Hub metadata: every source's licence by its SPDX id where it is a common one
(recorded by name, or read from a repository's licence file), unknown ones shown as recorded, `other` with
`license_name`/`license_link` in the header when a licence has no Hugging Face id, and the task categories,
size category and language; the header is read by `huggingface_hub` and the configs by `datasets`."""

from __future__ import annotations

import datasets
import git
import pyarrow as pa
import pyarrow.parquet as pq
from huggingface_hub import DatasetCard

from taskforge.builders.swe.source import repository_licence
from taskforge.store.card import GENERATED, NOT_RECORDED, release_card
from taskforge.store.licences import spdx_id

MIT_TEXT = """MIT License

Copyright (c) 2026 Someone

Permission is hereby granted, free of charge, to any person obtaining a copy of this software and associated
documentation files (the "Software"), to deal in the Software without restriction, including without limitation
the rights to use, copy, modify, merge, publish, distribute, sublicense, and/or sell copies of the Software."""
BSD_TEXT = """Redistribution and use in source and binary forms, with or without modification, are permitted
provided that the following conditions are met: ... {third}THIS SOFTWARE IS PROVIDED BY THE COPYRIGHT HOLDERS
AND CONTRIBUTORS"""


def _summary(*sources: tuple[str, int]) -> dict:
    return {"kinds": {"k": sum(n for _, n in sources)},
            "sources": [{"builder": f"b{k} 1", "licence": licence, "tasks": n, "resources": [f"r{k}"]}
                        for k, (licence, n) in enumerate(sources)]}


def _card(summaries: dict[str, dict]) -> str:
    released = {family: sum(s["tasks"] for s in summary["sources"]) for family, summary in summaries.items()}
    return release_card("1.0.0", released, summaries, [], [], {}, [])


def test_licences_are_named_by_spdx_id_from_a_name_or_a_licence_text():
    assert spdx_id("MIT") == spdx_id("mit license") == spdx_id(MIT_TEXT) == "MIT"
    assert spdx_id("CC BY 4.0") == "CC-BY-4.0" and spdx_id("apache license, version 2.0") == "Apache-2.0"
    assert spdx_id(BSD_TEXT.format(third="Neither the name of the copyright holder nor ... ")) == "BSD-3-Clause"
    assert spdx_id(BSD_TEXT.format(third="")) == "BSD-2-Clause"
    assert spdx_id("Custom Research Licence v1") is None and spdx_id("") is None


def test_a_repository_licence_is_read_from_its_licence_file_at_the_commit(tmp_path):
    repo = git.Repo.init(tmp_path)
    (tmp_path / "tool.py").write_text("VALUE = 1\n")
    repo.index.add(["tool.py"])
    bare = repo.index.commit("no licence yet").hexsha
    (tmp_path / "LICENSE.txt").write_text(MIT_TEXT)
    repo.index.add(["LICENSE.txt"])
    licensed = repo.index.commit("licence").hexsha
    (tmp_path / "LICENSE.txt").write_text("All rights reserved by the authors; ask before using.")
    repo.index.add(["LICENSE.txt"])
    custom = repo.index.commit("custom licence").hexsha
    assert repository_licence(repo, bare) is None
    assert repository_licence(repo, licensed) == "MIT"
    assert repository_licence(repo, custom) == "LICENSE.txt of the repository"


def test_the_card_shows_spdx_ids_and_marks_unknown_licences_and_the_header_says_other():
    card = _card({"swe": _summary(("MIT", 3), (NOT_RECORDED, 1)), "mle": _summary(("CC BY 4.0", 2)),
                  "literature": _summary(("Custom Research Licence v1", 1)), "long_context": _summary((GENERATED, 2))})
    header = DatasetCard(card).data
    assert header.license == ["cc-by-4.0", "mit", "other"]
    assert header.license_name == "taskforge-per-source"
    assert header.license_link == "README.md#sources-and-licences" and "## Sources and licences" in card
    assert header.task_categories == ["question-answering", "text-generation"]
    assert header.size_categories == ["n<1K"] and header.language == ["en"]
    assert "| swe | b0 1 | MIT | 3 |" in card and "| swe | b1 1 | not recorded | 1 |" in card
    assert "| mle | b0 1 | CC-BY-4.0 | 2 |" in card
    assert "| literature | b0 1 | Custom Research Licence v1 (no SPDX id) | 1 |" in card
    assert f"| long_context | b0 1 | {GENERATED} | 2 |" in card


def test_a_release_of_known_licences_names_them_without_other_and_loads_with_datasets(tmp_path):
    card = _card({"swe": _summary(("MIT", 1200)), "long_context": _summary(("Apache-2.0", 9000))})
    header = DatasetCard(card).data
    assert header.license == ["apache-2.0", "mit"] and "license_name" not in header.to_dict()
    assert header.size_categories == ["10K<n<100K"]
    (tmp_path / "README.md").write_text(card)
    for folder in ("data", "envelope"):
        for family in ("swe", "long_context"):
            (tmp_path / folder / family).mkdir(parents=True)
            pq.write_table(pa.table({"task_id": [f"{family}-1", f"{family}-2"]}),
                           tmp_path / folder / family / "train-00000-of-00001.parquet")
    rows = datasets.load_dataset(str(tmp_path), "swe_envelope", split="train", cache_dir=str(tmp_path / "hf"))
    assert rows["task_id"] == ["swe-1", "swe-2"]
