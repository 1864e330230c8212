"""Which builder serves which task family."""

from __future__ import annotations

from builders.base import Builder
from builders.literature import LiteratureBuilder
from builders.long_context import LongContextBuilder
from builders.mle import MleBuilder
from builders.swe import SweBuilder
from builders.workflow import WorkflowBuilder
from schemas import TaskforgeError

BUILDERS: dict[str, Builder] = {builder.family: builder for builder in (LongContextBuilder(), LiteratureBuilder(),
                                                                  WorkflowBuilder(), MleBuilder(), SweBuilder())}


class UnknownFamilyError(TaskforgeError):
    """No builder is installed for a requested family."""


def builder_for(family: str) -> Builder:
    """The builder of a family."""
    try:
        return BUILDERS[family]
    except KeyError:
        raise UnknownFamilyError(f"no builder for family {family!r}; available: {', '.join(sorted(BUILDERS))}") from None


def available_families() -> list[str]:
    """Families that can be built in this installation."""
    return sorted(BUILDERS)
