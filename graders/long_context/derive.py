"""The answer of each long-context category, derived from world-model facts (never from rendered text).

A fact is a dict with `fact_id`, `kind` and the fields of its kind, plus the
`doc_id` it is stated in. A `derive_*` function takes any subset of a task's
facts and its symbolic query and returns every answer the facts admit:
one answer when they determine it, several when it is ambiguous (conflicting
statements, ties), and `[None]` when they leave it undetermined. Conflicting
statements of a functional fact (two values for one key) are explored as
alternative worlds, so a planted second value shows up as a second answer.
Builders use these to compute answers; the answerability check uses them to
test uniqueness and the necessity of every evidence span.
"""

from __future__ import annotations

import datetime as dt
import json
from functools import cache
from itertools import combinations, islice, permutations, product
from typing import Any, Callable, Iterable, Iterator

from taskforge.graders.long_context.values import version_key

Fact = dict[str, Any]
Solve = Callable[[list[Fact]], list[Any]]
MAX_WORLDS = 64


def canonical(answer: Any) -> str:
    """A comparable key of an answer (JSON with sorted keys)."""
    return json.dumps(answer, sort_keys=True)


def _distinct(answers: Iterable[Any]) -> list[Any]:
    """The answers without repeats, in first-seen order."""
    seen: dict[str, Any] = {}
    for answer in answers:
        seen.setdefault(canonical(answer), answer)
    return list(seen.values())


def _worlds(facts: list[Fact], key: Callable[[Fact], Any], value: Callable[[Fact], Any]) -> Iterator[list[Fact]]:
    """Every way to keep one value per key: alternative worlds when statements conflict (capped). A key stated
    once needs no value worked out; where every key is stated once, the one world is the facts themselves."""
    keys = list(map(key, facts))
    if len(set(keys)) == len(keys):
        yield list(facts)
        return
    groups: dict[Any, list[Fact]] = {}
    for fact, fact_key in zip(facts, keys):
        groups.setdefault(fact_key, []).append(fact)

    def readings(group: list[Fact]) -> list[Fact]:
        if len(group) == 1:
            return group
        seen: dict[Any, Fact] = {}
        for fact in group:
            seen.setdefault(value(fact), fact)
        return list(seen.values())

    yield from (list(world) for world in islice(product(*(readings(g) for g in groups.values())), MAX_WORLDS))


def _over_worlds(facts: list[Fact], key: Callable[[Fact], Any], value: Callable[[Fact], Any],
                 solve: Solve) -> list[Any]:
    """The distinct answers over all alternative worlds; `None` where a world leaves the answer open."""
    return _distinct(answer for world in _worlds(facts, key, value) for answer in (solve(world) or [None]))


def _of_kind(facts: list[Fact], *kinds: str) -> list[Fact]:
    """The facts of the given kinds."""
    return [fact for fact in facts if fact["kind"] in kinds]


def _date(fact: Fact) -> dt.date:
    """A fact's date."""
    return dt.date.fromisoformat(fact["date"])


def derive_timeline(facts: list[Fact], query: dict[str, Any]) -> list[Any]:
    """Labels of the asked events in chronological order; a tie of dates gives two orders."""

    def solve(world: list[Fact]) -> list[Any]:
        dates = {fact["event"]: _date(fact) for fact in world}
        if any(event not in dates for event in query["items"].values()):
            return []
        order = sorted(query["items"], key=lambda label: dates[query["items"][label]])
        ties = [i for i in range(len(order) - 1)
                if dates[query["items"][order[i]]] == dates[query["items"][order[i + 1]]]]
        if not ties:
            return [order]
        swapped = list(order)
        swapped[ties[0]], swapped[ties[0] + 1] = swapped[ties[0] + 1], swapped[ties[0]]
        return [order, swapped]

    return _over_worlds(_of_kind(facts, "event"), lambda f: f["event"], lambda f: f["date"], solve)


def _follow(world: list[Fact], start: str, path: list[str]) -> tuple[str, list[str]] | None:
    """Walk a chain of functional relations; the entity reached and the documents used, or None."""
    relation = {(f["subject"], f["relation"]): f for f in world}
    entity, docs = start, []
    for step in path:
        fact = relation.get((entity, step))
        if fact is None:
            return None
        entity = fact["object"]
        docs.append(fact["doc_id"])
    return entity, docs


def _days_between(world: list[Fact], first: str, second: str) -> tuple[int, dt.date, dt.date] | None:
    """Days between two events and their dates, or None when either date is unknown."""
    dates = {fact["event"]: _date(fact) for fact in world}
    if first not in dates or second not in dates:
        return None
    return abs((dates[second] - dates[first]).days), dates[first], dates[second]


def derive_integration(facts: list[Fact], query: dict[str, Any]) -> list[Any]:
    """The entity at the end of a chain of relations across documents, or the days between two dated events."""
    if query["form"] == "days_between":
        def solve_days(world: list[Fact]) -> list[Any]:
            found = _days_between(world, query["first"], query["second"])
            return [found[0]] if found else []

        return _over_worlds(_of_kind(facts, "event"), lambda f: f["event"], lambda f: f["date"], solve_days)

    def solve(world: list[Fact]) -> list[Any]:
        reached = _follow(world, query["start"], query["path"])
        return [reached[0]] if reached else []

    return _over_worlds(_of_kind(facts, "relation"), lambda f: (f["subject"], f["relation"]),
                        lambda f: f["object"], solve)


def derive_attribution(facts: list[Fact], query: dict[str, Any]) -> list[Any]:
    """The documents that together establish a claim (a chain of relations, one event before another), or
    that give a date in a month; a fact stated in two documents gives two answers."""
    if query["form"] == "month":
        def solve_month(world: list[Fact]) -> list[Any]:
            docs = sorted({fact["doc_id"] for fact in world if fact["date"].startswith(query["month"] + "-")})
            return [docs] if docs else []

        return _over_worlds(_of_kind(facts, "event"), lambda f: f["event"], lambda f: (f["date"], f["doc_id"]),
                            solve_month)
    if query["form"] == "before":
        def solve_before(world: list[Fact]) -> list[Any]:
            docs = {fact["event"]: fact["doc_id"] for fact in world}
            found = _days_between(world, query["first"], query["second"])
            if not found or not found[1] < found[2]:
                return []
            return [sorted({docs[query["first"]], docs[query["second"]]})]

        return _over_worlds(_of_kind(facts, "event"), lambda f: f["event"], lambda f: (f["date"], f["doc_id"]),
                            solve_before)

    def solve(world: list[Fact]) -> list[Any]:
        reached = _follow(world, query["start"], query["path"])
        return [sorted(set(reached[1]))] if reached and reached[0] == query["end"] else []

    return _over_worlds(_of_kind(facts, "relation"), lambda f: (f["subject"], f["relation"]),
                        lambda f: (f["object"], f["doc_id"]), solve)


def _dissenter(reports: list[tuple[str, float]]) -> list[str]:
    """For one item: 'none' when all reports agree, the one disagreeing document, or every candidate."""
    if len(reports) < 2:
        return []
    values = [value for _, value in reports]
    majority = max(set(values), key=values.count)
    dissent = [doc for doc, value in reports if value != majority]
    if not dissent:
        return ["none"]
    if len(dissent) == 1 and values.count(majority) >= 2:
        return dissent
    return sorted({doc for doc, _ in reports})


def derive_consistency(facts: list[Fact], query: dict[str, Any]) -> list[Any]:
    """For each asked item, the document whose figure disagrees with the other sources, or 'none'."""
    reports = _of_kind(facts, "report")
    per_item = []
    for label, item in query["items"].items():
        found = [(f["doc_id"], f["value"]) for f in reports
                 if (f["entity"], f["attribute"], f["year"]) == (item["entity"], item["attribute"], item["year"])]
        candidates = _dissenter(found)
        if not candidates:
            return [None]
        per_item.append([(label, candidate) for candidate in candidates])
    return _distinct(dict(choice) for choice in islice(product(*per_item), MAX_WORLDS))


@cache
def hypotheses(vocabulary: tuple[tuple[str, tuple[str, ...]], ...], thresholds: tuple[int, ...],
                max_conditions: int) -> tuple[tuple[tuple[str, str, Any], ...], ...]:
    """Every conjunction of at most `max_conditions` conditions ('attribute is v', 'weight >= t', 'weight < t'),
    each on a different attribute: so no policy is vacuous (one that holds for no record, such as 'region is
    north and region is south') or states one attribute twice."""
    literals = [(name, "is", value) for name, values in vocabulary for value in values]
    literals += [("weight", op, t) for t in thresholds for op in (">=", "<")]
    return tuple(combo for size in range(1, max_conditions + 1) for combo in combinations(literals, size)
                 if len({name for name, _, _ in combo}) == size)


def rule_holds(hypothesis: tuple[tuple[str, str, Any], ...], attributes: tuple[tuple[str, str], ...],
               weight: int) -> bool:
    """Whether a record meets every condition of a conjunction."""
    values = dict(attributes)
    for name, op, target in hypothesis:
        if op == "is" and values.get(name) != target:
            return False
        if (op == ">=" and not weight >= target) or (op == "<" and not weight < target):
            return False
    return True


def rule_space(query: dict[str, Any]) -> tuple:
    """The hypothesis family a rule-induction query declares, as a hashable key."""
    return (tuple((k, tuple(v)) for k, v in sorted(query["vocabulary"].items())), tuple(query["thresholds"]),
            query["max_conditions"])


@cache
def positive_mask(space: tuple, attributes: tuple[tuple[str, str], ...], weight: int) -> int:
    """Bit i set when hypothesis i classifies the record as positive."""
    return sum(1 << i for i, hypothesis in enumerate(hypotheses(*space)) if rule_holds(hypothesis, attributes, weight))


def derive_rules(facts: list[Fact], query: dict[str, Any]) -> list[Any]:
    """The class of each new record under every policy of the declared family consistent with the examples
    (two statements of one record's outcome that disagree are alternative worlds)."""
    space = rule_space(query)
    everything = (1 << len(hypotheses(*space))) - 1
    positive, negative = query["classes"]

    def solve(world: list[Fact]) -> list[Any]:
        consistent = everything
        for fact in world:
            mask = positive_mask(space, tuple(sorted(fact["attributes"].items())), fact["weight"])
            consistent &= mask if fact["outcome"] == positive else everything & ~mask
        if not consistent:
            return []
        return [{label: positive if pick & positive_mask(space, tuple(sorted(item["attributes"].items())),
                                                         item["weight"]) else negative
                 for label, item in query["items"].items()} for pick in _representatives(consistent, query, space)]

    return _over_worlds(_of_kind(facts, "example"), lambda f: f["record"], lambda f: f["outcome"], solve)


def _representatives(consistent: int, query: dict[str, Any], space: tuple) -> list[int]:
    """One consistent hypothesis (as a one-bit mask), plus one that disagrees on some record if any does."""
    first = consistent & -consistent
    for item in query["items"].values():
        mask = positive_mask(space, tuple(sorted(item["attributes"].items())), item["weight"])
        inside = consistent & mask
        if inside and inside != consistent:
            other = (consistent & ~mask) if first & mask else inside
            return [first, other & -other]
    return [first]


def _replay(sequence: list[Fact]) -> int | None:
    """A stock level after a sequence of counts (set the level) and changes (add to it); None before any count."""
    level = None
    for fact in sequence:
        if fact["kind"] == "count":
            level = fact["value"]
        elif level is not None:
            level += fact["delta"]
    return level


def derive_state(facts: list[Fact], query: dict[str, Any]) -> list[Any]:
    """The stock of one item at one site at the end of a date, replaying counts and changes in date order;
    statements on the same date that could apply in either order give every resulting level."""
    until = dt.date.fromisoformat(query["until"])
    relevant = [f for f in _of_kind(facts, "count", "change")
                if f["item"] == query["item"] and f["site"] == query["site"] and _date(f) <= until]
    by_date: dict[dt.date, list[Fact]] = {}
    for fact in relevant:
        by_date.setdefault(_date(fact), []).append(fact)
    orderings = [list(permutations(group))[:6] for _, group in sorted(by_date.items())]
    choices = islice(product(*orderings), MAX_WORLDS)
    return _distinct(_replay([fact for group in choice for fact in group]) for choice in choices)


def derive_versions(facts: list[Fact], query: dict[str, Any]) -> list[Any]:
    """The asked components exposed to a defect: a component is affected when it uses a version of the
    defective library inside the defect's range (and not patched), or uses an affected library, unless it
    is declared not exposed."""

    def solve(world: list[Fact]) -> list[Any]:
        defects = [f for f in world if f["kind"] == "defect" and f["defect"] == query["defect"]]
        if not defects:
            return []
        defect = defects[0]
        first, last = version_key(defect["first"]), version_key(defect["last"])
        exempt = {f["node"] for f in world if f["kind"] == "exempt" and f["defect"] == query["defect"]}
        patched = {(f["library"], f["version"]) for f in world if f["kind"] == "patched"
                   and f["defect"] == query["defect"]}
        uses: dict[str, list[tuple[str, str]]] = {}
        for fact in world:
            if fact["kind"] == "uses":
                uses.setdefault(fact["user"], []).append((fact["library"], fact["version"]))
        memo: dict[str, bool] = {}

        def affected(node: str, trail: frozenset[str]) -> bool:
            if node not in memo:
                memo[node] = node not in exempt and any(
                    (library == defect["library"] and first <= version_key(version) <= last
                     and (library, version) not in patched)
                    or (library not in trail and affected(library, trail | {library}))
                    for library, version in uses.get(node, []))
            return memo[node]

        return [sorted(c for c in query["components"] if affected(c, frozenset({c})))]

    keyed = _of_kind(facts, "uses", "defect", "exempt", "patched")
    return _over_worlds(keyed, _version_key_of, _version_value_of, solve)


def _version_key_of(fact: Fact) -> Any:
    """Functional keys of the version world: one pinned version per (user, library), one range per defect."""
    if fact["kind"] == "uses":
        return ("uses", fact["user"], fact["library"])
    if fact["kind"] == "defect":
        return ("defect", fact["defect"])
    return (fact["kind"], fact["fact_id"])


def _version_value_of(fact: Fact) -> Any:
    """What a functional key of the version world maps to."""
    if fact["kind"] == "uses":
        return fact["version"]
    if fact["kind"] == "defect":
        return (fact["library"], fact["first"], fact["last"])
    return fact["fact_id"]


def grant_matches(grant: Fact, filters: dict[str, Any]) -> bool:
    """Whether a grant meets every condition of a filter (funder, purpose, year range)."""
    return (grant["funder"] == filters.get("funder", grant["funder"])
            and grant["purpose"] == filters.get("purpose", grant["purpose"])
            and filters.get("year_from", grant["year"]) <= grant["year"] <= filters.get("year_to", grant["year"]))


def derive_aggregation(facts: list[Fact], query: dict[str, Any]) -> list[Any]:
    """A count or total over the grants that meet every filter (each grant counted once, by its id), or the
    difference of two such totals."""

    def total(world: list[Fact], filters: dict[str, Any]) -> int:
        chosen = [g for g in world if grant_matches(g, filters)]
        return len(chosen) if query["aggregate"] == "count" else sum(g["amount"] for g in chosen)

    def solve(world: list[Fact]) -> list[Any]:
        value = total(world, query["filters"])
        return [value - total(world, query["versus"]) if query["aggregate"] == "difference" else value]

    return _over_worlds(_of_kind(facts, "grant"), lambda f: f["grant"],
                        lambda f: (f["project"], f["funder"], f["amount"], f["year"], f["purpose"]), solve)


def derive_rollup(facts: list[Fact], query: dict[str, Any]) -> list[Any]:
    """The combined budget, at the end of `until`, of the projects led by people employed by `organisation` that
    day (a person's stated employer, changed by their dated moves up to `until`):
    per such project its last figure dated on or before `until` plus the changes by an amount after it (a
    revision to a new figure replaces the earlier one; later revisions and proposals that were not adopted
    change nothing). A statement that
    names a ledger line counts for the project the line's own statement assigns it to. Two employers of a
    person, two leaders of a project, two projects of a line or two figures of one project on one date give
    several answers."""
    until = dt.date.fromisoformat(query["until"])

    def solve(world: list[Fact]) -> list[Any]:
        related = {(f["subject"], f["relation"]): f["object"] for f in world if f["kind"] == "relation"}
        lines = {f["line"]: f["project"] for f in world if f["kind"] == "alias"}
        employer = {subject: obj for (subject, relation), obj in related.items() if relation == "employed_by"}
        for move in sorted((f for f in world if f["kind"] == "move" and _date(f) <= until), key=_date):
            employer[move["person"]] = move["to"]
        counted = [project for (project, relation), person in related.items()
                   if relation == "led_by" and employer.get(person) == query["organisation"]]
        history: dict[str, list[Fact]] = {}
        for fact in world:
            project = lines.get(fact["line"]) if fact.get("line") else fact.get("project")
            if fact["kind"] in ("budget", "budget_change") and project in counted and _date(fact) <= until:
                history.setdefault(project, []).append(fact)
        levels = []
        for project in counted:
            level = None
            for fact in sorted(history.get(project, []), key=_date):
                level = fact["amount"] if fact["kind"] == "budget" else None if level is None else level + fact["delta"]
            if level is None:
                return []
            levels.append(level)
        return [sum(levels)] if counted else []

    def key(fact: Fact) -> Any:
        if fact["kind"] == "relation":
            return (fact["subject"], fact["relation"])
        if fact["kind"] == "alias":
            return ("line", fact["line"])
        if fact["kind"] == "move":
            return ("move", fact["person"], fact["date"])
        return (fact.get("line") or fact["project"], fact["date"])

    def value(fact: Fact) -> Any:
        return {"relation": fact.get("object"), "alias": fact.get("project"), "move": fact.get("to"),
                "budget_change": ("change", fact.get("delta"))}.get(fact["kind"], fact.get("amount"))

    return _over_worlds(_of_kind(facts, "relation", "alias", "move", "budget", "budget_change"), key, value, solve)



def day_of(spec: dict[str, Any], landmarks: dict[str, dt.date]) -> dt.date | None:
    """The day a ledger statement gives: written out (`date`), or `offset` days from a landmark event's date;
    None when the landmark's date is not stated."""
    if spec.get("date"):
        return dt.date.fromisoformat(spec["date"])
    at = landmarks.get(spec.get("landmark"))
    return None if at is None else at + dt.timedelta(days=spec["offset"])


class Accounts:
    """Which account a phrase of a ledger task names: a code names itself, a name stands for whatever phrase its
    alias statement gives (followed in turn; a dated alias renames: from its day on the name stands for its
    phrase instead), and `steward` names the account that person administered on the day (the last handover of
    each account on or before it). None when the facts leave it open: an unstated alias, a renamed name without
    a day, nobody's or two accounts in the person's care that day."""

    def __init__(self, world: list[Fact]):
        self.aliases: dict[str, list[tuple[dt.date | None, dict[str, str]]]] = {}
        for alias in sorted((f for f in world if f["kind"] == "alias"), key=lambda f: f.get("date") or ""):
            self.aliases.setdefault(alias["name"], []).append((_date(alias) if alias.get("date") else None,
                                                               alias["ref"]))
        self.handovers = sorted((f for f in world if f["kind"] == "steward"), key=_date)
        self._held: dict[dt.date, dict[str, list[str | None]]] = {}
        self._handed: list[tuple[dt.date, str | None, str]] | None = None

    def account(self, ref: dict[str, str], on: dt.date | None, depth: int = 0) -> str | None:
        """The code of the account `ref` names on the day `on`."""
        if "code" in ref:
            return ref["code"]
        if "name" in ref:
            follow = self._named(ref["name"], on)
            return None if follow is None or depth > len(self.aliases) else self.account(follow, on, depth + 1)
        if on is None:
            return None
        held = self._stewards(on).get(ref["steward"], [])
        return held[0] if len(held) == 1 else None

    def _named(self, name: str, on: dt.date | None) -> dict[str, str] | None:
        """The phrase a name stands for on a day: the last of its aliases dated on or before the day, or its
        undated one."""
        readings = self.aliases.get(name, [])
        if on is None:
            return readings[0][1] if len(readings) == 1 else None
        in_force = [ref for day, ref in readings if day is None or day <= on]
        return in_force[-1] if in_force else None

    def _stewards(self, on: dt.date) -> dict[str, list[str | None]]:
        """Per person, the accounts in their care at the end of a day (each handover's account is resolved once,
        on its own day)."""
        if on not in self._held:
            if self._handed is None:
                self._handed = [(_date(h), self.account(h["account"], _date(h)), h["person"]) for h in self.handovers]
            steward: dict[str | None, str] = {}
            for day, account, person in self._handed:
                if day <= on:
                    steward[account] = person
            held: dict[str, list[str | None]] = {}
            for account, person in steward.items():
                held.setdefault(person, []).append(account)
            self._held[on] = held
        return self._held[on]


AMENDMENTS = ("void", "correction", "reversal", "rebooking")
"""The kinds of ledger statements that amend the one booking of a day."""


def _ledger_key(fact: Fact) -> Any:
    """Functional keys of a ledger: one reading per alias (name and the day it takes effect), landmark, entry,
    handover (account and day) and opening, and one amendment per amended day."""
    kind = fact["kind"]
    if kind in AMENDMENTS:
        return ("amendment", canonical(fact["target"]))
    return _LEDGER_KEYS[kind](fact), kind


_LEDGER_KEYS: dict[str, Callable[[Fact], Any]] = {
    "alias": lambda fact: canonical([fact["name"], fact.get("date")]), "landmark": lambda fact: fact["event"],
    "entry": lambda fact: fact["entry"], "steward": lambda fact: canonical([fact["account"], fact["date"]]),
    "opening": lambda fact: canonical(fact["account"])}
"""The functional key of each kind of ledger statement but amendments."""


def _ledger_value(fact: Fact) -> str:
    """What a functional key of a ledger maps to: the fact without its id and placement."""
    return canonical({k: v for k, v in fact.items() if k not in ("fact_id", "doc_id", "start", "end", "checks")})


def derive_ledger(facts: list[Fact], query: dict[str, Any]) -> list[Any]:
    """The balance of the account the question names (`account`, a phrase) at the close of `until`: its opening
    figure plus what came in minus what went out, entry by entry up to that day. Every entry's day and accounts
    are resolved (a day may be given from a landmark event, an account by code, by an alias in force that day
    (a name may be renamed from a day on) or its administrator that day; the question's phrase as of `until`);
    an amendment applies to the one entry of its day: a void strikes it, a correction replaces its amount, a
    reversal undoes it from the reversal's own day on (so one dated after `until` changes nothing yet), a
    rebooking puts another account on one side of it (which may move it onto or off the asked account). An
    entry, alias or day that cannot be resolved, an amendment whose day holds no entry or two, or an entry of
    the account before its opening leaves the answer undetermined; plans and proposals are not facts of the
    ledger and are never read."""
    return LedgerDerivation(query)(facts)


class LedgerDerivation:
    """`derive_ledger` for one query, over many subsets of one task's facts (a minimal support): what depends on
    one fact alone (its functional key and value) is worked out once per fact, the accounts the aliases and
    handovers name once per set of them, and the days the statements give once per set of landmark events (each
    remembers the facts it was worked out from, which are not changed in between)."""

    def __init__(self, query: dict[str, Any]):
        self.query, self.until = query, dt.date.fromisoformat(query["until"])
        self._readings: dict[int, tuple[Fact, Any, str]] = {}
        self._accounts: dict[tuple[int, ...], tuple[list[Fact], _ResolvedAccounts]] = {}
        self._calendars: dict[tuple[int, ...], tuple[list[Fact], _Calendar]] = {}

    def __call__(self, facts: list[Fact]) -> list[Any]:
        """Every balance the facts admit."""
        return _over_worlds(_of_kind(facts, "alias", "landmark", "steward", "opening", "entry", *AMENDMENTS),
                            self._key, self._value, self._solve)

    def _reading(self, fact: Fact) -> tuple[Fact, Any, str]:
        found = self._readings.get(id(fact))
        if found is None:
            found = self._readings[id(fact)] = (fact, _ledger_key(fact), _ledger_value(fact))
        return found

    def _key(self, fact: Fact) -> Any:
        return self._reading(fact)[1]

    def _value(self, fact: Fact) -> str:
        return self._reading(fact)[2]

    def _accounts_of(self, world: list[Fact]) -> _ResolvedAccounts:
        """The accounts a world's aliases and handovers name (worked out once per set of them)."""
        naming = [f for f in world if f["kind"] in ("alias", "steward")]
        key = tuple(map(id, naming))
        found = self._accounts.get(key)
        if found is None:
            found = self._accounts[key] = (naming, _ResolvedAccounts(naming))
        return found[1]

    def _calendar_of(self, world: list[Fact]) -> _Calendar:
        """The days a world's landmark events give (worked out once per set of them)."""
        marks = [f for f in world if f["kind"] == "landmark"]
        key = tuple(map(id, marks))
        found = self._calendars.get(key)
        if found is None:
            found = self._calendars[key] = (marks, _Calendar({f["event"]: _date(f) for f in marks}))
        return found[1]

    def _solve(self, world: list[Fact]) -> list[Any]:
        query, until = self.query, self.until
        day = self._calendar_of(world).day
        accounts = self._accounts_of(world)
        target = accounts.account(query["account"], until)
        openings = [f for f in world if f["kind"] == "opening" and accounts.account(f["account"], _date(f)) == target]
        if target is None or len(openings) != 1 or _date(openings[0]) > until:
            return []
        days: dict[dt.date, list[Fact]] = {}
        for entry in (f for f in world if f["kind"] == "entry"):
            on = day(entry["when"])
            if on is None:
                return []
            days.setdefault(on, []).append(entry)
        amended = {}
        for amendment in (f for f in world if f["kind"] in AMENDMENTS):
            on = day(amendment["target"])
            if on is None or len(days.get(on, [])) != 1:
                return []
            amended[days[on][0]["entry"]] = amendment
        balance, opened = openings[0]["amount"], _date(openings[0])
        for on, entries in days.items():
            for entry in entries:
                amendment = amended.get(entry["entry"], {})
                sides = {"source": entry["source"], "sink": entry["sink"]}
                if amendment.get("kind") == "rebooking":
                    sides[amendment["side"]] = amendment["account"]
                ends = [accounts.account(ref, on) if ref else "" for ref in sides.values()]
                if None in ends:
                    return []
                sign = (ends[1] == target) - (ends[0] == target)
                if sign and on <= opened:
                    return []
                if not sign or on > until or amendment.get("kind") == "void" or (
                        amendment.get("kind") == "reversal" and _date(amendment) <= until):
                    continue
                balance += sign * amendment.get("amount", entry["amount"])
        return [balance]


class _Calendar:
    """The days a ledger's statements give, from the landmark events' dates (per day spec object, kept with it)."""

    def __init__(self, landmarks: dict[str, dt.date]):
        self.landmarks = landmarks
        self._days: dict[int, tuple[dict[str, Any], dt.date | None]] = {}

    def day(self, spec: dict[str, Any]) -> dt.date | None:
        """`day_of` the spec."""
        found = self._days.get(id(spec))
        if found is None:
            found = self._days[id(spec)] = (spec, day_of(spec, self.landmarks))
        return found[1]


class _ResolvedAccounts(Accounts):
    """`Accounts` that remember which account each phrase names on each day (per phrase object, kept with it)."""

    def __init__(self, world: list[Fact]):
        super().__init__(world)
        self._resolved: dict[tuple[int, dt.date | None], tuple[dict[str, str], str | None]] = {}

    def account(self, ref: dict[str, str], on: dt.date | None, depth: int = 0) -> str | None:
        if depth:
            return super().account(ref, on, depth)
        found = self._resolved.get((id(ref), on))
        if found is None:
            found = self._resolved[id(ref), on] = (ref, super().account(ref, on))
        return found[1]


DERIVATIONS: dict[str, Callable[[list[Fact], dict[str, Any]], list[Any]]] = {
    "cross_doc_integration": derive_integration,
    "timeline": derive_timeline,
    "evidence_attribution": derive_attribution,
    "consistency": derive_consistency,
    "rule_induction": derive_rules,
    "state_tracking": derive_state,
    "version_impact": derive_versions,
    "set_aggregation": derive_aggregation,
    "budget_rollup": derive_rollup,
    "ledger_balance": derive_ledger,
}
"""The derivation of each category's answer, by category name."""


def derivation(category: str, query: dict[str, Any]) -> Callable[[list[Fact]], list[Any]]:
    """A category's derivation under one query, as a function of the facts: for reading many subsets of one
    task's facts (the ledger's remembers what it works out from each fact)."""
    if category == "ledger_balance":
        return LedgerDerivation(query)
    derive = DERIVATIONS[category]
    return lambda facts: derive(facts, query)
