"""Which builder serves which task family."""

from __future__ import annotations

from taskforge.builders.base import Builder
from taskforge.builders.literature import LiteratureBuilder
from taskforge.builders.long_context import LongContextBuilder
from taskforge.builders.mle import MleBuilder
from taskforge.builders.swe import SweBuilder
from taskforge.builders.workflow import WorkflowBuilder
from taskforge.schemas import TaskforgeError

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
