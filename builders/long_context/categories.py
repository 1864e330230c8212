"""The categories of long-context tasks and which of them train which capability.

| capability (from diagnosis) | categories |
|---|---|
| history_tracking    | state_tracking, timeline, budget_rollup, ledger_balance |
| evidence_selection  | evidence_attribution, consistency |
| finding_integration | cross_doc_integration, rule_induction, budget_rollup |
| objective_tracking  | version_impact, set_aggregation |
| verification, output_sanity_checking | consistency |
| anything else       | all ten in turn |

With a folder of documents as the source, only the categories that have a
document generator are used (timeline, cross_doc_integration,
evidence_attribution): the mapped ones among them, else all three.
"""

from __future__ import annotations

from types import ModuleType

from taskforge.builders.long_context import (aggregation, attribution, consistency, integration, ledger, rollup, rules,
                                             state, timeline, versions)
from taskforge.builders.long_context.documents import DOCUMENT_CATEGORIES
from taskforge.schemas import InputError

CATEGORIES: dict[str, ModuleType] = {module.CATEGORY: module for module in (
    integration, timeline, attribution, consistency, rules, state, versions, aggregation, rollup, ledger)}
"""Each world-model category's module: `CATEGORY`, `KNOBS`, `compose(seed, axes, rng)`."""

CAPABILITY_CATEGORIES: dict[str, tuple[str, ...]] = {
    "history_tracking": ("state_tracking", "timeline", "budget_rollup", "ledger_balance"),
    "evidence_selection": ("evidence_attribution", "consistency"),
    "finding_integration": ("cross_doc_integration", "rule_induction", "budget_rollup"),
    "objective_tracking": ("version_impact", "set_aggregation"),
    "verification": ("consistency",),
    "output_sanity_checking": ("consistency",),
}


def categories_for(capability: str, requested: tuple[str, ...], documents: bool) -> list[str]:
    """The categories to build in turn for a capability (or the requested ones)."""
    available = DOCUMENT_CATEGORIES if documents else CATEGORIES
    if requested:
        unknown = [c for c in requested if c not in available]
        if unknown:
            where = "from documents" if documents else "from world models"
            raise InputError("categories", f"unknown {', '.join(unknown)}; available {where}: "
                                           f"{', '.join(sorted(available))}")
        return list(requested)
    mapped = [c for c in CAPABILITY_CATEGORIES.get(capability, ()) if c in available]
    return mapped or sorted(available)
