"""What a builder is: a family's generator of candidate tasks for the items of a build plan."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Iterator, Protocol, runtime_checkable

from taskforge.schemas import PlanItem, Quarantined, Task
from taskforge.schemas.contracts import conforming
from taskforge.schemas.family import ContractError


@dataclass(frozen=True)
class BuildContext:
    """Everything a builder needs besides the plan item; plain values only, so it travels to workers."""

    cycle_id: str
    seed: int = 0
    first_index: int = 0
    options: dict[str, Any] = field(default_factory=dict)
    data_dir: str | None = None
    """The run's data dir, for builders that keep resource snapshots there (e.g. paper collections)."""


class Builder(Protocol):
    """Turns one plan item into candidate tasks (unvalidated, status `candidate`), and quarantine records
    for inputs it could not use (a bad record of a resource), which the flow records in the catalog.

    A candidate that cannot be built (a repository that will not install, a
    dataset without labels …) is yielded as a `Quarantined` record naming the
    resource and the problem, and the builder goes on with the next one.

    `default_source` names the shipped sample resource (relative to
    `data/samples/`) used when a run gives no `source` option; None when the
    builder generates its own material.
    """

    family: str
    name: str
    version: str
    default_source: str | None

    def build(self, item: PlanItem, context: BuildContext) -> Iterator[Task | Quarantined]: ...


@runtime_checkable
class Evolving(Protocol):
    """A builder that can make a harder variant of one of its tasks, when the solver gate (the `difficulty`
    question) found it too easy; the variant is validated again (`taskforge.flows.evolution`)."""

    def harder(self, task: Task, context: BuildContext) -> Task | Quarantined: ...


def emitted(candidates: Iterable[Task | Quarantined]) -> Iterator[Task | Quarantined]:
    """What a builder emits, each task checked against its family's contract (`taskforge.schemas.contracts`):
    a task that breaks it is quarantined, naming the part and the field, and the build goes on."""
    for candidate in candidates:
        if isinstance(candidate, Quarantined):
            yield candidate
            continue
        try:
            yield conforming(candidate)
        except ContractError as exc:
            yield Quarantined.from_error(exc, "build", f"{candidate.family}:{candidate.task_id}")


def derive_seed(*parts: object) -> int:
    """A deterministic 32-bit seed from any values (stable across processes, unlike hash())."""
    import hashlib

    return int.from_bytes(hashlib.sha256("\x1f".join(map(str, parts)).encode()).digest()[:4], "big")
