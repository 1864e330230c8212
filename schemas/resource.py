"""A source a builder turns into tasks: a paper collection, a repository, a dataset, documents, seeds."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from taskforge.schemas.base import JsonDict, Record

ResourceKind = Literal["papers", "repository", "dataset", "documents", "workflow_seeds", "world_model"]


class Resource(Record):
    """One input resource, pinned to a revision (a content hash, a commit, a seed)."""

    resource_id: str
    kind: ResourceKind
    uri: str
    revision: str
    license: str | None = None
    metadata: JsonDict = Field(default_factory=dict)
