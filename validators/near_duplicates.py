"""Near-duplicate removal with MinHash (`datasketch`): a task that asks nearly what a task already landed, an
earlier task of the same landing or release, or a task of a registered earlier release asks, is removed, and
the removal names that task.

What a task asks is the text of its non-system prompt messages (system messages are a family's shared
instructions); what it asks it of is the input files its workspace starts with, where its payload carries them
(`workspace_text`: a workflow task's `inputs`). A task's signature is the signature of what it asks followed,
where it carries input files, by the signature of those files (paths and texts). Two tasks are near-duplicates
when what they ask is near and, where both signatures carry input files, their input files are near as well: two
workflow siblings with one prompt and inputs generated apart are both kept, the same prompt over the same inputs is
one task. A task without input files (every other family) is signed and judged by its prompt alone, exactly as
before input files were signed, and so is a pair one of whose signatures carries none (signed before they were).

Each text is cut into word 5-grams of normalised words (`taskforge.validators.shingles`), each hashed to 32 bits,
signed with a 128-permutation MinHash and looked up with MinHash LSH (datasketch's bands over the asked text's
part of a signature, kept as dicts of signature bytes) at an estimated Jaccard similarity of 0.8 or more. Signing
runs in numpy end to end (`taskforge.validators.shingles` hashes the words; the permutations are datasketch's
"affine32" ones, applied to every shingle at once), and gives exactly the signature
`datasketch.MinHash.update_batch` gives for the same shingles. A task is never its own near-duplicate (a rerun, or
a later release carrying a task over, keeps it), nor its parent's or its child's: evolution derives a variant on
purpose, and its family's checks (the judge, hardness) certify that it differs.

Earlier releases are registered like evaluation sets (`taskforge decontam add RELEASE_DIR`): the signatures of
their tasks are kept in the data dir as `evalsets/<name>.minhash.parquet`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Iterable, Iterator, Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from datasketch import MinHash, MinHashLSH

from taskforge.schemas import InputError, Message, Task, ValidationResult
from taskforge.schemas.locations import Location, files_under, join, name_of, readable
from taskforge.validators.evalsets import registry_dir
from taskforge.validators.shingles import Words, ngram_hashes

SHINGLE_WORDS = 5
NUM_PERM = 128
THRESHOLD = 0.8
SEED = 1
SCHEME = "affine32"
RELEASE_SUFFIX = ".minhash.parquet"
RELEASE_MARKER = "checksums.json"
SIGNATURE_DTYPE = np.uint32
PART_BYTES = NUM_PERM * SIGNATURE_DTYPE().itemsize
"""Bytes of one signed text: a signature is the asked text's part, then the input files' part where there are any."""


def asked_text(prompt: Iterable[Message]) -> str:
    """What a task asks: its prompt without the system messages."""
    return "\n".join(m.content for m in prompt if m.role != "system")


def workspace_text(payload: dict[str, Any]) -> str:
    """The input files a task's workspace starts with, as one text of each file's path and content in path order
    ('' for a task that carries none in its payload: only the workflow family does, under `inputs`)."""
    inputs = payload.get("inputs")
    if not isinstance(inputs, dict):
        return ""
    return "\n".join(f"{path}\n{text}" for path, text in sorted(inputs.items()) if isinstance(text, str))


def asked_texts(prompts: pa.Array | pa.ChunkedArray) -> list[str]:
    """What each task asks (`asked_text`), from the prompt column of Task rows in Arrow: every message's role and
    content are read into Python once, chunk by chunk (no copy of the column is made in Arrow), and each task's
    non-system contents joined with newlines."""
    asked: list[str] = []
    for chunk in prompts.chunks if isinstance(prompts, pa.ChunkedArray) else [prompts]:
        messages = chunk.flatten()
        parts: list[list[str]] = [[] for _ in range(len(chunk))]
        for row, role, content in zip(pc.list_parent_indices(chunk).to_numpy().tolist(),
                                      pc.struct_field(messages, "role").to_pylist(),
                                      pc.struct_field(messages, "content").to_pylist()):
            if role != "system":
                parts[row].append(content)
        asked += ["\n".join(texts) for texts in parts]
    return asked


PERMUTATIONS = MinHash(num_perm=NUM_PERM, seed=SEED, scheme=SCHEME).permutations
"""The (a, b) of every permutation, as datasketch derives them from the seed (made once, not per signature)."""
_FMIX = (np.uint32(16), np.uint32(0x85EBCA6B), np.uint32(13), np.uint32(0xC2B2AE35), np.uint32(16))
_SHINGLES_PER_BLOCK = 8192
TEXT_PER_GROUP = 1 << 20


def _folded(combined: np.ndarray) -> np.ndarray:
    """64-bit shingle hashes folded to 32 bits (high half xor low half)."""
    return ((combined ^ (combined >> np.uint64(32))) & np.uint64(0xFFFFFFFF)).astype(np.uint32)


def _ranks(sizes: np.ndarray) -> np.ndarray:
    """0, 1, … within each of consecutive segments of these sizes."""
    return np.arange(int(sizes.sum())) - np.repeat(np.cumsum(sizes) - sizes, sizes)


def batch_shingles(texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """The 32-bit hashes of every text's word 5-grams, text after text, and how many each text has: each word
    is hashed once (CRC-32) and every run of five word hashes is folded polynomially to 32 bits; a text of fewer
    than five words is one shingle, a text without words has none."""
    table = Words.of(texts)
    words, bounds = table.hashes, table.bounds
    counts = np.diff(bounds)
    per_text = np.where(counts >= SHINGLE_WORDS, counts - SHINGLE_WORDS + 1, np.minimum(counts, 1))
    segment_starts = np.cumsum(per_text) - per_text
    shingles = np.empty(int(per_text.sum()), dtype=np.uint32)
    long = counts >= SHINGLE_WORDS
    if long.any():
        sizes = per_text[long]
        ranks = _ranks(sizes)
        source = np.repeat(bounds[:-1][long], sizes) + ranks
        shingles[np.repeat(segment_starts[long], sizes) + ranks] = _folded(ngram_hashes(words, SHINGLE_WORDS)[source])
    for short in np.flatnonzero((counts > 0) & ~long):
        short_words = words[bounds[short]:bounds[short + 1]]
        shingles[segment_starts[short]] = _folded(ngram_hashes(short_words, SHINGLE_WORDS))[0]
    return shingles, per_text


def _premixed(hashes: np.ndarray) -> np.ndarray:
    """The MurmurHash3 finalizer datasketch applies to every input hash before its affine permutations."""
    shift1, mult1, shift2, mult2, shift3 = _FMIX
    hashes = hashes ^ (hashes >> shift1)
    hashes = hashes * mult1
    hashes = hashes ^ (hashes >> shift2)
    hashes = hashes * mult2
    return hashes ^ (hashes >> shift3)


def segment_minhashes(hashes: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """The MinHash of each consecutive segment of 32-bit hashes (one row per segment): per permutation the least
    `a * h + b` modulo 2^32, computed for a block of hashes of all segments at once."""
    multipliers, offsets = PERMUTATIONS
    values = np.full((len(sizes), NUM_PERM), np.iinfo(SIGNATURE_DTYPE).max, dtype=SIGNATURE_DTYPE)
    ends = np.cumsum(sizes)
    starts = ends - sizes
    mixed = _premixed(hashes)
    for block in range(0, len(mixed), _SHINGLES_PER_BLOCK):
        block_end = min(block + _SHINGLES_PER_BLOCK, len(mixed))
        permuted = np.multiply.outer(multipliers, mixed[block:block_end])
        permuted += offsets[:, None]
        touched = np.arange(np.searchsorted(ends, block, side="right"), np.searchsorted(starts, block_end))
        touched = touched[sizes[touched] > 0]
        lowest = np.minimum.reduceat(permuted, np.maximum(starts[touched], block) - block, axis=1)
        values[touched] = np.minimum(values[touched], lowest.T)
    return values


def signature(text: str) -> bytes:
    """The MinHash signature of a text's word 5-grams, as bytes."""
    return signatures([text])[0]


def signatures(texts: Sequence[str]) -> list[bytes]:
    """The signature of every text, shingled and permuted together a group of texts of about `TEXT_PER_GROUP`
    characters at a time (numpy's per-call cost paid once a group; the arrays stay small enough to reuse)."""
    signed: list[bytes] = []
    start = 0
    while start < len(texts):
        end, size = start, 0
        while end < len(texts) and (end == start or size + len(texts[end]) <= TEXT_PER_GROUP):
            size += len(texts[end])
            end += 1
        shingles, sizes = batch_shingles(texts[start:end])
        signed += [values.tobytes() for values in segment_minhashes(shingles, sizes)]
        start = end
    return signed


def screened_signatures(asked: Sequence[str], workspaces: Sequence[str]) -> list[bytes]:
    """The signature of each task known by its asked text and its workspace text (`workspace_text`): the asked
    text's signature, followed by the workspace text's where there is one (asked texts signed together, workspace
    texts together)."""
    with_inputs = [n for n, text in enumerate(workspaces) if text]
    inputs_signed = dict(zip(with_inputs, signatures([workspaces[n] for n in with_inputs])))
    return [signed + inputs_signed.get(n, b"") for n, signed in enumerate(signatures(asked))]


def task_signatures(tasks: Sequence[Task]) -> list[bytes]:
    """The signature of each task: what it asks and, where it carries them, its input files."""
    return screened_signatures([asked_text(task.prompt) for task in tasks],
                               [workspace_text(task.payload) for task in tasks])


def accepted_signatures(tasks: Sequence[Task]) -> pa.Array:
    """The signature of each accepted task (`task_signatures`), null for the others (signed together): what a
    decided batch file carries for the landing screen (`taskforge.store.landing.SIGNATURE`)."""
    accepted = [n for n, task in enumerate(tasks) if task.status == "accepted"]
    signed = dict(zip(accepted, task_signatures([tasks[n] for n in accepted])))
    return pa.array([signed.get(n) for n in range(len(tasks))], type=pa.binary())


@dataclass(frozen=True)
class Near:
    """A task found too close to another: which one, where it comes from, the estimated Jaccard similarity."""

    task_id: str
    origin: str
    jaccard: float

    def describe(self) -> str:
        """The match in words, for a check's reason."""
        return f"asks nearly what task {self.task_id} ({self.origin}) asks: estimated Jaccard {self.jaccard}"


@cache
def _lsh_bands() -> tuple[int, int]:
    """The bands and rows datasketch picks for the threshold (it integrates to find them: worked out once)."""
    lsh = MinHashLSH(threshold=THRESHOLD, num_perm=NUM_PERM)
    return lsh.b, lsh.r


def _estimate(ours: bytes, theirs: bytes) -> float:
    """The Jaccard similarity two signatures of one text each estimate (the share of equal values), as
    `MinHash.jaccard` gives it."""
    equal = np.frombuffer(ours, dtype=SIGNATURE_DTYPE) == np.frombuffer(theirs, dtype=SIGNATURE_DTYPE)
    return float(np.count_nonzero(equal)) / NUM_PERM


def jaccard(ours: bytes, theirs: bytes) -> float:
    """The Jaccard similarity two task signatures estimate: that of the asked texts or, where both signatures
    carry input files, the lesser of it and that of the input files."""
    if len(ours) > PART_BYTES and len(theirs) > PART_BYTES:
        return min(_estimate(ours[:PART_BYTES], theirs[:PART_BYTES]),
                   _estimate(ours[PART_BYTES:], theirs[PART_BYTES:]))
    return _estimate(ours[:PART_BYTES], theirs[:PART_BYTES])


class NearDuplicateIndex:
    """Signatures of known tasks (with their parent task, if any) in an LSH index; each task id is held once
    (its first origin).

    The index is datasketch's `MinHashLSH` banding done on the signature bytes: the bands and rows datasketch
    picks for the threshold, and a task a candidate of another when one band of their signatures is equal. A
    lookup is a few dict lookups, with no MinHash object made per task.
    """

    def __init__(self) -> None:
        bands, rows = _lsh_bands()
        width = rows * SIGNATURE_DTYPE().itemsize
        self.bands = [(band * width, (band + 1) * width) for band in range(bands)]
        self.tables: list[dict[bytes, list[str]]] = [{} for _ in self.bands]
        self.entries: dict[str, tuple[str, bytes, str | None]] = {}

    def __len__(self) -> int:
        return len(self.entries)

    def add(self, task_id: str, origin: str, signature_bytes: bytes, parent: str | None = None) -> None:
        """Index a task's signature (a task id already held is kept as it was)."""
        if task_id in self.entries:
            return
        self.entries[task_id] = (origin, signature_bytes, parent)
        for (start, end), table in zip(self.bands, self.tables):
            table.setdefault(signature_bytes[start:end], []).append(task_id)

    def near(self, task_id: str, signature_bytes: bytes, parent: str | None = None) -> list[Near]:
        """Other tasks, not the task itself, its parent or its children, whose estimated Jaccard similarity
        with this signature reaches the threshold, closest first."""
        candidates = {other for (start, end), table in zip(self.bands, self.tables)
                      for other in table.get(signature_bytes[start:end], ())}
        found = []
        for other in candidates:
            origin, theirs, their_parent = self.entries[other]
            if task_id in (other, their_parent) or other == parent:
                continue
            similarity = round(jaccard(signature_bytes, theirs), 3)
            if similarity >= THRESHOLD:
                found.append(Near(other, origin, similarity))
        return sorted(found, key=lambda n: (-n.jaccard, n.task_id))


class NearDuplicateCheck:
    """Fails a task that is a near-duplicate (what it asks, of which input files) of a task in the index; a task
    it passes joins the index under `origin`, so it runs on tasks one at a time and, of two near-duplicates, keeps
    the first."""

    name = "near_duplicate"

    def __init__(self, index: NearDuplicateIndex, origin: str):
        self.index = index
        self.origin = origin
        self.passed: dict[str, tuple[str, bytes]] = {}

    def applies_to(self, task: Task) -> bool:
        return True

    def run(self, task: Task) -> ValidationResult:
        return self.judge(task.task_id, task.family, task.lineage.parent_task_id, task_signatures([task])[0])

    def judge(self, task_id: str, family: str, parent: str | None, signed: bytes) -> ValidationResult:
        """The result of a task known by its id, family, parent task id and signature (as `run` gives it)."""
        near = self.index.near(task_id, signed, parent)
        if not near:
            self.index.add(task_id, self.origin, signed, parent)
            self.passed[task_id] = (family, signed)
        return ValidationResult(
            check=self.name, passed=not near, score=near[0].jaccard if near else 0.0,
            reason="; ".join(n.describe() for n in near[:3]) or None,
            detail={"threshold": THRESHOLD,
                    "matches": [{"task_id": n.task_id, "origin": n.origin, "jaccard": n.jaccard} for n in near]},
        )


def _release_rows(folder: Path) -> Iterator[tuple[str, str, str | None, str, str]]:
    """(task id, family, parent task id, asked text, workspace text) of every RL row of a taskforge release
    folder."""
    files = sorted((folder / "data").glob("*/*.parquet"))
    if not (folder / RELEASE_MARKER).is_file() or not files:
        raise InputError(folder.name, f"not a taskforge release folder (needs {RELEASE_MARKER} and data/*/*.parquet)")
    for path in files:
        for row in pq.read_table(path, columns=["prompt", "extra_info"]).to_pylist():
            prompt = [Message(role=m["role"], content=m["content"]) for m in row["prompt"]]
            info = row["extra_info"]
            payload = json.loads(info["payload"]) if info.get("payload") else {}
            yield (info["task_id"], info["family"], info.get("parent_task_id"), asked_text(prompt),
                   workspace_text(payload))


RELEASE_SIGNATURES = pa.schema([("task_id", pa.string()), ("family", pa.string()), ("parent_task_id", pa.string()),
                                ("signature", pa.binary())])


def release_signatures(folder: Path) -> pa.Table:
    """The signatures of an earlier release's tasks (RL rows under `data/`), to register as references."""
    rows = list(_release_rows(Path(folder)))
    signed = screened_signatures([row[3] for row in rows], [row[4] for row in rows])
    return pa.Table.from_pylist([{"task_id": task_id, "family": family, "parent_task_id": parent, "signature": sig}
                                 for (task_id, family, parent, *_), sig in zip(rows, signed)],
                                schema=RELEASE_SIGNATURES)


def release_signatures_path(data_dir: Location, name: str) -> Location:
    """Where a registered earlier release's signatures are kept."""
    return join(registry_dir(data_dir), f"{name}{RELEASE_SUFFIX}")


def registered_releases(data_dir: Location | None) -> Iterator[tuple[str, str, bytes, str | None]]:
    """(release name, task id, signature, parent task id) of every registered earlier release of a data dir."""
    for path in files_under(registry_dir(data_dir), RELEASE_SUFFIX) if data_dir else []:
        name = name_of(path).removesuffix(RELEASE_SUFFIX)
        with readable(path) as source:
            rows = pq.read_table(source).to_pylist()
        for row in rows:
            yield name, row["task_id"], row["signature"], row["parent_task_id"]


def release_summaries(data_dir: Location) -> list[dict[str, object]]:
    """Each registered earlier release with its number of tasks."""
    counts: dict[str, int] = {}
    for name, *_ in registered_releases(data_dir):
        counts[name] = counts.get(name, 0) + 1
    return [{"name": name, "tasks": n} for name, n in sorted(counts.items())]
