"""An offline tiktoken cache, so `inspect eval` runs without a network.

Inspect AI counts tokens with tiktoken's `o200k_base` (its mock model does whenever a sample has tools), and
tiktoken downloads that file on first use from `O200K_URL` into `$TIKTOKEN_CACHE_DIR` (default
`$TMPDIR/data-gym-cache`), named by the sha1 of the URL, checking its sha256. The tiktoken wheel holds no copy;
npm's `js-tiktoken` (MIT) ships the same ranks in a compact form (`dist/ranks/o200k_base.js`). `seed` rebuilds
the file from it, refuses it unless its sha256 is the one tiktoken expects, and writes it where tiktoken looks:

    npm pack js-tiktoken@1.0.21 && tar xzf js-tiktoken-1.0.21.tgz
    python -m taskforge.store.tiktoken_cache package/dist/ranks/o200k_base.js ~/.cache/tiktoken
    export TIKTOKEN_CACHE_DIR=~/.cache/tiktoken
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

from taskforge.schemas import TaskforgeError

O200K_URL = "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken"
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
    target = cache_dir / hashlib.sha1(url.encode()).hexdigest()
    target.write_bytes(content)
    return target


if __name__ == "__main__":
    print(seed(Path(sys.argv[1]), Path(sys.argv[2]).expanduser()))
