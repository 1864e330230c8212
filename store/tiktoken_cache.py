"""An offline tiktoken cache, so `inspect eval` runs without a network.

Inspect AI counts tokens with tiktoken's `o200k_base` (its mock model does whenever a sample has tools), and
tiktoken downloads that file on first use from `O200K_URL` into `$TIKTOKEN_CACHE_DIR` (default
`$TMPDIR/data-gym-cache`), named by the sha1 of the URL, checking its sha256. The tiktoken wheel holds no copy;
npm's `js-tiktoken` (MIT) ships the same ranks in a compact form (`dist/ranks/o200k_base.js`). `seed` rebuilds
the file from it, refuses it unless its sha256 is the one tiktoken expects, and writes it where tiktoken looks:

    python -m taskforge.store.tiktoken_cache ~/.cache/tiktoken      # fetches js-tiktoken with npm
    python -m taskforge.store.tiktoken_cache ~/.cache/tiktoken package/dist/ranks/o200k_base.js   # or from a copy
    export TIKTOKEN_CACHE_DIR=~/.cache/tiktoken
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

from taskforge.schemas import TaskforgeError

O200K_URL = "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken"
JS_TIKTOKEN = "js-tiktoken@1.0.21"
"""The npm package whose ranks module is read (pinned: the rebuilt file must match `O200K_SHA256`)."""
O200K_SHA256 = "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"
"""The sha256 tiktoken checks the downloaded file against (`tiktoken_ext.openai_public.o200k_base`)."""


def tiktoken_file(ranks_js: str) -> bytes:
    """The `.tiktoken` file (one `<base64 token> <rank>` line per token, by rank) of js-tiktoken's ranks module,
    whose `bpe_ranks` lines read `! <first rank> <token> <token> …`."""
    ranks = json.loads(ranks_js[ranks_js.index("{"):].rstrip().rstrip(";"))["bpe_ranks"]
    lines = []
    for group in filter(None, ranks.split("\n")):
        _, first, *tokens = group.split(" ")
        lines += [(int(first) + offset, token) for offset, token in enumerate(tokens)]
    return "".join(f"{token} {rank}\n" for rank, token in sorted(lines)).encode()


def seed(ranks_js: Path, cache_dir: Path, url: str = O200K_URL, sha256: str = O200K_SHA256) -> Path:
    """Write the encoding file rebuilt from js-tiktoken's ranks into tiktoken's cache folder; refuse a file whose
    sha256 is not the one tiktoken expects."""
    content = tiktoken_file(ranks_js.read_text(encoding="utf-8"))
    digest = hashlib.sha256(content).hexdigest()
    if digest != sha256:
        raise TaskforgeError(f"{ranks_js}: the rebuilt encoding has sha256 {digest}, tiktoken expects {sha256}")
    cache_dir.mkdir(parents=True, exist_ok=True)
    target = cached_file(cache_dir, url)
    target.write_bytes(content)
    return target


def cached_file(cache_dir: Path, url: str = O200K_URL) -> Path:
    """Where tiktoken looks for the file of `url` in `cache_dir`."""
    return cache_dir / hashlib.sha1(url.encode()).hexdigest()


def seed_from_npm(cache_dir: Path) -> Path:
    """The encoding file in `cache_dir`, rebuilt from `JS_TIKTOKEN` fetched with `npm pack` when not there yet."""
    target = cached_file(cache_dir)
    if target.is_file():
        return target
    with tempfile.TemporaryDirectory(prefix="js-tiktoken-") as folder:
        packed = subprocess.run(["npm", "pack", "--silent", JS_TIKTOKEN], cwd=folder, capture_output=True,
                                text=True)
        if packed.returncode != 0:
            raise TaskforgeError(f"npm pack {JS_TIKTOKEN} failed: {packed.stderr.strip()[-300:]}")
        with tarfile.open(Path(folder) / packed.stdout.strip().splitlines()[-1]) as archive:
            archive.extract("package/dist/ranks/o200k_base.js", folder, filter="data")
        return seed(Path(folder) / "package/dist/ranks/o200k_base.js", cache_dir)


if __name__ == "__main__":
    folder = Path(sys.argv[1]).expanduser()
    print(seed(Path(sys.argv[2]), folder) if len(sys.argv) > 2 else seed_from_npm(folder))
