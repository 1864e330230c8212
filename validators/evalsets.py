"""Registered evaluation sets: what no training task may contain, and how a task is matched against them.

Default sets ship in the checkout's `data/evalsets/` (SWE-bench Verified instances, MLE-bench competitions,
LitQA2's held-out question ids and papers: see the README there for versions, sources and licences) and are
always registered; the data dir's `evalsets/` folder adds the sets a user registers (a set there with a
default's name replaces that default).

An evaluation set is registered from a file, either records (JSONL, a JSON list or Parquet, with an id,
external ids such as `doi`, `arxiv_id`, `pr`, `instance_id`, `competition_id`, texts such as `question` or
`abstract`, and an optional `canary`) or a plain list with one id a line (`doi:`, `arxiv:`, `pr:`,
`competition:` or `canary:` prefixes; DOIs, arXiv ids and pull requests are also recognised bare).

A task matches an item by
- an exact normalised id found anywhere in it (DOI, arXiv id, pull request or SWE-bench instance, competition);
- a canary string, as its words in order;
- its 13-grams of normalised words: at least `COPIED_SHARE` of them (13-grams that several items share are
  the set's boilerplate and count for none);
- a paraphrase: at least `PARAPHRASE_SHARE` of the item's distinctive word pairs (two words at most
  `PAIR_SPAN` apart that are not both stopwords, each pair weighing 1 / the number of items holding it, so a
  set's stock phrases weigh little) within one window of consecutive words of one text of the task, twice as
  long as the item (and at least `MIN_WINDOW_WORDS`), so many texts of the same topics put together do not add
  up to one. A quarter of the words replaced leaves about half of the pairs; pairing words with one word
  between them as well as next words doubles the pairs an item has, so that half varies less from one
  paraphrase to another and the share asked can be lower without naming an item's same-topic siblings.
Words are hashed in numpy (`taskforge.validators.shingles`); no Python loop visits a word of the task.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable, Iterator

import numpy as np
import pyarrow.parquet as pq

from taskforge.graders.paper_ids import arxiv_ids_in, dois_in, normalise_arxiv, normalise_doi
from taskforge.schemas import InputError
from taskforge.schemas.locations import Location, change_key, files_under, join, read_text
from taskforge.validators.byte_patterns import DIGITS, BytePattern, PatternScan
from taskforge.validators.shingles import NGRAM_MIXER, Words, ngram_hashes

REGISTRY_FOLDER = "evalsets"
DEFAULTS_DIR = Path(__file__).resolve().parents[1] / "data" / "evalsets"
NGRAM = 13
MIN_WINDOW_WORDS = 128
"""Paraphrase windows are twice an item's length (at least this), one starting every half window, so a
paraphrase of the item lies inside one."""
PAIR_SPAN = 2
"""Word pairs are formed by words up to this far apart (next words, and words with one word between them)."""
PARAPHRASE_SHARE = 0.38
MIN_PAIRS = 8 * PAIR_SPAN
"""An item with fewer distinctive word pairs is only matched exactly (ids, canaries, 13-grams)."""
COPIED_SHARE = 0.2
"""A text copies an item when it holds at least this share of the item's 13-grams: all of a short question,
a fifth of a long description (a shared sentence of boilerplate is not a copy)."""
COMMON_GRAM_ITEMS = 1
"""A 13-gram shared by more items than this is boilerplate of the set (a competition's rules, a licence line),
not something that identifies an item."""
COMMON_PAIR_ITEMS = 32
"""A word pair shared by more items than this says next to nothing about which item a text paraphrases (a pair
counts 1 / the number of items holding it, so these are left out of the index)."""
STOPWORDS = (
    "a about above after again against all am an and any are as at be because been before being below between "
    "both but by can could did do does doing down during each few for from further had has have having he her "
    "here hers him his how i if in into is it its itself just me more most my no nor not now of off on once only "
    "or other our out over own same she should so some such than that the their them then there these they this "
    "those through to too under until up very was we were what when where which while who whom why will with "
    "would you your")
ID_KINDS = ("doi", "arxiv", "pr", "competition")
ID_FIELDS = {"doi": "doi", "arxiv_id": "arxiv", "arxiv": "arxiv", "pr": "pr", "instance_id": "pr",
             "competition_id": "competition", "competition": "competition"}
TEXT_FIELDS = ("text", "title", "abstract", "question", "answer", "passage", "context", "problem_statement")
_NAME = re.compile(r"^[\w.-]+$")
_PR_PATTERNS = (
    ("/pull/", re.compile(r"github\.com/([\w.-]+)/([\w.-]+)/pull/(\d+)", re.IGNORECASE)),
    ("#", re.compile(r"(?<![\w./-])([\w.-]+)/([\w.-]+)#(\d+)\b")),
    ("__", re.compile(r"(?<![\w.-])([\w.-]+)__([\w.-]+)-(\d+)\b")),
)
"""Each pull-request pattern with a literal its matches contain: a text without it is not scanned."""


def prs_in(text: str) -> set[str]:
    """Pull requests named in text (GitHub URLs, `owner/repo#N`, SWE-bench `owner__repo-N`), as `owner/repo#n`."""
    lowered = text.casefold()
    return {f"{m[1]}/{m[2]}#{m[3]}".casefold() for marker, pattern in _PR_PATTERNS if marker in lowered
            for m in pattern.finditer(text)}


def _normalised(kind: str, value: str) -> str | None:
    if kind == "doi":
        return normalise_doi(value)
    if kind == "arxiv":
        return normalise_arxiv(value)
    if kind == "pr":
        found = prs_in(value.strip())
        return next(iter(found)) if len(found) == 1 else None
    return value.strip().casefold() or None


def classify(value: str) -> str:
    """An id line as `kind:normalised` (kinds: doi, arxiv, pr, competition, canary); ValueError when unclear."""
    prefix, sep, rest = value.strip().partition(":")
    kind = prefix.strip().casefold()
    if sep and kind == "canary":
        if not rest.strip():
            raise ValueError("empty canary string")
        return f"canary:{rest.strip()}"
    if sep and kind in ID_KINDS:
        normalised = _normalised(kind, rest)
        if normalised is None:
            raise ValueError(f"{rest.strip()!r} is not a valid {kind} id")
        return f"{kind}:{normalised}"
    for kind in ("doi", "arxiv", "pr"):
        normalised = _normalised(kind, value)
        if normalised:
            return f"{kind}:{normalised}"
    raise ValueError(f"cannot tell what kind of id {value.strip()!r} is; prefix it with doi:, arxiv:, pr:, "
                     f"competition: or canary:")


@dataclass(frozen=True)
class EvalItem:
    """One item of an evaluation set: its id, the normalised external ids, its text, its canary strings."""

    item_id: str
    ids: tuple[str, ...] = ()
    text: str = ""
    canaries: tuple[str, ...] = ()


@dataclass
class EvalSet:
    """A registered evaluation set, with the version, source and licence of what it holds."""

    name: str
    source: str
    items: list[EvalItem] = field(default_factory=list)
    version: str = ""
    licence: str = ""

    def summary(self) -> dict[str, Any]:
        """Counts of what the set holds, with its version and licence."""
        return {"name": self.name, "source": self.source, "version": self.version, "licence": self.licence,
                "items": len(self.items), "ids": sum(len(i.ids) for i in self.items),
                "texts": sum(1 for i in self.items if i.text), "canaries": sum(len(i.canaries) for i in self.items)}

    def to_json(self) -> str:
        return json.dumps({"name": self.name, "source": self.source, "version": self.version, "licence": self.licence,
                           "items": [asdict(i) for i in self.items]}, ensure_ascii=False, sort_keys=True, indent=1)

    @classmethod
    def from_json(cls, text: str) -> "EvalSet":
        """A set from its registry file (fields of an item beyond id, ids, text and canaries are descriptive)."""
        data = json.loads(text)
        items = [EvalItem(item_id=i["item_id"], ids=tuple(i["ids"]), text=i["text"], canaries=tuple(i["canaries"]))
                 for i in data["items"]]
        return cls(name=data["name"], source=data["source"], items=items, version=data.get("version", ""),
                   licence=data.get("licence", ""))


def _item_from_record(record: Any, fallback_id: str) -> EvalItem:
    if not isinstance(record, dict):
        raise ValueError(f"a record must be an object, not {type(record).__name__}")
    ids = [classify(f"{kind}:{record[key]}") for key, kind in ID_FIELDS.items() if record.get(key)]
    extra = record.get("ids") or []
    if not isinstance(extra, list):
        raise ValueError("ids must be a list")
    ids += [classify(str(value)) for value in extra]
    texts = [record[key] for key in TEXT_FIELDS if isinstance(record.get(key), str) and record[key].strip()]
    canary = record.get("canary")
    item_id = str(record.get("id") or record.get("item_id") or record.get("instance_id") or fallback_id)
    if not ids and not texts and not canary:
        raise ValueError("the record has no id, text or canary to match")
    return EvalItem(item_id=item_id, ids=tuple(dict.fromkeys(i for i in ids if not i.startswith("canary:"))),
                    text="\n".join(texts),
                    canaries=tuple([canary] if canary else []) + tuple(i[7:] for i in ids if i.startswith("canary:")))


def _records(path: Path) -> Iterator[tuple[str, Any]]:
    name = path.name
    if path.suffix == ".parquet":
        try:
            rows = pq.read_table(path).to_pylist()
        except Exception as exc:  # pyarrow raises several types for corrupt files
            raise InputError(name, f"unreadable Parquet file ({exc})") from exc
        yield from ((f"{name}: row {n}", row) for n, row in enumerate(rows, start=1))
    elif path.suffix == ".json":
        try:
            records = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise InputError(name, f"not valid JSON ({exc})") from exc
        if not isinstance(records, list):
            raise InputError(name, "a JSON evaluation set must be a list of records")
        yield from ((f"{name}: record {n}", r) for n, r in enumerate(records, start=1))
    else:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if line.strip():
                try:
                    yield f"{name}:{number}", json.loads(line)
                except json.JSONDecodeError as exc:
                    raise InputError(f"{name}:{number}", f"not valid JSON ({exc.msg})") from exc


def _id_lines(path: Path) -> Iterator[EvalItem]:
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            key = classify(line)
        except ValueError as exc:
            raise InputError(f"{path.name}:{number}", str(exc)) from exc
        yield (EvalItem(item_id=line.strip(), canaries=(key[7:],)) if key.startswith("canary:")
               else EvalItem(item_id=line.strip(), ids=(key,)))


def read_evalset(path: Path, name: str | None = None) -> EvalSet:
    """Parse an evaluation set file; any bad line fails the whole registration (InputError naming file and line),
    since a partly registered set would let its other items through."""
    path = Path(path)
    if not path.is_file():
        raise InputError(path.name, "no such file")
    name = name or path.stem
    if not _NAME.match(name):
        raise InputError(path.name, f"set name {name!r} may only hold letters, digits, '.', '_' and '-'")
    if path.suffix in (".jsonl", ".json", ".parquet"):
        items = []
        for where, record in _records(path):
            try:
                items.append(_item_from_record(record, where))
            except ValueError as exc:
                raise InputError(where, str(exc)) from exc
    else:
        items = list(_id_lines(path))
    if not items:
        raise InputError(path.name, "no evaluation items")
    return EvalSet(name=name, source=path.name, items=items)


def registry_dir(data_dir: Location) -> Path | str:
    """The folder of registered evaluation sets in a data dir (a local path or an fsspec URL)."""
    return join(data_dir, REGISTRY_FOLDER)


@dataclass(frozen=True)
class Match:
    """A task's overlap with one evaluation item."""

    set_name: str
    item_id: str
    kind: str
    value: str
    where: str

    def describe(self) -> str:
        return (f"{self.kind} {self.value!r} in {self.where} matches evaluation set {self.set_name!r} "
                f"item {self.item_id!r}")


_STOPWORD_HASHES = np.sort(Words.of([STOPWORDS]).hashes)
_LOW_MASK = np.uint32(0xFFFF)
_STOPWORD_LOW = np.zeros(1 << 16, dtype=bool)
_STOPWORD_LOW[_STOPWORD_HASHES & _LOW_MASK] = True
"""Whether any stopword's hash has these low 16 bits: most words that are not stopwords are told in one lookup."""
_ARXIV_HINT = re.compile(r"\.\d{4}")
"""A new-style arXiv id (`2101.01234`) has a dot and four digits: a text without them is not scanned."""


def _has_doi(text: str, lowered: str) -> bool:
    return "10." in text


def _has_arxiv(text: str, lowered: str) -> bool:
    return "arxiv" in lowered or _ARXIV_HINT.search(text) is not None


def _has_pr(text: str, lowered: str) -> bool:
    return any(marker in lowered for marker, _ in _PR_PATTERNS)


_DOI_HINTS = (BytePattern.literal(b"10.", anchor=2),)
_ARXIV_HINTS = (BytePattern.literal(b"arxiv", anchor=2), BytePattern((b".", DIGITS, DIGITS, DIGITS, DIGITS), anchor=0))
_PR_HINTS = (BytePattern.literal(b"/pull/", anchor=0), BytePattern.literal(b"#", anchor=0),
             BytePattern.literal(b"__", anchor=0))
"""What `_has_doi`, `_has_arxiv` and `_has_pr` look for, as patterns of a casefolded ASCII text's bytes."""


def _dois(text: str) -> Iterator[str]:
    return (f"doi:{d}" for d in dois_in(text))


def _arxiv_ids(text: str) -> Iterator[str]:
    return (f"arxiv:{a}" for a in arxiv_ids_in(text))


def _prs(text: str) -> Iterator[str]:
    return (f"pr:{p}" for p in prs_in(text))


_KIND_ORDER = {"doi": 0, "arxiv": 1, "pr": 2, "competition": 3, "canary": 4, "13-gram": 5, "paraphrase": 6}
_BITMAP_BITS = (10, 25)
"""Least and most bits of a key set's bitmap: about 32 slots a key, so a small set's bitmap stays in the CPU
cache and one of millions of keys (4 MB at most) turns away all but a few percent of the values that are not
keys. With 16 a key, the 800,000 word pairs of 2,000 registered items let twice as many values through to the
binary search, which cost more than the larger bitmap's cache misses (lookups 0.19 against 0.14 CPU s for
9 million values)."""
_SLOTS_PER_KEY = 32


def _spread(keys: np.ndarray, bits: int) -> np.ndarray:
    """A bitmap slot for every key: the top `bits` bits of the key times an odd 64-bit constant (Fibonacci
    hashing), so keys that differ only in their low bits still spread."""
    return (keys * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(64 - bits)


class _Keys:
    """Sorted 64-bit keys, each with an owner (a key may have several), behind a bitmap of their top bits so most
    values that are not keys are turned away with one lookup."""

    def __init__(self, keys: np.ndarray, owners: np.ndarray):
        order = np.lexsort((owners, keys))
        self.keys, self.owners = keys[order].astype(np.uint64), owners[order]
        least, most = _BITMAP_BITS
        self.bits = min(max(int(len(self.keys) * _SLOTS_PER_KEY).bit_length(), least), most)
        self.bitmap = np.zeros(1 << (self.bits - 3), dtype=np.uint8)
        top = _spread(self.keys, self.bits)
        np.bitwise_or.at(self.bitmap, top >> np.uint64(3), np.left_shift(1, top & np.uint64(7)).astype(np.uint8))

    def hits(self, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(index into `values`, owner) of every value that is a key, once per owner, in value order."""
        top = _spread(values, self.bits)
        maybe = np.flatnonzero((self.bitmap[top >> np.uint64(3)] >> (top & np.uint64(7)).astype(np.uint8)) & 1)
        candidates = values[maybe]
        left = np.searchsorted(self.keys, candidates, side="left")
        present = self.keys[np.minimum(left, len(self.keys) - 1)] == candidates
        maybe, left, candidates = maybe[present], left[present], candidates[present]
        counts = np.searchsorted(self.keys, candidates, side="right") - left
        found = np.repeat(maybe, counts)
        ranks = np.arange(len(found)) - np.repeat(np.cumsum(counts) - counts, counts)
        return found, self.owners[np.repeat(left, counts) + ranks]


def _distinct_rows(*columns: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct rows of equal-length integer columns in lexicographic order (what `np.unique(np.stack(
    columns), axis=1)` gives, without its structured-array overhead): the position of one occurrence of each,
    and the distinct row every row is."""
    order = np.lexsort(columns[::-1])
    new = np.ones(len(order), dtype=bool)
    for column in columns:
        ordered = column[order]
        new[1:] &= ordered[1:] == ordered[:-1]
    new[1:] = ~new[1:]
    inverse = np.empty(len(order), dtype=np.int64)
    inverse[order] = np.cumsum(new) - 1
    return order[new], inverse


def _runs(words: Words, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Hashes of every run of `n` words that lies inside one text, and the position of its first word."""
    if len(words.hashes) < n:
        return np.empty(0, dtype=np.uint64), np.empty(0, dtype=np.int64)
    hashes = ngram_hashes(words.hashes, n)
    inside = np.ones(len(hashes), dtype=bool)
    crossing = (words.bounds[1:-1, None] - np.arange(1, n)).ravel()
    inside[crossing[(crossing >= 0) & (crossing < len(hashes))]] = False
    return hashes[inside], np.flatnonzero(inside)


def _pairs(words: Words) -> tuple[np.ndarray, np.ndarray]:
    """Distinctive word pairs (not two stopwords) of words up to `PAIR_SPAN` apart inside one text, and the
    position of their first word. A pair's key is its two words in order, however far apart, so a word put
    between two next words keeps their pair."""
    stop = _STOPWORD_LOW[words.hashes & _LOW_MASK]
    maybe = np.flatnonzero(stop)
    places = np.minimum(np.searchsorted(_STOPWORD_HASHES, words.hashes[maybe]), len(_STOPWORD_HASHES) - 1)
    stop[maybe] = _STOPWORD_HASHES[places] == words.hashes[maybe]
    hashes = words.hashes.astype(np.uint64)
    keys, firsts = [], []
    for gap in range(1, min(PAIR_SPAN, len(hashes) - 1) + 1):
        count = len(hashes) - gap
        keep = ~(stop[:count] & stop[gap:])
        crossing = (words.bounds[1:-1, None] - np.arange(1, gap + 1)).ravel()
        keep[crossing[(crossing >= 0) & (crossing < count)]] = False
        first = np.flatnonzero(keep)
        keys.append(hashes[first] * NGRAM_MIXER + hashes[first + gap])
        firsts.append(first)
    if not keys:
        return np.empty(0, dtype=np.uint64), np.empty(0, dtype=np.int64)
    return np.concatenate(keys), np.concatenate(firsts)


@dataclass(frozen=True)
class _Phrases:
    """Phrases (canaries, competition ids) as their word hashes, indexed by their first word: a text's words that
    start a phrase are found in one lookup (most words that do not are told by the low 16 bits of their hash
    alone), and only those are compared word by word."""

    words: Words
    first: _Keys
    first_low: np.ndarray

    @classmethod
    def of(cls, phrases: list[str]) -> "_Phrases":
        words = Words.of(phrases)
        starts = words.bounds[:-1][np.diff(words.bounds) > 0]
        first_low = np.zeros(1 << 16, dtype=bool)
        first_low[words.hashes[starts] & _LOW_MASK] = True
        return cls(words, _Keys(words.hashes[starts].astype(np.uint64), words.text_ids[starts]), first_low)

    def found(self, text: Words) -> Iterator[tuple[int, int]]:
        """(position in `text`, phrase index) of every phrase whose words run, in order, inside one text."""
        maybe = np.flatnonzero(self.first_low[text.hashes & _LOW_MASK])
        index, owner = self.first.hits(text.hashes[maybe].astype(np.uint64))
        for position, phrase in zip(maybe[index], owner):
            start, end = int(self.words.bounds[phrase]), int(self.words.bounds[phrase + 1])
            last = int(position) + end - start
            if (last <= len(text.hashes) and text.text_ids[position] == text.text_ids[last - 1]
                    and np.array_equal(text.hashes[position:last], self.words.hashes[start:end])):
                yield int(position), int(phrase)


class Registry:
    """Every registered set, indexed for matching: ids, canaries, 13-grams and distinctive word pairs."""

    def __init__(self, sets: list[EvalSet]):
        self.sets = sets
        self.owners: list[tuple[str, str]] = [(s.name, item.item_id) for s in sets for item in s.items]
        items = [item for s in sets for item in s.items]
        self.ids: dict[str, tuple[str, str]] = {}
        self.canaries: dict[str, tuple[str, str]] = {}
        for owner, item in zip(self.owners, items):
            for key in item.ids:
                self.ids.setdefault(key, owner)
            for canary in item.canaries:
                self.canaries.setdefault(canary, owner)
        self.competitions = sorted(key.split(":", 1)[1] for key in self.ids if key.startswith("competition:"))
        self._canary_list = list(self.canaries)
        self._canary_phrases = _Phrases.of(self._canary_list)
        self._competition_phrases = _Phrases.of(self.competitions)
        self._competition = re.compile(rf"(?<![\w.-])[.-]*({'|'.join(map(re.escape, self.competitions))})[.-]*"
                                       rf"(?![\w.-])") if self.competitions else None
        self._index_texts([item.text for item in items])

    def _index_texts(self, texts: list[str]) -> None:
        """13-grams held by one item, each item's number of 13-grams, and distinctive pairs with every item
        holding them and their weight (pairs held by more than `COMMON_PAIR_ITEMS` items, and items left with
        fewer than `MIN_PAIRS`, are dropped)."""
        words = Words.of(texts)
        grams, first = _runs(words, NGRAM)
        held = np.unique(np.stack([grams, words.text_of(first).astype(np.uint64)]), axis=1)
        self._gram_totals = np.bincount(held[1].astype(np.int64), minlength=len(texts))
        _, holders = np.unique(held[0], return_counts=True)
        grams, index = np.unique(grams, return_index=True)
        alone = holders <= COMMON_GRAM_ITEMS
        self._grams = _Keys(grams[alone], words.text_of(first[index])[alone])
        pairs, first = _pairs(words)
        keyed = np.unique(np.stack([pairs, words.text_of(first).astype(np.uint64)]), axis=1)
        pairs, owner = keyed[0], keyed[1].astype(np.int64)
        distinct, inverse, holders = np.unique(pairs, return_inverse=True, return_counts=True)
        keep = holders[inverse] <= COMMON_PAIR_ITEMS
        keep &= np.bincount(owner[keep], minlength=len(texts))[owner] >= MIN_PAIRS
        self._pair_keys, self._pair_weights = distinct, 1.0 / holders
        self._pair_totals = np.bincount(owner[keep], weights=self._pair_weights[inverse][keep], minlength=len(texts))
        self._pairs = _Keys(pairs[keep], owner[keep])
        self._window_steps = np.maximum(np.diff(words.bounds), MIN_WINDOW_WORDS // 2)

    def _ids_in(self, words: Words, texts: list[str]) -> Iterator[tuple[int, str]]:
        """(text, `kind:normalised`) of every DOI, arXiv id and pull request written in the texts: only texts
        holding the literal every id of a kind holds are scanned for that kind (looked for in the normalised bytes
        of ASCII texts, which are the texts casefolded, all at once; in the others one by one)."""
        lowered = {number: text.casefold() for number, text in enumerate(texts) if not text.isascii()}
        scan = PatternScan(words.data, words.offsets)
        hinted = []
        for finder, has, patterns in ((_dois, _has_doi, _DOI_HINTS), (_arxiv_ids, _has_arxiv, _ARXIV_HINTS),
                                      (_prs, _has_pr, _PR_HINTS)):
            held = scan.texts_holding(patterns)
            held[list(lowered)] = [has(texts[number], text) for number, text in lowered.items()]
            hinted.append((finder, held))
        for number in np.flatnonzero(np.any([held for _, held in hinted], axis=0)).tolist():
            yield from ((number, key) for finder, held in hinted if held[number] for key in finder(texts[number]))

    def _competitions_in(self, words: Words, texts: list[str]) -> Iterator[tuple[int, int, str]]:
        """(text, position, competition) of every competition id written as a token (a run of letters, digits,
        '.' and '-', less leading and trailing '.' and '-'): candidates are runs of its words, kept where the
        casefolded text holds the id itself between token boundaries; a text outside ASCII is scanned whole."""
        for position, owner in self._competition_phrases.found(words):
            competition = self.competitions[owner]
            start = int(words.starts[position])
            end = start + len(competition)
            number = int(words.text_of(position))
            if (texts[number].isascii() and bytes(words.data[start:end]).decode() == competition
                    and not _TOKEN_END.search(bytes(words.data[max(start - 64, 0):start]).rstrip(b".-"))
                    and not _TOKEN_START.match(bytes(words.data[end:end + 64]).lstrip(b".-"))):
                yield number, position, competition
        for number, text in enumerate(texts):
            if self._competition and not text.isascii():
                yield from ((number, 0, m.group(1)) for m in self._competition.finditer(text.casefold()))

    def matches(self, fields: Iterable[tuple[str, str]]) -> list[Match]:
        """Every (evaluation item, way) a task's text fields overlap, once per item and way: the first place
        (field, then kind, then position) it is found."""
        return self.matches_many([fields])[0]

    def matches_many(self, tasks: Iterable[Iterable[tuple[str, str]]]) -> list[list[Match]]:
        """The matches of each of several tasks' text fields, each exactly what `matches` gives that task alone,
        found in one pass over all their texts (numpy's cost per call is paid once, not once a task)."""
        per_task = [list(fields) for fields in tasks]
        if not per_task:
            return []
        wheres = [where for fields in per_task for where, _ in fields]
        texts = [text for fields in per_task for _, text in fields]
        task_of = np.repeat(np.arange(len(per_task)), [len(fields) for fields in per_task])
        found: list[tuple[int, int, int, Match]] = []
        words = Words.of(texts)
        for number, key in self._ids_in(words, texts):
            if key in self.ids:
                kind, value = key.split(":", 1)
                found.append((number, _KIND_ORDER[kind], 0, Match(*self.ids[key], kind, value, wheres[number])))
        for number, position, competition in self._competitions_in(words, texts):
            found.append((number, _KIND_ORDER["competition"], position,
                          Match(*self.ids[f"competition:{competition}"], "competition", competition, wheres[number])))
        for position, owner in self._canary_phrases.found(words):
            canary = self._canary_list[owner]
            number = int(words.text_of(position))
            found.append((number, _KIND_ORDER["canary"], position,
                          Match(*self.canaries[canary], "canary", canary, wheres[number])))
        grams, first = _runs(words, NGRAM)
        index, owner = self._grams.hits(grams)
        task_item = task_of[words.text_of(first[index])] * len(self.owners) + owner
        shared, counts = np.unique(task_item[_distinct_rows(task_item, grams[index])[0]], return_counts=True)
        copied_share = counts[np.searchsorted(shared, task_item)] / np.maximum(self._gram_totals[owner], 1)
        keep = copied_share >= COPIED_SHARE
        index, owner, task_item = index[keep], owner[keep], task_item[keep]
        _, earliest = np.unique(task_item, return_index=True)
        for position, item in zip(first[index[earliest]], owner[earliest]):
            number = int(words.text_of(position))
            found.append((number, _KIND_ORDER["13-gram"], int(position),
                          Match(*self.owners[item], "13-gram", words.phrase(position, NGRAM), wheres[number])))
        copied = {int(key) for key in task_item}
        found += [(*entry[:3], entry[4]) for entry in self._paraphrases(words, wheres)
                  if int(task_of[entry[0]]) * len(self.owners) + entry[3] not in copied]
        found.sort(key=lambda entry: entry[:3])
        first_of: list[dict[tuple[str, str, str], Match]] = [{} for _ in per_task]
        for number, *_, match in found:
            first_of[task_of[number]].setdefault((match.set_name, match.item_id, match.kind), match)
        return [list(matches.values()) for matches in first_of]

    def _paraphrases(self, words: Words, wheres: list[str]) -> list[tuple[int, int, int, int, Match]]:
        """Items with at least `PARAPHRASE_SHARE` of their distinctive pairs within one window of one text (with
        the item's index, so an item also found verbatim is named once)."""
        pairs, first = _pairs(words)
        index, owner = self._pairs.hits(pairs)
        if not len(index):
            return []
        position = first[index]
        text = words.text_of(position)
        step = self._window_steps[owner]
        window = (position - words.bounds[text]) // step
        pair = pairs[index].view(np.int64)
        keys = np.concatenate([np.stack([owner, text, window, pair]), np.stack([owner, text, window - 1, pair])],
                              axis=1)
        keys = keys[:, keys[2] >= 0]
        keys = keys[:, _distinct_rows(*keys)[0]]
        weights = self._pair_weights[np.searchsorted(self._pair_keys, keys[3].view(np.uint64))]
        first_of_group, group_of = _distinct_rows(*keys[:3])
        groups = keys[:3, first_of_group]
        shares = np.bincount(group_of, weights=weights) / self._pair_totals[groups[0]]
        found = []
        for (item, number, start), share in zip(groups.T, shares):
            if share >= PARAPHRASE_SHARE:
                value = f"{share:.0%} of its distinctive word pairs (by rarity)"
                match = Match(*self.owners[item], "paraphrase", value, wheres[number])
                start_word = int(start) * int(self._window_steps[item])
                found.append((int(number), _KIND_ORDER["paraphrase"], start_word, int(item), match))
        return found


_TOKEN_END = re.compile(rb"\w\Z")
_TOKEN_START = re.compile(rb"\w")


def default_sets() -> list[EvalSet]:
    """The evaluation sets shipped with taskforge, always registered."""
    return list(_defaults(tuple(sorted(str(p) for p in DEFAULTS_DIR.glob("*.json")))))


@lru_cache(maxsize=1)
def _defaults(paths: tuple[str, ...]) -> tuple[EvalSet, ...]:
    return tuple(EvalSet.from_json(Path(path).read_text(encoding="utf-8")) for path in paths)


def load_registry(data_dir: Location | None) -> Registry:
    """The default sets and the sets registered in a data dir (a registered set replaces a default of its name);
    re-read only when the files change."""
    files = files_under(registry_dir(data_dir), ".json") if data_dir else []
    return _registry(tuple((str(p), change_key(p)) for p in files))


@lru_cache(maxsize=2)
def _registry(stamp: tuple[tuple[str, str], ...]) -> Registry:
    registered = [EvalSet.from_json(read_text(path)) for path, _ in stamp]
    names = {s.name for s in registered}
    return Registry([s for s in default_sets() if s.name not in names] + registered)
