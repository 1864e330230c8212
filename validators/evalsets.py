"""Registered evaluation sets: what no training task may contain, and how a task is matched against them.

An evaluation set is registered from a file, either records (JSONL, a JSON
list or Parquet, with an id, external ids such as `doi`, `arxiv_id`, `pr`,
`instance_id`, `competition_id`, texts such as `question` or `abstract`, and
an optional `canary`) or a plain list with one id a line (`doi:`, `arxiv:`,
`pr:`, `competition:` or `canary:` prefixes; DOIs, arXiv ids and pull
requests are also recognised bare). Registered sets live as JSON files in the
data dir's `evalsets/` folder, where every validation run reads them.

A task matches an item by an exact normalised id found anywhere in it, by a
shared 13-gram of normalised words, or by containing a canary string.
"""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable, Iterator

import pyarrow.parquet as pq

from taskforge.graders.paper_ids import arxiv_ids_in, dois_in, normalise_arxiv, normalise_doi
from taskforge.schemas import InputError
from taskforge.schemas.locations import Location, change_key, files_under, join, read_text

REGISTRY_FOLDER = "evalsets"
NGRAM = 13
ID_KINDS = ("doi", "arxiv", "pr", "competition")
ID_FIELDS = {"doi": "doi", "arxiv_id": "arxiv", "arxiv": "arxiv", "pr": "pr", "instance_id": "pr",
             "competition_id": "competition", "competition": "competition"}
TEXT_FIELDS = ("text", "title", "abstract", "question", "answer", "passage", "context", "problem_statement")
_NAME = re.compile(r"^[\w.-]+$")
_WORD = re.compile(r"[^\W_]+")
_PR_PATTERNS = (
    ("/pull/", re.compile(r"github\.com/([\w.-]+)/([\w.-]+)/pull/(\d+)", re.IGNORECASE)),
    ("#", re.compile(r"(?<![\w./-])([\w.-]+)/([\w.-]+)#(\d+)\b")),
    ("__", re.compile(r"(?<![\w.-])([\w.-]+)__([\w.-]+)-(\d+)\b")),
)
"""Each pull-request pattern with a literal its matches contain: a text without it is not scanned."""
_NEW_STYLE_ARXIV = re.compile(r"\d{4}\.\d{4}")


def words(text: str) -> list[str]:
    """Text as normalised words (NFKC, casefolded, punctuation dropped), the unit of n-gram overlap."""
    return _WORD.findall(unicodedata.normalize("NFKC", text).casefold())


def ngrams(text: str, n: int = NGRAM) -> Iterator[str]:
    """The word n-grams of a text, each as one space-joined string."""
    tokens = words(text)
    for start in range(len(tokens) - n + 1):
        yield " ".join(tokens[start:start + n])


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
    """A registered evaluation set."""

    name: str
    source: str
    items: list[EvalItem] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        """Counts of what the set holds."""
        return {"name": self.name, "source": self.source, "items": len(self.items),
                "ids": sum(len(i.ids) for i in self.items), "texts": sum(1 for i in self.items if i.text),
                "canaries": sum(len(i.canaries) for i in self.items)}

    def to_json(self) -> str:
        return json.dumps({"name": self.name, "source": self.source, "items": [asdict(i) for i in self.items]},
                          ensure_ascii=False, sort_keys=True, indent=1)

    @classmethod
    def from_json(cls, text: str) -> "EvalSet":
        data = json.loads(text)
        items = [EvalItem(item_id=i["item_id"], ids=tuple(i["ids"]), text=i["text"], canaries=tuple(i["canaries"]))
                 for i in data["items"]]
        return cls(name=data["name"], source=data["source"], items=items)


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


class Registry:
    """Every registered set, indexed for matching: ids, 13-grams and canaries."""

    def __init__(self, sets: list[EvalSet]):
        self.sets = sets
        self.ids: dict[str, tuple[str, str]] = {}
        self.grams: dict[str, tuple[str, str]] = {}
        self.canaries: dict[str, tuple[str, str]] = {}
        for evalset in sets:
            for item in evalset.items:
                owner = (evalset.name, item.item_id)
                for key in item.ids:
                    self.ids.setdefault(key, owner)
                for gram in ngrams(item.text):
                    self.grams.setdefault(gram, owner)
                for canary in item.canaries:
                    self.canaries.setdefault(canary, owner)
        self.competitions = {key.split(":", 1)[1] for key in self.ids if key.startswith("competition:")}

    def _ids_in(self, text: str) -> Iterator[str]:
        yield from (f"doi:{d}" for d in dois_in(text))
        if "arxiv" in text.casefold() or _NEW_STYLE_ARXIV.search(text):
            yield from (f"arxiv:{a}" for a in arxiv_ids_in(text))
        yield from (f"pr:{p}" for p in prs_in(text))
        if self.competitions:
            tokens = {t.strip(".-") for t in re.findall(r"[\w.-]+", text.casefold())}
            yield from (f"competition:{c}" for c in self.competitions & tokens)

    def matches(self, fields: Iterable[tuple[str, str]]) -> list[Match]:
        """Every (evaluation item, way) a task's text fields overlap, once per item and way."""
        found: dict[tuple[str, str, str], Match] = {}
        for where, text in fields:
            for key in self._ids_in(text):
                if key in self.ids:
                    kind, value = key.split(":", 1)
                    found.setdefault((*self.ids[key], kind), Match(*self.ids[key], kind, value, where))
            for canary, owner in self.canaries.items():
                if canary in text:
                    found.setdefault((*owner, "canary"), Match(*owner, "canary", canary, where))
            if self.grams:
                for gram in ngrams(text):
                    if gram in self.grams:
                        owner = self.grams[gram]
                        found.setdefault((*owner, "13-gram"), Match(*owner, "13-gram", gram, where))
        return list(found.values())


def load_registry(data_dir: Location | None) -> Registry:
    """The registered sets of a data dir (none without a data dir); re-read only when the files change."""
    files = files_under(registry_dir(data_dir), ".json") if data_dir else []
    return _registry(tuple((str(p), change_key(p)) for p in files))


@lru_cache(maxsize=2)
def _registry(stamp: tuple[tuple[str, str], ...]) -> Registry:
    return Registry([EvalSet.from_json(read_text(path)) for path, _ in stamp])
