"""Answerability of a long-context task under its world model.

Three properties, each tested with the category's derivation (`derive.py`):
- the answer is unique: all facts stated in the documents admit exactly one
  answer, and it is the reference answer;
- every evidence span is needed: the evidence facts determine the answer,
  and without any one of them they no longer do (no answer, several, or
  another one);
- no single span holds the answer: at least two spans, and no span alone
  determines it;
and, for rule induction, the examples show both classes (else a vacuous
policy fits them).
"""

from __future__ import annotations

from typing import Any, Callable

from taskforge.graders.long_context.derive import DERIVATIONS, Fact, canonical, derivation


def _summary(outcomes: list[Any]) -> str:
    """A few answers, written for a reason."""
    shown = ["undetermined" if o is None else canonical(o) for o in outcomes[:3]]
    return " | ".join(shown) + (" …" if len(outcomes) > 3 else "")


def _category_problems(category: str, facts: list[Fact], query: dict[str, Any]) -> list[str]:
    """What makes a task ill-posed beyond its derivation: rule-induction examples that show one class only (a
    vacuous policy, holding for no record or for every record, would fit them)."""
    if category != "rule_induction":
        return []
    shown = {fact["outcome"] for fact in facts if fact["kind"] == "example"}
    missing = [c for c in query["classes"] if c not in shown]
    return [f"no example is {c}: a policy that never decides {c} fits the examples" for c in missing]


def answerability_problems(category: str, facts: list[Fact], evidence_ids: list[str], query: dict[str, Any],
                           answer: Any) -> list[str]:
    """Every way the task fails to be answerable as stated; empty when it is."""
    if category not in DERIVATIONS:
        return [f"no derivation for category {category!r}"]
    derive, expected = derivation(category, query), canonical(answer)

    def determines(subset: list[Fact]) -> bool:
        return [canonical(o) for o in derive(subset)] == [expected]

    problems = _category_problems(category, facts, query)
    outcomes = derive(facts)
    if len(outcomes) > 1:
        problems.append(f"the documents admit {len(outcomes)} answers: {_summary(outcomes)}")
    elif [canonical(o) for o in outcomes] != [expected]:
        problems.append(f"the world model gives {_summary(outcomes)}, the reference says {expected}")
    by_id = {fact["fact_id"]: fact for fact in facts}
    unknown = [fact_id for fact_id in evidence_ids if fact_id not in by_id]
    if unknown:
        problems.append(f"evidence names facts the world model does not hold: {', '.join(unknown)}")
    evidence = [by_id[fact_id] for fact_id in evidence_ids if fact_id in by_id]
    if not determines(evidence):
        problems.append("the evidence spans alone do not determine the answer")
        return problems
    for fact in evidence:
        if determines([other for other in evidence if other is not fact]):
            problems.append(f"evidence {fact['fact_id']} is not needed: the answer follows without it")
    if len(evidence) < 2:
        problems.append("a single evidence span holds the whole answer")
    else:
        problems += [f"evidence {fact['fact_id']} alone determines the answer" for fact in evidence
                     if determines([fact])]
    return problems


def minimal_support(category: str, facts: list[Fact], query: dict[str, Any], answer: Any,
                    derive: Callable[[list[Fact]], list[Any]] | None = None) -> list[str]:
    """Ids of a subset of `facts` that determines the answer and from which no fact can be dropped: each is
    dropped in turn when the rest still determine it (irreducible, since fewer facts never determine more).
    `derive` reads a subset as the category's derivation does under `query` (by default, `derivation`)."""
    derive, expected = derive or derivation(category, query), canonical(answer)
    kept = list(facts)
    for fact in facts:
        rest = [other for other in kept if other is not fact]
        if [canonical(o) for o in derive(rest)] == [expected]:
            kept = rest
    return [fact["fact_id"] for fact in kept]
