"""The one place where Arrow schemas and rows are derived from the pydantic record models.

Mapping: str/Literal/Enum → string, int → int64, float → float64, bool → bool,
datetime → timestamp[us, UTC], list[X] → list<X>, nested model → struct, and any
field marked `JsonColumn` (or typed as a free dict/Any) → a JSON string.
"""

from __future__ import annotations

import datetime as dt
import enum
import json
import types
import typing
from functools import cache
from typing import Any, Iterable, TypeVar

import pyarrow as pa
from pydantic import BaseModel

from taskforge.schemas.base import JsonColumn
from taskforge.schemas.version import SCHEMA_VERSION

M = TypeVar("M", bound=BaseModel)
_JSON = "json"


def _unwrap_optional(annotation: Any) -> tuple[Any, bool]:
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(args) == 1:
            return args[0], True
        raise TypeError(f"unions other than Optional are not storable: {annotation}")
    return annotation, False


def _is_json(annotation: Any, metadata: Iterable[Any]) -> bool:
    if any(isinstance(m, JsonColumn) for m in metadata):
        return True
    if typing.get_origin(annotation) is typing.Annotated:
        return any(isinstance(m, JsonColumn) for m in typing.get_args(annotation)[1:])
    return annotation is Any or annotation is dict or typing.get_origin(annotation) is dict


def _arrow_type(annotation: Any, metadata: Iterable[Any] = ()) -> pa.DataType | str:
    annotation, _ = _unwrap_optional(annotation)
    if _is_json(annotation, metadata):
        return _JSON
    if typing.get_origin(annotation) is typing.Annotated:
        base, *extra = typing.get_args(annotation)
        return _arrow_type(base, extra)
    origin = typing.get_origin(annotation)
    if origin is typing.Literal:
        return pa.string()
    if origin is list:
        (item,) = typing.get_args(annotation)
        inner = _arrow_type(item)
        return pa.list_(pa.string() if inner == _JSON else inner)
    if isinstance(annotation, type):
        if issubclass(annotation, BaseModel):
            return arrow_struct(annotation)
        if issubclass(annotation, enum.Enum) or issubclass(annotation, str):
            return pa.string()
        if issubclass(annotation, bool):
            return pa.bool_()
        if issubclass(annotation, int):
            return pa.int64()
        if issubclass(annotation, float):
            return pa.float64()
        if issubclass(annotation, dt.datetime):
            return pa.timestamp("us", tz="UTC")
    raise TypeError(f"no Arrow mapping for {annotation!r}")


@cache
def _fields(model: type[BaseModel]) -> tuple[tuple[str, pa.DataType, bool, bool], ...]:
    """(name, arrow type, nullable, is_json) for each field of a model."""
    out = []
    for name, info in model.model_fields.items():
        _, nullable = _unwrap_optional(info.annotation)
        kind = _arrow_type(info.annotation, info.metadata)
        is_json = kind == _JSON
        out.append((name, pa.string() if is_json else kind, nullable or is_json, is_json))
    return tuple(out)


def arrow_struct(model: type[BaseModel]) -> pa.StructType:
    """The Arrow struct type of a nested record model."""
    return pa.struct([pa.field(n, t, nullable=nl) for n, t, nl, _ in _fields(model)])


def arrow_schema(model: type[BaseModel]) -> pa.Schema:
    """The Arrow schema of a top-level record model, tagged with the schema version."""
    fields = [pa.field(n, t, nullable=nl) for n, t, nl, _ in _fields(model)]
    return pa.schema(fields, metadata={"taskforge.schema_version": SCHEMA_VERSION, "taskforge.record": model.__name__})


def _encode(value: Any, model: type[BaseModel]) -> dict[str, Any]:
    row: dict[str, Any] = {}
    for name, kind, _, is_json in _fields(model):
        item = getattr(value, name)
        if is_json:
            row[name] = None if item is None else json.dumps(item, sort_keys=True, ensure_ascii=False, default=str)
        else:
            row[name] = _encode_value(item, kind)
    return row


def _encode_value(item: Any, kind: pa.DataType) -> Any:
    if item is None:
        return None
    if isinstance(item, BaseModel):
        return _encode(item, type(item))
    if isinstance(item, enum.Enum):
        return item.value
    if isinstance(item, list):
        inner = kind.value_type if pa.types.is_list(kind) else None
        if inner is not None and pa.types.is_string(inner):
            return [x if isinstance(x, str) else json.dumps(x, sort_keys=True) for x in item]
        return [_encode_value(x, inner) for x in item]
    return item


def _decode(row: dict[str, Any], model: type[BaseModel]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, is_json, decoder in _decoding_plan(model):
        if name not in row:
            continue
        item = row[name]
        if is_json:
            out[name] = None if item is None else json.loads(item)
        else:
            out[name] = item if decoder is None or item is None else decoder(item)
    return out


@cache
def _decoding_plan(model: type[BaseModel]) -> tuple[tuple[str, bool, Any], ...]:
    """(name, is_json, decoder or None) for each field of a model, worked out once per model."""
    return tuple((name, is_json, _decoder(info.annotation))
                 for (name, _, _, is_json), info in zip(_fields(model), model.model_fields.values()))


@cache
def _decoder(annotation: Any) -> Any:
    """How to rebuild a stored value of this annotation (nested models and lists of them); None when the
    stored value is the value."""
    annotation, _ = _unwrap_optional(annotation)
    if typing.get_origin(annotation) is typing.Annotated:
        annotation = typing.get_args(annotation)[0]
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return lambda item: _decode(item, annotation)
    if typing.get_origin(annotation) is list:
        inner = _decoder(typing.get_args(annotation)[0])
        return None if inner is None else (lambda items: [None if x is None else inner(x) for x in items])
    return None


def to_row(record: BaseModel) -> dict[str, Any]:
    """One record as an Arrow-ready dict (JSON columns serialised)."""
    return _encode(record, type(record))


def to_table(records: Iterable[BaseModel], model: type[BaseModel]) -> pa.Table:
    """Records of one model as an Arrow table with the model's schema."""
    return pa.Table.from_pylist([to_row(r) for r in records], schema=arrow_schema(model))


def from_row(row: dict[str, Any], model: type[M]) -> M:
    """Rebuild a record from an Arrow row dict."""
    return model.model_validate(_decode(row, model))


def from_table(table: pa.Table, model: type[M]) -> list[M]:
    """Rebuild every record of a table."""
    return [from_row(row, model) for row in table.to_pylist()]
