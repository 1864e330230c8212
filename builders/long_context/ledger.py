"""Ledger balance: the balance of one account at the close of a date, replayed from a long run of bookings,
e.g. "What was the balance, in credits, of the Kavel Institute travel reserve at the close of 3 May 2019?"

Built so that a shell cannot reduce it to a few text searches:
- many facts: the opening figure and a dozen or more bookings in and out of the account, each stated in its own
  sentence somewhere in the documents, plus voids, corrections and reversals of some of them;
- one account, many names: the question's phrase is an alias of a nickname, itself an alias of an account code,
  and bookings name the account by any of them or by the person administering it that day ("the account then
  run by Imara Voss", "the account Imara Voss administered at the time"); administrators hand accounts over on
  dated days, so one person names different accounts at different times and only the handovers tell which;
  one more nickname moves: it names one account (the asked one or another) until a dated renaming and another
  from then on ("From 3 May 2019 on, the Tarn fund meant account KA-4821"; its first account is said with the
  day it stops: "Until 3 May 2019, the Tarn fund was the name everyone used for account KB-1180"), so bookings
  naming it count for whichever it meant on their day;
- amendments name no booking: "the entry booked the day before the Tarn shipment is void" strikes the one
  booking of that day, found only by dating the landmark event and looking through every booking (a booking
  written from a landmark is amended with its date written out, and the other way round); days of bookings are
  also given from landmarks ("two days after the flood at Vel Ridge"); a rebooking moves another account's
  booking onto the asked one, or one of its own off it;
- many wordings: a dozen ways to write a transfer, several for income, spending, aliases, handovers, voids,
  corrections and reversals, amounts in digits (with or without separators) or in words;
- decoys sharing the keywords: the same purpose's reserve of another organisation and another reserve of the
  same organisation, bookings after the date, reversals dated after it (they do not count yet), amendments of
  other accounts' bookings, and plans, proposals and hypotheticals that were never booked.
- filler in the same language: the task's filler speaks of other organisations' accounts, bookings, voids and
  audits at the facts' rate (`filler.py`), never naming what the derivation resolves (`withheld`) nor dated on
  a day an amendment names (`quiet_days`), so the one booking of that day stays the only one to match.

The answer is derived from the statements' facts (`graders/long_context/derive.py: derive_ledger`); which
statements are evidence is what that derivation needs (a minimal support), never decided by the generator.
"""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import replace
from typing import Any

from taskforge.builders.long_context.axes import PLACEMENT_KNOBS, Axes
from taskforge.builders.long_context.compose import Composition, Statement, UnanswerableError, capitalised, checks
from taskforge.builders.long_context.render import format_date, format_number, in_words
from taskforge.builders.long_context.world import (DAY_OFFSETS, RESERVE_PURPOSES, World, account_code, generate_world,
                                                   invented_name, person_name, unique_names)
from taskforge.graders.long_context.answerability import minimal_support
from taskforge.graders.long_context.derive import AMENDMENTS, Accounts, LedgerDerivation, day_of, derive_ledger

CATEGORY = "ledger_balance"
KNOBS = {"state_transition_depth": (8, 12, 16, 22, 32, 48, 64, 96), "near_miss_strength": (1, 2, 3),
         "search_space": (5, 7, 9), **PLACEMENT_KNOBS}
START = {"state_transition_depth": 16, "near_miss_strength": 2, "search_space": 5, "positional_nonlocality": 0.9,
         "distractor_dispersion": 0.6}
"""Where a root task starts on the ladders above (the easier levels stay for `start=easiest`)."""
START_AT_LENGTH = {65536: {"state_transition_depth": 32}, 131072: {"state_transition_depth": 96}}
"""Longer targets start deeper: a 64K root replays 32 bookings, a 128K root 96, so the facts to integrate grow
with the context rather than the filler alone (a read-only solver, reading a 128K root of 48 bookings with a file
viewer only, still got its balance right)."""
ADMINISTRATION_RULE = ("A person keeps administering every account handed to them until it is handed to someone "
                       "else.")
"""How the question reads handovers, as `derive_ledger` does: a second account does not end the first (a solver
had read the newer account as replacing the older)."""
AMENDMENTS_EVERY = 16
"""One round of amendments of the asked account (void, correction, reversal, rebooking) per about this many of
its bookings: one up to 23 bookings, two at 32, three at 48."""
MIN_TOKENS = 8192
"""The shortest target its hundred-odd statements fit with the filler that hosts them; shorter targets build
the other categories in turn."""

_LANDMARKS = (("the {place} inspection", ("{E} was carried out {d}.", "{D}, inspectors arrived for {e}.")),
              ("the flood at {place}", ("{E} happened {d}.", "{D}, heavy rain caused {e}.")),
              ("the {place} shipment", ("{E} was delivered {d}.", "{D}, {e} reached the stores.")),
              ("the move to {place}", ("{E} was completed {d}.", "Staff finished {e} {d}.")),
              ("the {place} open day", ("{E} was held {d}.", "{D}, visitors came for {e}.")))
TRANSFER = ("{D}, {src} transferred {n} to {dst}.", "{Dst} received {n} from {src} {d}.",
            "{N} moved from {src} into {dst} {d}.", "{D}, {src} was debited {n} in favour of {dst}.",
            "{Dst} was credited with {n} out of {src} {d}.", "A payment of {n} left {src} for {dst} {d}.",
            "{D}, {n} were shifted out of {src} to cover costs booked on {dst}.",
            "{Src} settled {n} owed to {dst} {d}.", "{D}, {dst} drew {n} on {src}.",
            "The clerk booked {n} from {src} across to {dst} {d}.")
INCOME = ("{D}, {dst} took in {n} from a private donor.",
          "A grant instalment of {n} was paid into {dst} {d}.",
          "{Dst} received {n} in ticket sales {d}.", "{D}, a refund of {n} from a supplier landed in {dst}.",
          "{N} of membership fees were deposited in {dst} {d}.",
          "{Dst} was topped up with {n} by the regional council {d}.")
SPENDING = ("{D}, {src} paid {n} for a hired van.", "An invoice of {n} for printing was settled from {src} {d}.",
            "{Src} spent {n} on conference fees {d}.", "{D}, {n} went out of {src} to a catering firm.",
            "{Src} covered a repair bill of {n} {d}.", "{D}, {src} was charged {n} for a software licence.")
VOID = ("The entry booked {t} was made in error and is void.",
        "Auditors struck out the entry of {tn}: it should never have been recorded.",
        "Whatever was booked {t} is to be disregarded; the entry was a duplicate.",
        "The booking of {tn} is cancelled as a clerical error.",
        "Nothing booked {t} ever took place; that entry is void.")
CORRECTION = ("The amount of the entry booked {t} should read {n}.",
              "A correction notice fixes the entry of {tn} at {n}, not the figure first typed in.",
              "The entry of {tn} was mistyped: the true amount was {n}.",
              "{T}, the sum booked was in fact {n}, as the receipt shows.")
REVERSAL = ("{R}, the entry booked {t} was reversed in full.",
            "The entry of {tn} was unwound {r}, the money going back where it came from.",
            "{R}, the bookkeepers reversed what had been entered {t}.")
REBOOKED = {"sink": ("The money booked {t} went into the wrong account: it belonged in {a}.",
                     "{T}, the receipt was posted to the wrong fund; the right one was {a}.",
                     "The entry of {tn} named the wrong account as the recipient: it should have been {a}."),
            "source": ("The payment booked {t} was charged to the wrong account: {a} paid it.",
                       "The entry of {tn} named the wrong payer; the money came out of {a}.",
                       "{T}, the wrong account was debited: the payment was made from {a}.")}
PLAN = ("A transfer of {n} from {src} to {dst} was pencilled in for {dn} but never made.",
        "Had the board approved it, {n} would have moved from {src} to {dst}.",
        "The committee discussed paying {n} out of {src} into {dst} and decided against it.",
        "{Src} was asked to lend {n} to {dst}; the request was turned down {d}.",
        "A draft budget foresaw {dst} receiving {n} from {src}, but the draft was never adopted.")
ALIAS = ("{X} is the name everyone uses for {y}.", "{Y} is known around the office as {x}.",
         "In the books, {x} appears as {y}.", "{X} and {y} are one and the same account.",
         "People call {y} simply {x}.")
RENAMING = ("{D}, the name {x} passed to {y}.", "From {dn} on, {x} meant {y}.",
            "{D}, the clerks took the name {x} off its old account and gave it to {y}.",
            "{X} has stood for {y} since {dn}.")
RENAMED_FROM = ("Until {dn}, {x} was the name everyone used for {y}.", "Up to {dn}, {y} was known as {x}.",
                "{X} was the name of {y} until {dn}.")
"""The first holder of a name that a dated renaming later moves: said with the day it stops."""
STEWARD = ("{D}, {p} took over the administration of {a}.", "{p} became the administrator of {a} {d}.",
           "{A} was handed to {p} to administer {d}.", "From {dn} on, {a} was in the care of {p}.",
           "{D}, responsibility for {a} passed to {p}.")
STEWARD_REFS = ("the account then run by {p}", "the fund then in {p}'s care",
                "the account {p} administered at the time")
OPENING = ("{A} opened its books {d} with {n}.", "{D}, {a} started with a balance of {n}.",
           "The opening balance of {a}, struck {d}, was {n}.")
_NAMING_KINDS = ("alias", "steward", "landmark")
"""Statements that say which account a phrase names or which day a landmark gives."""
class _Account:
    """One account: its code, nickname, the reserve it is (owner and purpose, in two phrasings) and its opening."""

    def __init__(self, code: str, nickname: str, owner: str, purpose: str, opened: dt.date, opening: int):
        self.code, self.nickname, self.owner, self.purpose = code, nickname, owner, purpose
        self.role, self.reserve = f"the {owner} {purpose} reserve", f"the {purpose} reserve of {owner}"
        self.opened, self.opening = opened, opening


class _Writer:
    """Writes the statements of one task: each fact's record (as `derive_ledger` reads it), its sentence and
    what the evidence check must find in it."""

    def __init__(self, rng: random.Random, accounts: list[_Account], landmarks: dict[str, dt.date]):
        self.rng, self.accounts, self.landmarks = rng, accounts, landmarks
        self.statements: list[Statement] = []
        self.handovers: list[dict[str, Any]] = []
        self.handover_days: set[dt.date] = set()
        self.amended_days: set[dt.date] = set()
        self.renamed: tuple[str, _Account, dt.date, _Account] | None = None

    def _add(self, record: dict[str, Any], sentence: str, texts: list[str], numbers: list[int],
             dates: list[dt.date], role: str = "context") -> None:
        record = {"fact_id": f"f{len(self.statements)}", **record,
                  "checks": checks(texts=tuple(texts), numbers=tuple(numbers),
                                   dates=tuple(d.isoformat() for d in dates))}
        self.statements.append(Statement(record, capitalised(sentence), role=role))

    def amount(self, n: int) -> tuple[str, list[str], list[int]]:
        """An amount written in digits (with or without separators) or in words, mostly with its unit, and how the
        check finds it."""
        style, unit = self.rng.randrange(5), " credits" if self.rng.random() < 0.75 else ""
        if style >= 3:
            return in_words(n) + unit, [in_words(n)], []
        return format_number(n, style) + unit, [], [n]

    def day(self, day: dt.date) -> tuple[str, str, list[str], list[dt.date]]:
        """A day written out in one of the date styles: the adverbial ('on 3 May 2019', 'in May 2019, on the
        3rd'), the bare form ('3 May 2019'), the texts and dates the check finds."""
        style = self.rng.randrange(5)
        bare = format_date(day, style if style < 4 else 0).removeprefix("on ")
        return format_date(day, style), bare, [], [day]

    def relative(self, spec: dict[str, Any]) -> tuple[str, str, list[str], list[dt.date]]:
        """A day given from a landmark event, in the same shapes as `day`."""
        written = f"{DAY_OFFSETS[spec['offset']]} {spec['landmark']}"
        return written, written, [spec["landmark"]], []

    def when(self, spec: dict[str, Any]) -> tuple[str, str, list[str], list[dt.date]]:
        """The written forms of a day spec (`date`, or `landmark` and `offset`)."""
        return self.day(dt.date.fromisoformat(spec["date"])) if spec.get("date") else self.relative(spec)

    def naming(self, account: _Account, on: dt.date | None) -> tuple[dict[str, str], str, str]:
        """A phrase naming the account on a day: its code, nickname, the reserve it is (either phrasing), the
        renamed name where it stands for this account that day (not on the renaming's day), or (where that person
        holds no other account then and no handover falls on the day) its administrator; the reference as derive
        reads it, the phrase, and the text the check finds."""
        forms = ["code", "name", "role", "reserve"]
        steward = self._steward_of(account, on)
        if steward:
            forms += ["steward"] * 3
        if self.renamed and on is not None and on != self.renamed[2] \
                and account is self.renamed[1 if on < self.renamed[2] else 3]:
            forms += ["renamed"] * 3
        form = self.rng.choice(forms)
        if form == "code":
            return {"code": account.code}, f"account {account.code}", account.code
        if form == "renamed":
            return {"name": self.renamed[0]}, self.renamed[0], self.renamed[0]
        if form != "steward":
            phrase = {"name": account.nickname, "role": account.role, "reserve": account.reserve}[form]
            return {"name": phrase}, phrase, phrase
        return {"steward": steward}, self.rng.choice(STEWARD_REFS).format(p=steward), steward

    def _steward_of(self, account: _Account, on: dt.date | None) -> str | None:
        """The person who, by the handovers written so far, administers only this account on the day."""
        if on is None or on in self.handover_days:
            return None
        resolved = Accounts(self.handovers + self._aliases())
        people = {h["person"] for h in self.handovers}
        held = [p for p in people if resolved.account({"steward": p}, on) == account.code]
        return held[0] if held else None

    def _aliases(self) -> list[dict[str, Any]]:
        return [{"kind": "alias", "name": name, "ref": {"code": a.code}} for a in self.accounts
                for name in (a.nickname, a.role, a.reserve)]

    def alias(self, name: str, ref: dict[str, str], phrase: str) -> None:
        """A statement that a name stands for another phrase of the same account."""
        text = self.rng.choice(ALIAS).format(x=name, X=capitalised(name), y=phrase, Y=capitalised(phrase))
        self._add({"kind": "alias", "name": name, "ref": ref}, text, [name, phrase], [], [])

    def rename(self, name: str, before: _Account, day: dt.date, after: _Account) -> None:
        """A name that stands for one account and, from a dated renaming on, for another."""
        written, bare, _, dates = self.day(day)
        ref, phrase, _ = self.naming(before, None)
        text = self.rng.choice(RENAMED_FROM).format(x=name, X=capitalised(name), y=phrase, dn=bare)
        self._add({"kind": "alias", "name": name, "ref": ref}, text, [name, phrase], [], dates)
        ref, phrase, _ = self.naming(after, None)
        text = self.rng.choice(RENAMING).format(x=name, X=capitalised(name), y=phrase, d=written,
                                                D=capitalised(written), dn=bare)
        self._add({"kind": "alias", "name": name, "ref": ref, "date": day.isoformat()}, text, [name, phrase], [],
                  dates)
        self.renamed = (name, before, day, after)

    def landmark(self, event: str, day: dt.date, wordings: tuple[str, ...]) -> None:
        """A dated landmark event other statements give days from."""
        written, _, _, dates = self.day(day)
        text = self.rng.choice(wordings).format(E=capitalised(event), e=event, d=written, D=capitalised(written))
        self._add({"kind": "landmark", "event": event, "date": day.isoformat()}, text, [event], [], dates)

    def steward(self, person: str, account: _Account, day: dt.date) -> None:
        """A dated handover of an account to a person."""
        ref, phrase, found = self.naming(account, None)
        written, bare, _, dates = self.day(day)
        text = self.rng.choice(STEWARD).format(p=person, a=phrase, A=capitalised(phrase), d=written,
                                               D=capitalised(written), dn=bare)
        record = {"kind": "steward", "person": person, "account": ref, "date": day.isoformat()}
        self.handovers.append(record)
        self.handover_days.add(day)
        self._add(record, text, [person, found], [], dates)

    def opening(self, account: _Account, role: str) -> None:
        """The account's opening figure and day."""
        ref, phrase, found = self.naming(account, None)
        written, _, _, dates = self.day(account.opened)
        n, texts, numbers = self.amount(account.opening)
        text = self.rng.choice(OPENING).format(a=phrase, A=capitalised(phrase), d=written, D=capitalised(written), n=n)
        self._add({"kind": "opening", "account": ref, "amount": account.opening, "date": account.opened.isoformat()},
                  text, [found, *texts], numbers, dates, role)

    def entry(self, entry_id: str, source: _Account | None, sink: _Account | None, amount: int,
              spec: dict[str, Any], day: dt.date, role: str) -> None:
        """A booking of `amount` from `source` to `sink` (None: outside the ledger) on a day given by `spec`."""
        d, _, texts, dates = self.when(spec)
        n, amount_texts, numbers = self.amount(amount)
        slots = {"d": d, "D": capitalised(d), "n": n, "N": capitalised(n)}
        record: dict[str, Any] = {"kind": "entry", "entry": entry_id, "amount": amount, "when": spec}
        for side, account, key in (("source", source, "src"), ("sink", sink, "dst")):
            ref, phrase, found = self.naming(account, day) if account else (None, "", None)
            record[side] = ref
            slots |= {key: phrase, key.capitalize(): capitalised(phrase)}
            texts += [found] if found else []
        wordings = TRANSFER if source and sink else INCOME if sink else SPENDING
        self._add(record, self.rng.choice(wordings).format(**slots), texts + amount_texts, numbers, dates, role)

    def amendment(self, kind: str, spec: dict[str, Any], role: str, amount: int | None = None,
                  reversed_on: dt.date | None = None, rebooked: tuple[str, _Account] | None = None) -> None:
        """A void, correction, reversal or rebooking (one side of it moved to another account) of the one
        booking on the day `spec` gives."""
        t, tn, texts, dates = self.when(spec)
        self.amended_days.add(day_of(spec, self.landmarks))
        slots = {"t": t, "tn": tn, "T": capitalised(t)}
        record: dict[str, Any] = {"kind": kind, "target": spec}
        numbers: list[int] = []
        wordings = {"void": VOID, "correction": CORRECTION, "reversal": REVERSAL}.get(kind, ())
        if amount is not None:
            n, amount_texts, numbers = self.amount(amount)
            slots["n"], texts = n, texts + amount_texts
            record["amount"] = amount
        if reversed_on is not None:
            r, _, _, reversal_dates = self.day(reversed_on)
            slots |= {"r": r, "R": capitalised(r)}
            record["date"], dates = reversed_on.isoformat(), dates + reversal_dates
        if rebooked is not None:
            side, account = rebooked
            ref, phrase, found = self.naming(account, day_of(spec, self.landmarks))
            slots["a"], texts, wordings = phrase, texts + [found], REBOOKED[side]
            record |= {"side": side, "account": ref}
        self._add(record, self.rng.choice(wordings).format(**slots), texts, numbers, dates, role)

    def plan(self, source: _Account, sink: _Account, amount: int, day: dt.date) -> None:
        """A transfer that was planned, proposed or imagined but never booked (a decoy: derive never reads it)."""
        s_ref, src, s_found = self.naming(source, None)
        d_ref, dst, d_found = self.naming(sink, None)
        n, texts, numbers = self.amount(amount)
        written, bare, _, _ = self.day(day)
        text = self.rng.choice(PLAN).format(n=n, src=src, Src=capitalised(src), dst=dst, d=written, dn=bare)
        self._add({"kind": "plan", "source": s_ref, "sink": d_ref, "amount": amount, "date": day.isoformat()},
                  text, [s_found, d_found, *texts], numbers, [], "distractor")


def _accounts(world: World, organisation: str, count: int, near: int, rng: random.Random,
              opened: dt.date) -> list[_Account]:
    """`count` accounts, the first the asked one; at near-miss strength 3 the second is the same purpose's
    reserve of another organisation and the third another reserve of the asked organisation."""
    purpose = rng.choice(RESERVE_PURPOSES)
    others = [o for o in world.organisations if o != organisation]
    owners = [(organisation, purpose)]
    if near >= 3:
        owners += [(rng.choice(others), purpose),
                   (organisation, rng.choice([p for p in RESERVE_PURPOSES if p != purpose]))]
    while len(owners) < count:
        pair = (rng.choice(others), rng.choice(RESERVE_PURPOSES))
        if pair not in owners:
            owners.append(pair)
    codes = unique_names(rng, account_code, count)
    nicknames = unique_names(rng, lambda r: f"the {invented_name(r, 2)} fund", count)
    return [_Account(code, nickname, owner, use, opened - dt.timedelta(days=rng.randrange(0, 60)),
                     rng.randrange(18000, 60000, 50))
            for code, nickname, (owner, use) in zip(codes, nicknames, owners)]


def _days(rng: random.Random, first: dt.date, last: dt.date, taken: set[dt.date]) -> dt.date:
    """A free day in [first, last], marked taken."""
    while True:
        day = first + dt.timedelta(days=rng.randrange((last - first).days + 1))
        if day not in taken:
            taken.add(day)
            return day


def _landmark_day(rng: random.Random, landmarks: dict[str, dt.date], first: dt.date, last: dt.date,
                  taken: set[dt.date]) -> dict[str, Any] | None:
    """A free day in [first, last] some landmark gives by an offset, as a spec; None when none is free."""
    options = [(event, offset) for event, at in landmarks.items() for offset in DAY_OFFSETS
               if first <= at + dt.timedelta(days=offset) <= last and at + dt.timedelta(days=offset) not in taken]
    if not options:
        return None
    event, offset = rng.choice(options)
    taken.add(landmarks[event] + dt.timedelta(days=offset))
    return {"landmark": event, "offset": offset}


def _support(statements: list[Statement], query: dict[str, Any], answer: int) -> set[str]:
    """The ids of a subset of the statements that determines the answer and from which no single statement can
    be dropped (minimal support, repeated until it holds: the ledger's derivation is not monotone, an amendment
    without its booking leaves the answer open). It starts from the statements the generator meant as evidence
    with every alias, handover and landmark when those alone determine the answer (a shortcut: the derivation
    decides what stays), else from all of them; amendments are tried first and what names accounts and days
    last, so that one pass mostly suffices."""
    order = {kind: k for k, kind in enumerate((*AMENDMENTS, "plan", "entry", "opening", *_NAMING_KINDS))}
    facts = sorted((s.record for s in statements), key=lambda fact: order[fact["kind"]])
    evidence = {s.record["fact_id"] for s in statements if s.role == "evidence"}
    meant = [f for f in facts if f["fact_id"] in evidence or f["kind"] in _NAMING_KINDS]
    derive = LedgerDerivation(query)
    if derive(meant) == [answer]:
        facts = meant
    while True:
        kept = minimal_support(CATEGORY, facts, query, answer, derive)
        if len(kept) == len(facts):
            return set(kept)
        facts = [f for f in facts if f["fact_id"] in set(kept)]


class _Bookings:
    """The bookings of a task as they are written, each on a day no other booking has: (entry id, day spec,
    source, sink, amount). Some days are chosen near a landmark; such a day is written from the landmark or
    written out, and an amendment names it the other way round, so that no phrase links the two."""

    def __init__(self, writer: _Writer, rng: random.Random, landmarks: dict[str, dt.date]):
        self.writer, self.rng, self.landmarks = writer, rng, landmarks
        self.taken: set[dt.date] = set()
        self.made: list[tuple[str, dict[str, Any], _Account | None, _Account | None, int]] = []

    def book(self, source: _Account | None, sink: _Account | None, span: tuple[dt.date, dt.date], near: float,
             role: str = "context", amount: int | None = None) -> None:
        """A booking on a free day of `span` (near a landmark with probability `near`)."""
        spec = _landmark_day(self.rng, self.landmarks, *span, self.taken) if self.rng.random() < near else None
        if spec and self.rng.random() < 0.5:
            spec = {"date": day_of(spec, self.landmarks).isoformat()}
        spec = spec or {"date": _days(self.rng, *span, self.taken).isoformat()}
        entry_id, amount = f"e{len(self.made)}", amount or self.rng.randrange(150, 6000, 50)
        self.writer.entry(entry_id, source, sink, amount, spec, day_of(spec, self.landmarks), role)
        self.made.append((entry_id, spec, source, sink, amount))

    def amend(self, booking: tuple, kind: str, role: str, **change: Any) -> None:
        """An amendment of a booking naming its day the other way round from the booking."""
        at = day_of(booking[1], self.landmarks)
        named = _landmark_spec(self.landmarks, at) if booking[1].get("date") else None
        self.writer.amendment(kind, named or {"date": at.isoformat()}, role, **change)


def _amend(bookings: _Bookings, target: _Account, others: list[_Account], near: int,
           window: tuple[dt.date, dt.date]) -> None:
    """Amendments: of the target's bookings a void and a correction, a reversal (dated before or after the asked
    day) from near-miss strength 2 and a rebooking to another account from 3, a round per `AMENDMENTS_EVERY` of
    its bookings; of other bookings up to the asked
    day, a rebooking onto the target from strength 2 (it then counts) and two voids (they change nothing)."""
    rng, (until, after) = bookings.rng, window
    ours = [b for b in bookings.made if target in b[2:4]]
    kinds = ("void", "correction", "reversal", "rebooking")[:2 + (near >= 2) + (near >= 3)]
    kinds *= max(1, round(len(ours) / AMENDMENTS_EVERY))
    for booking, kind in zip(rng.sample(ours, len(kinds)), kinds):
        amount, at = booking[4], day_of(booking[1], bookings.landmarks)
        if kind == "correction":
            fixed = amount + (500 if amount < 1000 else rng.choice((-500, 500)))
            bookings.amend(booking, kind, "evidence", amount=fixed)
        elif kind == "reversal":
            bookings.amend(booking, kind, "evidence", reversed_on=_later(rng, at, until, after))
        elif kind == "rebooking":
            side = "sink" if booking[3] is target else "source"
            bookings.amend(booking, kind, "evidence", rebooked=(side, rng.choice([o for o in others
                                                                                  if o not in booking[2:4]])))
        else:
            bookings.amend(booking, kind, "evidence")
    theirs = [b for b in bookings.made if target not in b[2:4] and day_of(b[1], bookings.landmarks) <= until]
    picked = rng.sample(theirs, 3)
    if near >= 2:
        bookings.amend(picked[0], "rebooking", "evidence", rebooked=("sink", target))
    for booking in picked[1:]:
        bookings.amend(booking, "void", "distractor")


def compose(seed: int, axes: Axes, rng: random.Random) -> tuple[Composition, World]:
    """An account with `state_transition_depth` bookings up to the asked day among `search_space` accounts,
    named in every way the statements allow, with amendments and the near misses of `near_miss_strength`."""
    world = generate_world(seed, 0)
    names = random.Random(seed)
    until = dt.date(2014, 1, 1) + dt.timedelta(days=rng.randrange(2800))
    start = until - dt.timedelta(days=rng.randint(420, 640))
    organisation = rng.choice(world.organisations)
    accounts = _accounts(world, organisation, axes.search_space, axes.near_miss_strength, rng, start)
    target, others = accounts[0], accounts[1:]
    kinds = rng.sample([kind for kind, _ in _LANDMARKS], 4)
    places = rng.sample(world.places, 4)
    taken: set[dt.date] = set()
    landmarks = {kind.format(place=place): _days(rng, start + dt.timedelta(days=30), until, taken)
                 for kind, place in zip(kinds, places)}
    taken.clear()
    writer = _Writer(rng, accounts, landmarks)
    people = list(unique_names(names, person_name, len(accounts) + 2))
    for account in accounts:
        writer.steward(people[accounts.index(account)], account, account.opened)
    for _ in range(2 * len(accounts)):
        writer.steward(rng.choice(people), rng.choice(accounts), _days(rng, start + dt.timedelta(days=60),
                                                                        until, set(writer.handover_days)))
    for kind, place in zip(kinds, places):
        event = kind.format(place=place)
        writer.landmark(event, landmarks[event], dict(_LANDMARKS)[kind])
    for account in accounts:
        writer.opening(account, "evidence" if account is target else "context")
    for account in accounts:
        writer.alias(account.nickname, {"code": account.code}, f"account {account.code}")
        for phrase in rng.sample([account.role, account.reserve], 2):
            if rng.random() < 0.5:
                writer.alias(phrase, {"name": account.nickname}, account.nickname)
            else:
                writer.alias(phrase, {"code": account.code}, f"account {account.code}")
    nicknames = {account.nickname for account in accounts}
    renamed = next(name for name in iter(lambda: f"the {invented_name(rng, 2)} fund", None) if name not in nicknames)
    before, later = rng.sample([target, rng.choice(others)], 2)
    writer.rename(renamed, before, start + dt.timedelta(days=rng.randint(90, (until - start).days - 60)), later)
    first, after = start + dt.timedelta(days=1), until + dt.timedelta(days=90)
    bookings = _Bookings(writer, rng, landmarks)
    level = target.opening
    for _ in range(axes.state_transition_depth):
        shape = rng.choice(("in", "out", "income", "spending"))
        outgoing = shape in ("out", "spending") and level > 9000
        amount = rng.randrange(150, 6000, 50)
        level += -amount if outgoing else amount
        other = rng.choice(others) if shape in ("in", "out") else None
        bookings.book(*((target, other) if outgoing else (other, target)), (first, until), 0.6, "evidence", amount)
    for _ in range(3 * len(others)):
        source, sink = rng.sample([*others, None], 2)
        bookings.book(source, sink or rng.choice([o for o in others if o is not source]), (first, after), 0.3)
    _amend(bookings, target, others, axes.near_miss_strength, (until, after))
    for _ in range(axes.near_miss_strength):
        other = rng.choice(others)
        bookings.book(*rng.sample([target, other], 2), (until + dt.timedelta(days=1), after), 0.0, "distractor")
        writer.plan(*rng.sample([target, rng.choice(others)], 2), rng.randrange(150, 6000, 50),
                    _days(rng, first, until, set()))
    query = {"account": {"name": target.role}, "until": until.isoformat()}
    answers = derive_ledger([s.record for s in writer.statements], query)
    if len(answers) != 1 or answers[0] is None:
        raise UnanswerableError(f"{CATEGORY}: the statements admit {answers}")
    evidence = _support(writer.statements, query, answers[0])
    statements = [replace(s, role="evidence" if s.record["fact_id"] in evidence else
                          s.role if s.role != "evidence" else "distractor") for s in writer.statements]
    rng.shuffle(statements)
    day = format_date(until, rng.randrange(4)).removeprefix("on ")
    question = (f"What was the balance, in credits, of {target.role} at the close of {day}? "
                f"{ADMINISTRATION_RULE} Reply with a whole number on a final line of the form 'Answer: N'.")
    return Composition(
        category=CATEGORY, statements=statements, question=question, query=query, answer_type="quantity",
        scorer="long_context.aggregate", format_answer=str, probes=[target.role],
        withheld=tuple(sorted({a.owner for a in accounts} | set(places) | set(people))),
        quiet_days=frozenset(day.toordinal() for day in writer.amended_days),
        axes=replace(axes, answer_scope=1, predicate_composition=2,
                     computational_depth=axes.state_transition_depth, derivation_depth=len(evidence)),
    ), world


def _landmark_spec(landmarks: dict[str, dt.date], day: dt.date) -> dict[str, Any] | None:
    """The day as an offset from a landmark, when one is near enough."""
    for event, at in landmarks.items():
        if (day - at).days in DAY_OFFSETS:
            return {"landmark": event, "offset": (day - at).days}
    return None


def _later(rng: random.Random, day: dt.date, until: dt.date, after: dt.date) -> dt.date:
    """A reversal day after the booking: before the asked day or after it, at random."""
    if day < until and rng.random() < 0.5:
        return day + dt.timedelta(days=rng.randint(1, (until - day).days))
    return until + dt.timedelta(days=rng.randint(1, (after - until).days))
