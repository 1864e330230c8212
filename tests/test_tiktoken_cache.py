"""The offline tiktoken cache for `inspect eval`: an encoding rebuilt from js-tiktoken's compact ranks is written
where tiktoken's own loader finds it (no download), and one whose sha256 is not the expected one is refused."""

from __future__ import annotations

import base64
import hashlib
import json

import pytest
from tiktoken.load import load_tiktoken_bpe

from taskforge.schemas import TaskforgeError
from taskforge.store.tiktoken_cache import O200K_SHA256, O200K_URL, cached_file, seed, seed_from_npm, tiktoken_file

TOKENS = [b"a", b"b", b"ab", b" the", b"\xe2\x80"]
URL = "https://example.invalid/encodings/tiny.tiktoken"


def _ranks_js(tmp_path):
    encoded = [base64.b64encode(token).decode() for token in TOKENS]
    ranks = f"! 0 {' '.join(encoded[:3])}\n! 3 {' '.join(encoded[3:])}"
    path = tmp_path / "tiny.js"
    path.write_text("export default " + json.dumps({"pat_str": ".", "special_tokens": {}, "bpe_ranks": ranks}))
    return path


def test_a_seeded_encoding_is_loaded_by_tiktoken_from_its_cache_without_a_download(tmp_path, monkeypatch):
    ranks_js = _ranks_js(tmp_path)
    expected = hashlib.sha256(tiktoken_file(ranks_js.read_text())).hexdigest()
    written = seed(ranks_js, tmp_path / "cache", URL, expected)
    assert written.name == hashlib.sha1(URL.encode()).hexdigest()
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path / "cache"))
    assert load_tiktoken_bpe(URL, expected) == {token: rank for rank, token in enumerate(TOKENS)}


def test_an_encoding_with_another_hash_is_refused(tmp_path):
    with pytest.raises(TaskforgeError, match="tiktoken expects"):
        seed(_ranks_js(tmp_path), tmp_path / "cache", URL, "0" * 64)
    assert not (tmp_path / "cache").exists()


def test_o200k_is_rebuilt_from_npm_once_and_loaded_by_tiktoken(tmp_path, monkeypatch):
    written = seed_from_npm(tmp_path / "cache")
    assert written == cached_file(tmp_path / "cache", O200K_URL)
    assert hashlib.sha256(written.read_bytes()).hexdigest() == O200K_SHA256
    stamp = written.stat().st_mtime_ns
    assert seed_from_npm(tmp_path / "cache").stat().st_mtime_ns == stamp, "a seeded cache is not rebuilt"
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path / "cache"))
    assert len(load_tiktoken_bpe(O200K_URL, O200K_SHA256)) == 199_998
