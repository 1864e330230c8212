"""Budget roll-up: the combined budget, as it stood at the end of a date, of the projects led by the staff of one
organisation, e.g. "What did the projects headed by staff of the Kavel Institute have to spend altogether at the
close of 3 May 2019?"

Nothing the question names leads to the answer by one text search:
- two hops through entities the question never names: the organisation's staff (stated as employment), then the
  projects they lead (stated as leadership), so the budgets to add are found only through people;
- superseded figures: each project's budget is stated when it was set and again in dated revisions; a revision
  replaces the earlier figure or changes it by an amount (added up from the last figure on), revisions after the asked date do not count yet, and proposals that were voted
  down change nothing (near-miss strength), so the first and the last statement naming a project both mislead;
- aggregation over several projects, each stated in other documents;
- at lexical gap 1 the question says "have to spend" and "headed by staff of", the documents say allocation,
  envelope, works for, in charge of: the question's words do not occur in the evidence; and a project's figures
  name only the ledger line it is booked under (stated once elsewhere), a third hop no search for the project's
  name finds.

The answer is derived from the world model (`graders/long_context/derive.py: derive_rollup`).
"""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import replace

from taskforge.builders.long_context.axes import PLACEMENT_KNOBS, Axes
from taskforge.builders.long_context.compose import Composition, Statement, capitalised, checks
from taskforge.builders.long_context.render import format_date, format_number
from taskforge.builders.long_context.world import (World, account_code, generate_world, invented_name, person_name,
                                                   unique_names)

CATEGORY = "budget_rollup"
KNOBS = {"near_miss_strength": (0, 1, 2, 3), "lexical_gap": (0, 1), "computational_depth": (2, 3, 4),
         "state_transition_depth": (0, 1, 2, 3), "search_space": (8, 12, 16, 24), **PLACEMENT_KNOBS}
START = {"near_miss_strength": 2, "lexical_gap": 1, "computational_depth": 3, "state_transition_depth": 2,
         "search_space": 8}
"""Where a root task starts on the ladders above (the easier levels stay for `start=easiest`)."""
MIN_TOKENS = 3072
"""The shortest target its sixty-odd statements fit (with the filler paragraphs that host them); shorter targets
build the other categories in turn."""
_PROJECT_KINDS = ("Project", "Programme", "Initiative", "Survey", "Array")
EMPLOYED = (("{x} is employed by {y}.", "{y} employs {x}."),
            ("{x} works for {y}.", "{x} holds a post at {y}.", "{x} has been on the payroll of {y} for years.",
             "{y} pays the salary of {x}."))
NOT_HIRED = "{x} applied for a post at {y} but was not hired."
LEADS = (("{x} is led by {y}.", "{y} leads {x}."),
         ("{y} is in charge of {x}.", "{x} runs under the direction of {y}.", "{y} coordinates the work on {x}."))
SET = (("The budget of {p} was set at {n} credits {date}.", "{date_cap}, {p} was given a budget of {n} credits."),
       ("{date_cap}, the steering board allotted {n} credits to {p}.",
        "{p} started out with an envelope of {n} credits, agreed {date}.",
        "An allocation of {n} credits for {p} was approved {date}."))
REVISED = (("The budget of {p} was revised to {n} credits {date}.",
            "{date_cap}, the budget of {p} was changed to {n} credits."),
           ("{date_cap}, the envelope of {p} was reset to {n} credits, replacing the earlier figure.",
            "A revision agreed {date} put the allocation for {p} at {n} credits.",
            "{p} had its allocation brought to {n} credits {date}, superseding what had been agreed before."))
LINES = ("In the accounts, {p} is booked under ledger line {line}.", "{p} draws its money through ledger line {line}.",
         "Ledger line {line} belongs to {p}.")
LEFT = ("{date_cap}, {x} left {left} and moved to {joined}.", "{x} exchanged {left} for {joined} {date}.")
JOINED = ("{date_cap}, {x} left {left} to join {joined}.", "{joined} took on {x}, until then at {left}, {date}.")
RAISED = ("{date_cap}, a further {n} credits were added to the allocation for {p}.",
          "The envelope of {p} grew by {n} credits {date}.")
CUT = ("{p} gave back {n} credits of its allocation {date}.",
       "{date_cap}, the envelope of {p} was cut by {n} credits.")
PROPOSED = ("{date_cap}, a motion to move the allocation for {p} to {n} credits was tabled and voted down.",
            "A proposal of {date_plain} to give {p} {n} credits in all was withdrawn before any vote.")


def _project(rng: random.Random) -> str:
    return f"{rng.choice(_PROJECT_KINDS)} {invented_name(rng, 2)}"


class _Writer:
    """Writes the statements of one task in the wordings of its lexical-gap level."""

    def __init__(self, axes: Axes, rng: random.Random):
        self.gap, self.rng, self.statements = min(axes.lexical_gap, 1), rng, []

    def relation(self, subject: str, relation: str, obj: str, role: str, wording: str) -> None:
        """A statement that `subject` is employed by or led by `obj` (or, `not_hired`, was refused a post)."""
        kind = "negated" if relation == "not_hired" else "relation"
        record = {"fact_id": f"f{len(self.statements)}", "kind": kind, "subject": subject,
                  "relation": "employed_by" if kind == "negated" else relation, "object": obj,
                  "checks": checks(texts=(subject, obj))}
        slots = {"x": subject, "y": obj}
        self.statements.append(Statement(record, capitalised(wording.format(**slots)), role=role))

    def line(self, project: str, line: str, role: str) -> None:
        """A statement of the ledger line a project's money is booked under."""
        record = {"fact_id": f"f{len(self.statements)}", "kind": "alias", "project": project, "line": line,
                  "checks": checks(texts=(project, line))}
        self.statements.append(Statement(record, self.rng.choice(LINES).format(p=project, line=line), role=role))

    def move(self, person: str, left: str, joined: str, date: dt.date, wordings: tuple[str, ...]) -> None:
        """A dated statement that a person left one organisation for another (a near miss: before the asked
        date it takes them off the asked organisation's staff, after it it does not yet put them on)."""
        record = {"fact_id": f"f{len(self.statements)}", "kind": "move", "person": person, "to": joined,
                  "date": date.isoformat(), "checks": checks(texts=(person, joined), dates=(date.isoformat(),))}
        written = format_date(date, self.rng.randrange(5))
        text = self.rng.choice(wordings).format(x=person, left=left, joined=joined, date=written,
                                                date_cap=capitalised(written))
        self.statements.append(Statement(record, capitalised(text), role="distractor"))

    def budget(self, project: str, line: str | None, amount: int, date: dt.date, role: str, kind: str) -> None:
        """A budget statement of a project, naming the project or only its ledger line: set, revised to a new
        figure, changed by an amount (`amount` signed), or a proposal that was not adopted. A statement naming the line records it; the project it also records is
        for readers (the derivation reaches it through the line's statement)."""
        fact_kind = {"proposal": "proposal", "change": "budget_change"}.get(kind, "budget")
        record = {"fact_id": f"f{len(self.statements)}", "kind": fact_kind, "project": project, "line": line,
                  "date": date.isoformat(), "checks": checks(texts=(line or project,), dates=(date.isoformat(),),
                                                             numbers=(abs(amount),))}
        record["delta" if kind == "change" else "amount"] = amount
        wording = self.rng.choice({"set": SET[self.gap], "revised": REVISED[self.gap], "proposal": PROPOSED,
                                   "change": RAISED if amount > 0 else CUT}[kind])
        written = format_date(date, self.rng.randrange(4 if kind == "proposal" else 5))
        named = f"ledger line {line}" if line else project
        text = wording.format(p=named, n=format_number(abs(amount), self.rng.randrange(2)), date=written,
                              date_cap=capitalised(written), date_plain=written.removeprefix("on "))
        self.statements.append(Statement(record, capitalised(text), role=role))


def _amount(rng: random.Random, avoid: set[int]) -> int:
    """A budget figure not used before in the task."""
    while True:
        amount = rng.randrange(12000, 96000, 250)
        if amount not in avoid:
            avoid.add(amount)
            return amount


def _budgets(writer: _Writer, project: str, line: str | None, counted: bool, until: dt.date, revisions: int,
             near: int, rng: random.Random, used: set[int]) -> None:
    """A project's budget history: set, `revisions` revisions on or before `until` (each a new figure or a
    change by an amount), and near misses (a revision after `until` at strength 1, a proposal voted down before
    it at strength 2). The evidence is the last new figure and the changes after it."""
    days = sorted(rng.sample(range(20, 700), revisions + 1))
    dates = [until - dt.timedelta(days=d) for d in reversed(days)]
    kinds = ["set", *(rng.choice(("revised", "change")) for _ in dates[1:])]
    last_figure = max(k for k, kind in enumerate(kinds) if kind != "change")
    level = 0
    for k, (date, kind) in enumerate(zip(dates, kinds)):
        role = "evidence" if counted and k >= last_figure else "distractor"
        if kind == "change":
            amount = rng.choice((1, -1)) * rng.randrange(1000, min(level // 2, 20000), 250)
        else:
            amount = _amount(rng, used)
        level = level + amount if kind == "change" else amount
        writer.budget(project, line, amount, date, role, kind)
    if near >= 1:
        writer.budget(project, line, _amount(rng, used), until + dt.timedelta(days=rng.randint(1, 120)),
                      "distractor", "revised")
    if near >= 2:
        between = dates[0] + dt.timedelta(days=rng.randint(1, max(1, (until - dates[0]).days - 1)))
        if between not in dates:
            writer.budget(project, line, _amount(rng, used), between, "distractor", "proposal")


def compose(seed: int, axes: Axes, rng: random.Random) -> tuple[Composition, World]:
    """`search_space` projects led by people of several organisations; `computational_depth` of them are led by
    staff of the asked organisation, each with `state_transition_depth` revisions of its budget before the date."""
    world = generate_world(seed, 0)
    names = random.Random(seed)
    projects = unique_names(names, _project, axes.search_space)
    people = unique_names(names, person_name, max(5, axes.search_space // 2))
    organisation = rng.choice(world.organisations)
    others = [o for o in world.organisations if o != organisation]
    n_counted = axes.computational_depth
    staff = list(people[: max(2, n_counted - 1)])
    idle = people[len(staff): len(staff) + (axes.near_miss_strength >= 3)]
    outsiders = list(people[len(staff) + len(idle):])
    employer = {p: organisation for p in [*staff, *idle]} | {p: rng.choice(others) for p in outsiders}
    counted = list(projects[:n_counted])
    leader = {p: staff[k % len(staff)] for k, p in enumerate(counted)}
    leader |= {p: rng.choice(outsiders) for p in projects[n_counted:]}
    until = dt.date(2014, 1, 1) + dt.timedelta(days=rng.randrange(2800))
    writer = _Writer(axes, rng)
    for person in people:
        role = "evidence" if person in leader.values() and employer[person] == organisation else "context"
        writer.relation(person, "employed_by", employer[person], role, rng.choice(EMPLOYED[writer.gap]))
    for project in projects:
        role = "evidence" if project in counted else "context"
        writer.relation(project, "led_by", leader[project], role, rng.choice(LEADS[writer.gap]))
    if axes.near_miss_strength >= 2:
        leading = [p for p in outsiders if p in leader.values()]
        for person in rng.sample(leading, min(2, len(leading))):
            writer.relation(person, "not_hired", organisation, "distractor", NOT_HIRED)
        for person, moved in zip(rng.sample(leading, min(2, len(leading))), (-1, 1)):
            when = until + dt.timedelta(days=moved * rng.randint(10, 400))
            if moved < 0:
                writer.relation(person, "employed_by", organisation, "distractor", rng.choice(EMPLOYED[writer.gap]))
                writer.move(person, organisation, employer[person], when, LEFT)
            else:
                writer.move(person, employer[person], organisation, when, JOINED)
    used: set[int] = set()
    codes = unique_names(rng, account_code, len(projects))
    for project, code in zip(projects, codes):
        is_counted = project in counted
        line = code if writer.gap else None
        if line:
            writer.line(project, line, "evidence" if is_counted else "context")
        revisions = axes.state_transition_depth if is_counted else int(rng.random() < 0.3)
        _budgets(writer, project, line, is_counted, until, revisions, axes.near_miss_strength if is_counted else 0,
                 rng, used)
    statements = writer.statements
    rng.shuffle(statements)
    date_text = format_date(until, 0).removeprefix("on ")
    if writer.gap:
        question = (f"Taken together, how many credits did the projects headed by staff of {organisation} have to "
                    f"spend at the close of {date_text}, counting the staff of that day?")
    else:
        question = (f"What was the combined budget, in credits, of the projects led by people employed by "
                    f"{organisation} on {date_text}, as it stood at the end of that day?")
    question += " Reply with a whole number on a final line of the form 'Answer: N'."
    return Composition(
        category=CATEGORY, statements=statements, question=question,
        query={"organisation": organisation, "until": until.isoformat()}, answer_type="quantity",
        scorer="long_context.aggregate", format_answer=str, probes=[organisation],
        axes=replace(axes, answer_scope=n_counted, predicate_composition=3,
                     derivation_depth=3 + axes.state_transition_depth),
    ), world
