"""Filler prose that looks like the facts: dates, numbers and the facts' relation verbs at the facts' rates.

A task's fact sentences are profiled (`CueProfile.of`): the share that carry a
digit, a full date, and a relation cue (a verb family such as "funds",
"was held", "depends on"), and which cues they use. The filler then draws, per
sentence, a date, a number and a cue with those same probabilities, so that
skimming for digits, dates or relation verbs finds filler as often as facts.

Sentences are composed, not picked from a list: a frame (keyed by the cue it
carries, or cue-free) is filled from typed vocabularies and entity pools, and
date and number adjuncts are attached where the frame has none. Frames that
use a relation verb about named entities take them from a background cast
(`background_cast`): invented names of the same kinds as the world's, none of
which shares a word with the task's facts or question, so a filler sentence
never states, contradicts or mimics a fact the task asks about. The world's own
places and organisations appear only as settings ("at Kavel Harbour"), and never those a category withholds
(`withheld`: the names its derivation resolves, such as a ledger's account owners, administrators and the
places of its landmark events).

The ledger's vocabulary (`LEDGER_WORDS`: credits, accounts, reserves, bookings, entries, transfers, voids,
balances) is a dimension of its own: the share of fact sentences carrying it is profiled too, and that share
of filler sentences is written from ledger frames (`LEDGER_FRAMES`, keyed by the relation cue they carry, or
none): bookings, balances, voids, corrections and audits of the background cast's accounts, each naming its
account by a background organisation, code, nickname, administrator or reserve, or generic talk about
bookkeeping that names no account and no day. So a search for a ledger's words returns many times more filler
than facts, and no filler sentence books, amends or names an account a question can ask about.
"""

from __future__ import annotations

import datetime as dt
import random
import re
from bisect import bisect
from collections import Counter
from dataclasses import dataclass, replace
from functools import lru_cache
from itertools import accumulate, compress, repeat
from operator import is_

from taskforge.builders.long_context.render import format_date, format_number, in_words
from taskforge.builders.long_context.world import (_FIRST_NAMES, _ORG_KINDS, _PLACE_KINDS, _PROJECT_KINDS, DAY_OFFSETS,
                                                   RESERVE_PURPOSES, World, account_code, invented_name, person_name)
from taskforge.graders.long_context.values import date_mentions
from taskforge.schemas.tokens import count_tokens

CUES: dict[str, re.Pattern[str]] = {name: re.compile(pattern, re.IGNORECASE) for name, pattern in {
    "lead": r"\blead(?:s|ing|ership)?\b|\bled\b|\bin charge of\b|\bhead of\b|\bat the head of\b",
    "fund": r"\bfund(?:s|ed|ing)?\b|\bpays? for\b|\bmoney for\b|\bsponsor(?:s|ed)?\b",
    "test": r"\btest(?:s|ed|ing)?\b|\btrials?\b",
    "employ": r"\bemploy(?:s|ed|er|s)?\b|\bworks for\b|\bholds a post\b|\bpayroll\b|\bhired\b",
    "born": r"\bborn\b|\bhome town\b|\bchildhood\b",
    "base": r"\bbased (?:at|in)\b|\bheadquarters\b|\boffices of\b",
    "direct": r"\bdirect(?:ed|or|ion)\b|\bdecisions at\b",
    "sign": r"\bsign(?:ed|ature)?\b|\bagreement\b",
    "appoint": r"\bappointed\b|\bnamed\b",
    "review": r"\breview(?:ed|ers)?\b|\bapproval\b|\bsigned off\b",
    "open": r"\bopen(?:ed|s)?\b|\bbegan operating\b|\boutposts?\b|\bfield stations?\b",
    "publish": r"\bpublish(?:ed)?\b|\breleas(?:e|ed)\b|\bcame out\b|\breport(?:s|ed)?\b",
    "fail": r"\bfail(?:ed|s|ure)?\b|\bbroke\b|\bdid not survive\b",
    "move": r"\bmov(?:e|ed)\b|\brelocated\b|\btransferred\b|\bnew home\b",
    "resign": r"\bresign(?:ed|ation)?\b|\bleft\b",
    "acquire": r"\bacquired\b|\bstake\b|\bbought\b|\bshareholder\b",
    "grant": r"\bgrants?\b|\bawarded\b|\bapproved\b",
    "figure": r"\bheadcount\b|\bbudget\b|\boutgoings\b|\bnumbered\b",
    "plan": r"\bplann?(?:ed|ing|s)?\b|\baimed\b|\bproposed\b|\bexpected\b",
    "ship": r"\bshipments?\b|\bshipped\b|\bconsignments?\b|\bfreight\b|\blorry\b",
    "hold": r"\bheld\b|\binspection\b",
    "clear": r"\bcleared\b",
    "stock": r"\bstock\b|\bcrates?\b|\binventory\b|\btally\b|\bcounted\b|\bshelves\b",
    "deliver": r"\bdeliver(?:y|ed|ies)\b|\breceived\b|\bbrought\b|\bcollected\b|\btook\b[^.]*\binto stock\b",
    "cancel": r"\bcancel(?:led|lation)\b",
    "depend": (r"\bdepends? on\b|\bbuilt against\b|\blinks? against\b|\brequires?\b|\bbundled\b|\bships inside\b"
               r"|\bpulled in\b|\bembed\b"),
    "defect": r"\bdefects?\b|\baffect(?:s|ed)?\b|\bexposed\b|\bbackported\b|\bfix\b",
}.items()}
"""Relation cues: verb families the fact sentences of the categories use, each a pattern."""


def _stems(pattern: str) -> tuple[str, ...]:
    """The literal start of each alternative of a cue pattern ('lead' of '\\blead(?:s|ing)?\\b'): a sentence
    without any of them cannot match."""
    alternatives, depth, start = [], 0, 0
    for i, char in enumerate(pattern):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if char == "|" and depth == 0:
            alternatives.append(pattern[start:i])
            start = i + 1
    stems = []
    for alternative in [*alternatives, pattern[start:]]:
        literal = re.match(r"[a-z -]*", alternative.removeprefix(r"\b"))[0]
        following = alternative.removeprefix(r"\b")[len(literal):len(literal) + 1]
        stems.append(literal[:-1] if following in ("?", "*") else literal)
    return tuple(stems)


_CUE_STEMS = {name: _stems(pattern.pattern) for name, pattern in CUES.items()}


def cues_in(sentence: str) -> frozenset[str]:
    """The relation cues a sentence carries."""
    lowered = sentence.lower()
    return frozenset(name for name, pattern in CUES.items()
                     if any(stem in lowered for stem in _CUE_STEMS[name]) and pattern.search(sentence))


LEDGER_WORDS = re.compile(r"\bcredit(?:s|ed)?\b|\baccounts?\b|\breserves?\b|\bbook(?:s|ed|ings?|keep\w*)\b|\bentry\b"
                          r"|\bentries\b|\btransfer(?:s|red)?\b|\bvoid\b|\bbalances?\b|\bdebit(?:s|ed)?\b|\bledgers?\b",
                          re.IGNORECASE)
"""The ledger's vocabulary: words its fact sentences carry and a search for its bookings would use."""


def has_ledger_words(sentence: str) -> bool:
    """Whether a sentence carries the ledger's vocabulary."""
    return LEDGER_WORDS.search(sentence) is not None


_DIGIT = re.compile(r"\d")


def has_digit(sentence: str) -> bool:
    """Whether a sentence contains a digit."""
    return _DIGIT.search(sentence) is not None


@dataclass(frozen=True)
class CueProfile:
    """How often sentences carry a digit, a full date, a relation cue and the ledger's vocabulary, and which
    cues (with weights)."""

    digit: float
    date: float
    relation: float
    cues: tuple[tuple[str, float], ...] = ()
    ledger: float = 0.0

    @classmethod
    def of(cls, sentences: list[str]) -> CueProfile:
        """The profile of a set of sentences (the task's fact sentences)."""
        if not sentences:
            return cls(0.0, 0.0, 0.0)
        found = [cues_in(s) for s in sentences]
        counted = Counter(cue for cues in found for cue in cues)
        total = sum(counted.values()) or 1
        return cls(
            digit=sum(map(has_digit, sentences)) / len(sentences),
            date=sum(1 for s in sentences if date_mentions(s)) / len(sentences),
            relation=sum(1 for cues in found if cues) / len(sentences),
            cues=tuple(sorted((cue, count / total) for cue, count in counted.items())),
            ledger=sum(map(has_ledger_words, sentences)) / len(sentences),
        )

    def without_dates(self) -> CueProfile:
        """The same profile with no full dates (filler beside real documents whose dates are the facts)."""
        return replace(self, date=0.0)

    def measures(self, prefix: str) -> dict[str, float]:
        """The rates as payload measures."""
        return {f"{prefix}_digit_rate": round(self.digit, 4), f"{prefix}_date_rate": round(self.date, 4),
                f"{prefix}_relation_rate": round(self.relation, 4), f"{prefix}_ledger_rate": round(self.ledger, 4)}


PLAIN = CueProfile(digit=0.5, date=0.25, relation=0.0)
"""A profile for filler beside facts that were not profiled: half the sentences carry a digit."""

VOCABULARY = {
    "event": ("workshop", "seminar", "visitors' day", "safety briefing", "lunch talk", "annual retreat", "strategy session",
              "site visit", "fire drill", "training course", "summer school", "public lecture", "exhibition",
              "recruitment fair", "board dinner", "volunteer evening", "writing retreat", "poster session",
              "induction day", "charity run", "book sale", "colloquium", "spring fair", "study tour"),
    "facility": ("east gate", "west wing", "cold store", "greenhouse", "loading bay", "library annex", "server room",
                 "boiler house", "car park", "seminar room", "weather mast", "jetty", "print room", "canteen",
                 "visitor centre", "bicycle shed", "clean room", "drying room", "roof terrace", "boat house",
                 "tool store", "reading room", "guest house", "water tower"),
    "team": ("outreach team", "safety committee", "canteen committee", "editorial board", "social club",
             "records office", "welcome desk", "grounds crew", "sports committee", "choir", "press office",
             "language circle", "first-aid team", "photo club", "repair café", "travel desk"),
    "doc": ("style guide", "procurement manual", "travel policy", "newsletter", "visitor log", "safety handbook",
            "meeting agenda", "code of conduct", "phone directory", "onboarding checklist", "glossary",
            "site map", "parking rules", "holiday rota", "leaflet on recycling", "guide to the grounds"),
    "goods": ("office paper", "safety gloves", "timber", "paint", "spare fuses", "printer toner", "lab coats",
              "folding chairs", "sandbags", "rope", "batteries", "survey stakes", "tarpaulins", "bottled water",
              "first-aid kits", "cable ties", "notebooks", "light bulbs", "road salt", "seed trays"),
    "group": ("volunteers", "interns", "visiting students", "technicians", "surveyors", "archivists", "apprentices",
              "trainees", "guest researchers", "contractors", "field assistants", "retired staff", "school pupils",
              "local residents", "night porters", "drivers"),
    "topic": ("data retention", "procurement practice", "field safety", "document formats", "energy use",
              "noise in shared offices", "labelling of samples", "the history of the site", "bird counts",
              "old photographs", "cycling to work", "the heating system", "flood defences", "local geology",
              "rare plants on the grounds", "the early instrument makers"),
    "equipment": ("fire alarms", "backup generator", "water pumps", "radio link", "lift", "weather station",
                  "emergency lighting", "ventilation fans", "security cameras", "door locks", "solar panels",
                  "heating boiler", "pressure washer", "loudspeakers"),
    "contract": ("cleaning contract", "lease", "catering contract", "memorandum on shared parking",
                 "maintenance contract", "insurance policy", "printing contract", "snow-clearing contract"),
    "role": ("treasurer", "secretary", "fire warden", "union representative", "librarian", "editor",
             "safety officer", "quartermaster", "mentor for new staff", "chair"),
    "weather": ("heavy rain", "high winds", "a power cut", "fog", "a burst pipe", "snow", "a rail strike", "flooding"),
    "debris": ("fallen branches", "old furniture", "snow", "broken pallets", "leaves", "scrap metal", "rubble"),
    "purpose": ("the spring exhibition", "the new footpath", "a reading prize", "the staff choir", "a memorial bench",
                "the bird hide", "the children's garden", "a mural in the entrance hall"),
    "adjective": ("revised", "draft", "quarterly", "annual", "provisional", "updated", "shared", "temporary",
                  "long-delayed", "new", "simplified", "second", "illustrated", "abridged"),
    "material": ("pine", "slate", "brass", "linen", "cork", "granite", "clay", "wool"),
    "use": RESERVE_PURPOSES,
    "offset": tuple(DAY_OFFSETS.values()),
}
"""Typed vocabularies the frames draw on; none of their words is a relation cue."""

GENERAL_FRAMES = (
    "{person} circulated notes on {topic} at {org}, asking for comments within a fortnight.",
    "The {team} at {place} agreed to keep the current rota for the {facility}.",
    "Visitors to {place} remarked on the new signage near the {facility}.",
    "{org} reminded all teams that travel requests go through the central office.",
    "A long discussion about {topic} at {org} ended without a decision.",
    "{person} gave an overview of attendance at the {event}, which stayed steady.",
    "The {facility} at {place} now closes an hour later on weekdays.",
    "Members of the {team} debated whether the {doc} should be shortened.",
    "{org} asked everyone to check their details in the {adjective} {doc}.",
    "The {team} at {org} gathered suggestions for a more varied menu.",
    "{person} noted that the shared drive of the {team} was nearly full.",
    "An informal talk at {org} covered {topic} and drew a good audience.",
    "{person} asked colleagues at {org} to send comments on the {adjective} {doc}.",
    "The {event} at {place} ran smoothly apart from a jammed door in the {facility}.",
    "{person} gave a seminar at {place} on {topic}.",
    "A survey of {group} at {org} found broad satisfaction with the {facility}.",
    "The newsletter of the {team} introduced two {group} and listed upcoming talks.",
    "{person} and a colleague from {org} compared notes on {topic}.",
    "Parking near the {facility} at {place} remained difficult.",
    "The reading group at {org} discussed a history of {topic}.",
    "A photograph of the old {facility} at {place} was hung in the entrance hall.",
    "{org} issued a short guide on writing clear agendas.",
    "The {team} thanked {person} for organising the {event}.",
    "{person} suggested a {material} plaque for the {facility} at {place}.",
    "Several {group} at {place} asked for quieter corners in the {facility}.",
    "The {adjective} {doc} of {org} now includes a section on {topic}.",
    "{person} spent a week at {place} sorting {goods} in the {facility}.",
    "Coffee in the {facility} at {org} is now free on Fridays.",
    "The {team} at {place} recruited two {group} for the {event}.",
    "{person} wrote to the {team} of {org} about {topic}.",
    "Few {group} came to the {event} at {place}, as it clashed with a football match.",
    "The {facility} at {place} was repainted in a pale {material} colour.",
    "{person} prefers the {adjective} {doc} to the old one and said so at length.",
    "Notes from the {event} at {org} mention {topic} only in passing.",
    "Rumours of a merger of the {team} and the {team2} at {org} proved unfounded.",
    "The {team} of {org} keeps its minutes in the {facility}.",
    "{person} and {person2} shared the driving on the way to {place}.",
    "At {place}, the {group} ate lunch in the {facility} whenever the weather allowed.",
)
"""Frames with no relation cue."""

CUE_FRAMES: dict[str, tuple[str, ...]] = {
    "lead": ("{bperson} leads the {team} at {place}.", "The {event} at {org} was led by {bperson}.",
             "{bproject} is led by {bperson}.", "{bperson} is in charge of the {facility} at {place}.",
             "{bperson} led a tour of the {facility} at {place} for {group}.", "{bperson} leads {bproject}."),
    "fund": ("{borg} funds the {event} at {place}.", "The repairs to the {facility} at {place} were funded by {borg}.",
             "{bproject} is funded by {borg}.", "The money for {purpose} comes from {borg}.",
             "{borg} pays for the {event} of the {team}.", "{borg} sponsors {purpose} at {place}."),
    "test": ("Tests of the {equipment} at {place} were run by {group}.", "{bproject} was tested at {bplace}.",
             "Engineers put the {equipment} of the {facility} through a round of trials at {place}.",
             "Testing of {bproject} took place at {bplace}.", "{bplace} hosted the field trials of {bproject}."),
    "employ": ("{borg} employs {bperson}.", "{bperson} works for {borg}.", "{bperson} holds a post at {borg}.",
               "{borg} employs {n} {group} each summer at {place}.", "{bperson} is employed by {borg}.",
               "{borg} hired {bperson} to look after the {facility} at {place}."),
    "born": ("{bperson} was born in {bplace}.", "{bplace} is the home town of {bperson}.",
             "{bperson}, born in {year}, joined the {team} at {place}.",
             "{bperson} spent a childhood in {bplace} before moving abroad."),
    "base": ("{borg} is based at {bplace}.", "The {team} of {borg} is based in the {facility}.",
             "{borg} has its headquarters at {bplace}.", "The offices of {borg} are at {bplace}.",
             "{borg} is based in {bplace}, near the {facility}."),
    "direct": ("The {event} at {place} was directed by {bperson}.", "{bperson} is the director of {borg}.",
               "{bperson} directed the restoration of the {facility} at {place}.", "{borg} is directed by {bperson}.",
               "Day-to-day decisions at {borg} rest with {bperson}."),
    "sign": ("{borg} and {borg2} signed a {contract} for the {facility}.",
             "The {contract} for the {facility} at {place} was signed by {bperson}.",
             "{borg} signed its {contract} with {borg2} after a short negotiation.",
             "{bperson} put a signature to the {contract} of the {team}."),
    "appoint": ("{bperson} was appointed {role} of the {team} at {place}.",
                "{bperson} was named {role} of {borg}.", "{borg} appointed {bperson} to lead {bproject}."),
    "review": ("The {adjective} {doc} of {org} was reviewed by the {team}.", "{bproject} passed its design review.",
               "Reviewers signed off on the {adjective} {doc} of {borg}.",
               "The {team} at {place} reviewed the {doc} and asked for a shorter version."),
    "open": ("{org} opened its {adjective} {facility} to visitors.", "{borg} opened a field station at {bplace}.",
             "The {facility} at {place} opens early during the {event}.",
             "A field station run by {borg} began operating at {bplace}."),
    "publish": ("{bperson} published the {adjective} {doc} of {borg}.", "The {adjective} {doc} of {org} came out.",
                "{borg} reported {n} visitors to its {facility} in {year}.",
                "{bperson} published the first status report of {bproject}.",
                "{borg} released a {adjective} {doc} for {group}."),
    "fail": ("The {equipment} at {place} failed its routine check.",
             "The {bproject} prototype failed its pressure test.",
             "A pressure test of the {equipment} in the {facility} ended in failure.",
             "The {equipment} of {borg} broke down during the {event}."),
    "move": ("{borg} moved its {team} to the {facility}.", "{borg} moved its archive to {bplace}.",
             "The {team} of {org} relocated to the {facility} for the winter.",
             "The records of {borg} were relocated to {bplace}."),
    "resign": ("{bperson} resigned from the {team} of {org}.", "{bperson} resigned from {borg}.",
               "{bperson} left the {team} at {place} to study {topic}.",
               "{borg} accepted the resignation of {bperson}."),
    "acquire": ("{borg2} acquired a minority stake in {borg}.", "{borg} acquired a second-hand minibus for the {team}.",
                "{borg} bought the {facility} next to its offices at {bplace}.",
                "A minority stake in {borg} was bought by {borg2}."),
    "grant": ("{borg} awarded a small grant to {bperson} for {purpose}.",
              "Under grant {grant_id}, {borg} awarded {big} credits to {bproject} for {purpose} in {year}.",
              "{borg} approved grant {grant_id}: {big} credits for {purpose} on {bproject}.",
              "The {team} at {place} approved a grant for {purpose}."),
    "figure": ("{borg} reported a headcount of {n} for {year}.", "The annual budget of {borg} for {year} was {big} credits.",
               "The budget of the {team} at {org} was left unchanged.", "The staff of {borg} numbered {n} in {year}.",
               "The outgoings of the {team} at {place} were kept within its budget."),
    "plan": ("{borg} planned to open a {facility} at {bplace}.",
             "The {team} at {place} expected the {facility} to be ready sooner.",
             "{borg} proposed a {adjective} {doc} for {group}.",
             "{bperson} aimed to finish the {adjective} {doc} before the {event}."),
    "ship": ("A shipment of {goods} for the {event} reached {place}.",
             "{n} consignments of {goods} left {bplace} as freight for {purpose}.",
             "A lorry carrying {goods} for the {facility} got stuck near {place}.",
             "The {team} shipped {goods} to {bplace} for the {event}."),
    "hold": ("The {event} was held at {place}.", "The {adjective} {event} of the {team} was held in the {facility}.",
             "{borg} held its {event} at {bplace}.", "An inspection of the {facility} at {place} found nothing amiss."),
    "clear": ("The {facility} at {place} was cleared of {debris}.", "{group} cleared {debris} from the {facility}.",
              "The path to the {facility} at {place} was cleared by the {team}."),
    "stock": ("An inventory check at {bplace} found {n} crates of {goods} in stock.",
              "The stock of {goods} in the {facility} at {place} ran low.",
              "Auditors counted {n} crates of {goods} on the shelves at {bplace}.",
              "The {team} keeps a tally of {goods} in the {facility}."),
    "deliver": ("A delivery of {goods} reached the {facility} at {place}.",
                "{bplace} received {n} more crates of {goods}.", "{group} collected {goods} from the {facility}.",
                "A van brought {goods} to the {event} at {place}."),
    "cancel": ("The {event} at {place} was cancelled because of {weather}.",
               "A shipment of {goods} from {bplace} was cancelled before it left.",
               "{borg} cancelled its {event} at short notice."),
    "depend": ("The {bservice} service depends on {blib} {version}.", "{blib} {version} ships inside the {bservice} service.",
               "The {event} at {place} depends on {group} from {org}.", "{blib} links against {blib2} {version}.",
               "Builds of {blib} embed {blib2} {version}.",
               "The reservation system of the {facility} requires a new password each term."),
    "defect": ("Defect {defect_id} affects {blib} from version {version} up to and including {version2}.",
               "A defect in the {equipment} at {place} was reported by {group}.",
               "{blib} {version} as built here carries a backported fix for {defect_id}.",
               "The {facility} at {place} was affected by {weather}."),
}
"""Frames per relation cue: the cue's verbs about the background cast, or about things that are not entities."""

LEDGER_FRAMES: dict[str | None, tuple[str, ...]] = {
    None: ("{borg} struck a balance of {sum} credits on account {code} at the close of the quarter.",
           "The {use} reserve of {borg} ended the year with {words} credits.",
           "Account {code} of {borg} was credited with {sum} credits out of account {code2}.",
           "{borg} debited {words} credits from its {use} reserve to pay a printer.",
           "Bookkeepers at {borg} agreed to keep every void entry visible, struck through in red.",
           "In the books of {borg}, the entry of {sum} credits on account {code} was void, a duplicate of the last.",
           "The auditors of {borg} asked why {words} credits sat in a suspense account for a month.",
           "A correction in the books of {borg} put the entry on account {code} at {sum} credits instead of {sum2}.",
           "{bperson} checked the {use} reserve of {borg} against the bank statements.",
           "The account {bperson} administers at {borg} ended the month with a balance of {words} credits.",
           "A reversal in the books of {borg} undid an entry of {sum} credits on account {code} in full.",
           "Minutes of the audit committee of {borg}: {n} entries checked, two void, one reversed.",
           "The audit of the {use} reserve of {borg} found the balance short by {words} credits.",
           "{borg} booked {sum} credits of catering costs against account {code}.",
           "The {team} of {borg} decided that each entry in its day book should name both accounts.",
           "{bperson} spent a week at {borg} matching {n} bank lines to entries of the {use} reserve.",
           "{borg} wrote off {words} credits that its {use} reserve could not account for.",
           "A clerk at {borg} entered {sum} credits on the wrong side of account {code}, and a correction followed.",
           "Every entry of the {bnick} account of {borg} that week was checked twice.",
           "The {use} reserve of {borg} paid {words} credits to a hotel in {bplace}.",
           "{offset} the flood at {bplace}, {borg} booked {sum} credits of repairs against account {code}.",
           "{offset} the flood at {bplace}, an entry of {words} credits in the books of {borg} was reversed.",
           "Auditors at {borg} insisted that a reversal be booked as a new entry and the old one never erased.",
           "The books of {borg} show {words} credits going from its {use} reserve to {borg2}.",
           "{bperson} became the administrator of account {code} of {borg}.",
           "The treasurer of {borg} read out the balances of all {n} of its accounts."),
    "fund": ("{borg}'s {bnick} fund took in {sum} credits from a private donor.",
             "The {bnick} fund of {borg} is the name its staff use for account {code}.",
             "{bperson} ran the {bnick} fund of {borg}, which closed the year at {words} credits.",
             "The {bnick} fund of {borg} was charged {words} credits for a software licence.",
             "In the books of {borg}, the {bnick} fund is its {use} reserve.",
             "Auditors at {borg} found the {bnick} fund short of {words} credits.",
             "{sum} credits of the {bnick} fund of {borg} went on a new boiler."),
    "move": ("{borg} transferred {sum} credits from account {code} to its {use} reserve.",
             "{words} credits moved from the {use} reserve of {borg} into the account run by {bperson}.",
             "A clerk at {borg} transferred the balance of the {bnick} account to account {code}.",
             "{borg2} transferred {words} credits to the {use} reserve of {borg} to settle a shared invoice.",
             "{offset} the move to {bplace}, {borg} moved {sum} credits out of account {code}."),
    "deliver": ("The {use} reserve of {borg} received {words} credits in ticket sales.",
                "Account {code} of {borg} received {sum} credits from {borg2}.",
                "{borg} received a refund of {words} credits into its {use} reserve.",
                "{offset} the flood at {bplace}, account {code} of {borg} received {sum} credits of insurance money."),
    "open": ("{borg} opened its {use} reserve with {words} credits.",
             "Account {code} of {borg} opened its books with {sum} credits.",
             "{offset} the {bplace} open day, {borg} booked {sum} credits of ticket money to account {code}.",
             "{bperson} opened a new account for the {use} reserve of {borg}."),
    "resign": ("A payment of {words} credits left the {use} reserve of {borg} for a catering firm.",
               "{sum} credits left account {code} of {borg} to pay a printer.",
               "{bperson} left the administration of the {use} reserve of {borg} to {bperson2}."),
    "grant": ("A grant instalment of {sum} credits was paid into account {code} of {borg}.",
              "{borg} approved a transfer of {words} credits from its {use} reserve to {borg2}.",
              "The board of {borg} approved the void of an entry of {sum} credits on account {code}.",
              "A grant of {words} credits from {borg2} was booked to the {use} reserve of {borg}."),
    "employ": ("{borg} paid {words} credits for a hired van out of its {use} reserve.",
               "The payroll of {borg} was booked against account {code} at {sum} credits a month.",
               "{borg} hired a bookkeeper to go through the entries of its {use} reserve."),
    "cancel": ("{borg} cancelled an entry of {sum} credits on account {code} as a clerical error.",
               "The transfer of {words} credits between the reserves of {borg} and {borg2} was cancelled."),
    "plan": ("{borg} planned to shift {words} credits into its {use} reserve but never did.",
             "A transfer of {sum} credits from account {code} to {borg2} was proposed and turned down."),
    "hold": ("{offset} the inspection at {bplace}, {borg} booked {sum} credits against account {code}.",
             "The audit of the {use} reserve of {borg} was held in public."),
    "figure": ("The budget of the {use} reserve of {borg} was set at {words} credits.",
               "The outgoings of account {code} of {borg} came to {sum} credits over the quarter."),
    "ship": ("{offset} the {bplace} shipment, {borg} paid {sum} credits of freight from account {code}.",
             "The {use} reserve of {borg} was charged {words} credits for a shipment of books."),
}
"""Frames in the ledger's vocabulary, keyed by the relation cue they carry (None: none), each key with a frame
without a number (a cue's own frames that carry the ledger's words join them). Each names the
accounts it books by a background organisation and what they are to it (a code, nickname, reserve or
administrator), or names no account and no day: a filler sentence never books or amends an account a
question can ask about."""

NUMBER_ADJUNCTS = (" (item {n} of the {adjective} {doc})", " (page {n} of the {doc})",
                   " (minute {n} of a meeting of the {team})", " (file {n}/{n2} of the {team})", ", as page {n} of the {adjective} {doc} notes",
                   ", according to note {n} of the {team}", " (see paragraph {n} of the {doc})",
                   ", as item {n} on the agenda of the {event} records")
"""Number phrases a frame without a number can take before its final full stop: pointers into the record
that fit any statement."""

TAILS = (", and asked for comments within a fortnight", ", although few people noticed at the time",
         ", a step the {team} welcomed", ", after a long discussion about {topic}", ", as the minutes of {org} note",
         ", which surprised nobody at {place}", ", or so the newsletter of the {team} says",
         ", much to the relief of the {team}", ", despite {weather}", ", in line with the {adjective} {doc}",
         ", and the {team} was told by email", ", which the {team} had long argued for")
"""Cue-free clauses a sentence may end with, for variety."""
TAIL_RATE = 0.5


_STATIVE = re.compile(r"\b(?:is|are|leads|funds|employs|works|holds|pays|sponsors|comes|depends|ships|links|embed|"
                      r"requires|keeps|prefers|opens|closes|includes|mention)\b")
"""Verbs of frames that state how things are (present tense): such a frame is dated 'As of …', never 'on …'."""
_SLOT = re.compile(r"( ?)\{(\w+)\}")
_NUMBER_SLOTS = {"n", "n2", "big", "year", "version", "version2", "grant_id", "defect_id", "sum", "sum2", "code",
                 "code2"}
_GLUED = re.compile(r"[\w.\-/}]\{(?:%s)\}|\{(?:%s)\}(?:[\w\-/{]|\.\S)" % (("|".join(sorted(_NUMBER_SLOTS)),) * 2))
"""A number slot with no white space between it and a neighbour that could join or stop a number ('{n}/{n2}'):
the value of such a slot reads differently alone than in its sentence (a block holding one gives no values to
read one by one, `FillerWriter.block`)."""


@dataclass(frozen=True)
class _Frame:
    """A compiled frame: literal parts (without the space before a slot) and slots (name, whether a space
    precedes it, the name without a trailing 2); whether it states a number, names a year (and so takes no date), is in the present tense,
    starts with a common word rather than a name or a number, fills each slot once, independently, and has a
    number slot glued to its neighbour (`_GLUED`)."""

    parts: tuple[str | tuple[str, bool, str], ...]
    numeric: bool
    yearly: bool
    stative: bool
    common_start: bool
    plain: bool
    glued: bool = False


def _compile(text: str) -> _Frame:
    """A frame's parts, cut so that every cut falls where the tokenizer's pre-tokenizer cuts anyway: before a
    space that precedes a word or number, or between a word or number and punctuation."""
    parts: list[str | tuple[str, bool, str]] = []
    position = 0
    for match in _SLOT.finditer(text):
        if match.start() > position:
            parts.append(text[position:match.start()])
        parts.append((match[2], bool(match[1]), match[2].rstrip("2")))
        position = match.end()
    if position < len(text):
        parts.append(text[position:])
    named = [part[0] for part in parts if isinstance(part, tuple)]
    slots = set(named)
    return _Frame(tuple(parts), bool(slots & _NUMBER_SLOTS), "year" in slots, _STATIVE.search(text) is not None,
                  not text.startswith("{"), len(slots) == len(named) and not any(n.endswith("2") for n in named),
                  _GLUED.search(text) is not None)


def _choices(texts: tuple[str, ...]) -> dict[tuple[bool, bool], tuple[_Frame, ...]]:
    """A pool's frames by (numbered, dated): a sentence without a number takes frames without a number slot,
    a dated one frames without a year."""
    frames = [_compile(text) for text in texts]
    return {(numbered, dated): tuple(f for f in frames if (numbered or not f.numeric) and not (dated and f.yearly))
            for numbered in (False, True) for dated in (False, True)}


_GENERAL = _choices(GENERAL_FRAMES)
_BY_CUE = {cue: _choices(tuple(f for f in frames if not has_ledger_words(f))) for cue, frames in CUE_FRAMES.items()}
_LEDGER_BY_CUE = {cue: _choices(frames + tuple(f for f in CUE_FRAMES.get(cue, ()) if has_ledger_words(f)))
                  for cue, frames in LEDGER_FRAMES.items()}
"""Frames by cue without and with the ledger's words (a cue's frame that carries them counts as a ledger frame)."""
_NUMBER_ADJUNCTS = tuple(_compile(text) for text in NUMBER_ADJUNCTS)
_TAILS = tuple(_compile(text) for text in TAILS)
_FIRST_DAY, _DAYS = dt.date(2010, 1, 1).toordinal(), 5100

_PIECE_TOKENS: dict[str, int] = {}
_PIECE_CACHE_LIMIT = 1 << 18
_ZEROS = str.maketrans("123456789", "000000000")


def piece_tokens(piece: str) -> int:
    """Tokens of one piece of filler, remembered per process. Every digit is a pre-token of its own (one
    token, whichever digit), so a piece counts as its copy with every digit made 0: dates and numbers share
    a handful of entries."""
    found = _PIECE_TOKENS.get(piece)
    if found is None:
        if len(_PIECE_TOKENS) >= _PIECE_CACHE_LIMIT:
            _PIECE_TOKENS.clear()
        shape = piece.translate(_ZEROS)
        found = _PIECE_TOKENS.get(shape)
        if found is None:
            found = _PIECE_TOKENS[shape] = count_tokens(shape)
        _PIECE_TOKENS[piece] = found
    return found


@lru_cache(maxsize=1 << 16)
def _written_date(ordinal: int, style: int, stative: bool) -> tuple[str, str]:
    """A date as a sentence writes it before (capitalised, with its comma) and after its clause ('on 3 May
    2014'); before a present-tense clause, 'As of 3 May 2014,'."""
    written = format_date(dt.date.fromordinal(ordinal), style % 4 if stative else style)
    if stative:
        return f"As of {written.split(' ', 1)[1]},", ""
    return f"{written[0].upper()}{written[1:]},", f" {written}."


@dataclass(frozen=True)
class Cast:
    """Named entities a filler sentence may use: the world's (as settings only) and the background cast."""

    person: tuple[str, ...]
    org: tuple[str, ...]
    place: tuple[str, ...]
    project: tuple[str, ...]
    bperson: tuple[str, ...]
    borg: tuple[str, ...]
    bplace: tuple[str, ...]
    bproject: tuple[str, ...]
    bservice: tuple[str, ...]
    blib: tuple[str, ...]
    bnick: tuple[str, ...]


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9]+", text.casefold()))


@lru_cache(maxsize=64)
def _background(seed: int) -> dict[str, tuple[str, ...]]:
    """A world's background cast before filtering: invented names of every kind, from their own stream."""
    rng = random.Random(f"background:{seed}")
    make = {
        "bperson": lambda: person_name(rng),
        "borg": lambda: f"{invented_name(rng, 2)} {rng.choice(_ORG_KINDS)}",
        "bplace": lambda: f"{invented_name(rng, 2)} {rng.choice(_PLACE_KINDS)}",
        "bproject": lambda: f"{rng.choice(_PROJECT_KINDS)} {invented_name(rng, 2)}",
        "bservice": lambda: invented_name(rng, 3),
        "blib": lambda: "lib" + invented_name(rng, 3).lower(),
        "bnick": lambda: invented_name(rng, 2),
    }
    sizes = {"bperson": 40, "borg": 24, "bplace": 20, "bproject": 20, "bservice": 16, "blib": 16, "bnick": 16}
    return {kind: tuple(dict.fromkeys(make[kind]() for _ in range(sizes[kind]))) for kind in make}


def background_cast(world: World, reserved: str, withheld: tuple[str, ...] = ()) -> Cast:
    """The world's entities but those `withheld` (a kind all of whose names are withheld takes the background's
    instead), and a background cast none of whose names shares a word with `reserved` (the task's facts and
    question) or with the world's names."""
    taken = _words(reserved) | _words(" ".join(world.organisations + world.people + world.places + world.projects))
    taken -= _words(" ".join(_FIRST_NAMES + _ORG_KINDS + _PLACE_KINDS + _PROJECT_KINDS)) | {"lib", "service"}
    pools = {kind: tuple(name for name in names if not (_words(name) & taken) and
                         not any(word.startswith("lib") and word[3:] in taken for word in _words(name)))
             for kind, names in _background(world.seed).items()}
    settings = {kind: tuple(name for name in names if name not in withheld) or pools[f"b{kind}"]
                for kind, names in (("person", world.people), ("org", world.organisations), ("place", world.places),
                                    ("project", world.projects))}
    return Cast(**settings, **pools)


class FillerWriter:
    """Writes filler sentences for one task: frames filled from the cast, with a date, a number and a relation
    cue each drawn at the profile's rates. A sentence is kept as pieces cut where the tokenizer cuts, so a
    block's token count is the sum of its pieces' counts (exact, and each distinct piece is encoded once)."""

    def __init__(self, world: World, rng: random.Random, profile: CueProfile, reserved: str = "",
                 withheld: tuple[str, ...] = (), quiet_days: frozenset[int] = frozenset()):
        self.random, self.rng, self.profile = rng.random, rng, profile
        self.quiet_days = quiet_days
        """Days (ordinals) no filler sentence is dated: the days the facts' amendments name only by the day."""
        self.cast = background_cast(world, reserved, withheld)
        known = [(cue, weight) for cue, weight in profile.cues if cue in _BY_CUE]
        self.cue_pools = [(_BY_CUE[cue], _LEDGER_BY_CUE.get(cue, _BY_CUE[cue])) for cue, _ in known]
        """Per cue, its frames without and with the ledger's words (without, for a cue no ledger frame carries)."""
        self.cue_bounds = list(accumulate(weight for _, weight in known))
        self.number_when_undated = (max(0.0, profile.digit - profile.date) / (1 - profile.date)
                                    if profile.date < 1 else 0.0)
        self.taken_codes = _words(reserved)
        self.pools = {**{kind: getattr(self.cast, kind) for kind in Cast.__dataclass_fields__}, **VOCABULARY}
        self.spaced_pools = {kind: tuple(" " + value for value in pool) for kind, pool in self.pools.items()}
        """The pools' values with the space before them, as a slot after a space takes them (made once: one
        string per value, whose hash the token count's cache computes once)."""
        self.glued = False
        """Whether a sentence of the block being written glued a number slot to its neighbour (`_GLUED`)."""
        self.numbers: list[str] = []
        """The values with digits the sentence being written was given (numbers, written dates), in order."""

    def sentence(self) -> str:
        """One filler sentence."""
        pieces: list[str] = []
        self._write(pieces)
        self.numbers.clear()
        return "".join(pieces)

    def sentences(self, count: int) -> list[str]:
        """`count` filler sentences."""
        return [self.sentence() for _ in range(count)]

    def block(self, count: int) -> tuple[str, int, tuple[int, ...], tuple[tuple[str, ...], ...]]:
        """A paragraph of `count` sentences, its token count with the blank line after it, the offsets
        between its sentences (where a fact sentence may go: '… end. | Next …'), and per sentence the values
        with digits it was given (numbers, written dates), in order: a reading of dates and numbers finds in
        them one by one what it finds in the paragraph, as nothing else written carries a digit and each
        stands between white space or punctuation that joins it to nothing (none when a sentence glued a
        number to its neighbour, `_GLUED`)."""
        pieces: list[str] = []
        breaks, length, numbers, written = [], 0, self.numbers, []
        self.glued = False
        for n in range(count):
            start = len(pieces)
            self._write(pieces)
            written.append(tuple(numbers))
            numbers.clear()
            if n:
                breaks.append(length)
                pieces[start] = " " + pieces[start]
            length += sum(map(len, pieces[start:]))
        last = pieces[-1]
        pieces[-1] = last + "\n\n"
        counts = list(map(_PIECE_TOKENS.get, pieces))
        tokens = sum(filter(None, counts))
        if None in counts:
            tokens += sum(map(piece_tokens, compress(pieces, map(is_, counts, repeat(None)))))
        pieces[-1] = last
        return "".join(pieces), tokens, tuple(breaks), () if self.glued else tuple(written)

    def _write(self, pieces: list[str]) -> None:
        """Append one sentence's pieces."""
        draw, profile, start, first_number = self.random, self.profile, len(pieces), len(self.numbers)
        dated = draw() < profile.date
        numbered = draw() < (profile.digit * 0.3 if dated else self.number_when_undated)
        ledger = bool(profile.ledger) and draw() < profile.ledger
        if self.cue_pools and draw() < profile.relation:
            pools = self.cue_pools[bisect(self.cue_bounds, draw() * self.cue_bounds[-1])][ledger]
        else:
            pools = _LEDGER_BY_CUE[None] if ledger else _GENERAL
        frames = pools[numbered, dated]
        frame = frames[int(draw() * len(frames))]
        if frame.glued:
            self.glued = True
        self._fill(frame, pieces)
        if dated:
            day = _FIRST_DAY + int(draw() * _DAYS)
            while day in self.quiet_days:
                day = _FIRST_DAY + int(draw() * _DAYS)
            before, after = _written_date(day, int(draw() * 5), frame.stative)
            if frame.stative or draw() < 0.5:
                first = pieces[start]
                pieces[start] = " " + (first[0].lower() + first[1:] if frame.common_start else first)
                pieces.insert(start, before)
                self.numbers.insert(first_number, before)
            else:
                pieces[-1] = pieces[-1][:-1]
                pieces.append(after)
                self.numbers.append(after)
        if numbered and not frame.numeric:
            self._extend(pieces, _NUMBER_ADJUNCTS[int(draw() * len(_NUMBER_ADJUNCTS))])
        elif draw() < TAIL_RATE:
            self._extend(pieces, _TAILS[int(draw() * len(_TAILS))])
        if pieces[start][0].islower():
            pieces[start] = pieces[start][0].upper() + pieces[start][1:]

    def _extend(self, pieces: list[str], clause: _Frame) -> None:
        """Put a clause before the sentence's final full stop."""
        if clause.glued:
            self.glued = True
        pieces[-1] = pieces[-1][:-1]
        if not pieces[-1]:
            pieces.pop()
        self._fill(clause, pieces)
        pieces[-1] += "."

    def _fill(self, frame: _Frame, pieces: list[str]) -> None:
        """Append a frame's pieces with every slot filled (a slot named like another with a 2 gets another
        value)."""
        draw, pools, numbers = self.random, self.pools, self.numbers
        values: dict[str, str] | None = None if frame.plain else {}
        for part in frame.parts:
            if part.__class__ is str:
                pieces.append(part)
                continue
            slot, spaced, base = part
            if values is None:
                pool = (self.spaced_pools if spaced else pools).get(base)
                if pool is not None:
                    pieces.append(pool[int(draw() * len(pool))])
                    continue
            value = values.get(slot) if values is not None else None
            if value is None:
                pool = pools.get(base)
                if pool is None:
                    value = self._number(base, values.get(base) if values is not None else None)
                    if base in _NUMBER_SLOTS:
                        numbers.append(value)
                else:
                    value = pool[int(draw() * len(pool))]
                    while values is not None and base != slot and value == values.get(base) and len(pool) > 1:
                        value = pool[int(draw() * len(pool))]
                if values is not None:
                    values[slot] = value
            elif base in _NUMBER_SLOTS:
                numbers.append(value)
            pieces.append(" " + value if spaced else value)

    def _number(self, kind: str, first: str | None = None) -> str:
        """A value for a number slot (a second version is later than the first)."""
        draw = self.random
        if kind == "n":
            return str(3 + int(draw() * 93))
        if kind == "big":
            return format_number(1200 + 50 * int(draw() * 1176), int(draw() * 2))
        if kind == "year":
            return str(2010 + int(draw() * 14))
        if kind in ("sum", "words"):
            amount = 150 + 50 * int(draw() * 117)
            while first and amount == int(first.replace(",", "")):
                amount = 150 + 50 * int(draw() * 117)
            return in_words(amount) if kind == "words" else format_number(amount, int(draw() * 2))
        if kind == "code":
            return self._account_code(first)
        if kind == "version":
            if first:
                major, minor = (int(part) for part in first.split(".")[:2])
                return f"{major}.{minor + 1 + int(draw() * 4)}.{int(draw() * 10)}"
            return f"{2 + int(draw() * 6)}.{int(draw() * 10)}.{int(draw() * 10)}"
        return self._code("G" if kind == "grant_id" else "D", 5000 if kind == "grant_id" else 200)

    def _account_code(self, first: str | None) -> str:
        """An account code shaped like a ledger's ('KA-4821') that the task's facts do not use."""
        while True:
            code = account_code(self.rng)
            if code[3:] not in self.taken_codes and code != first:
                return code

    def _code(self, letter: str, low: int) -> str:
        """An identifier the task's facts do not use."""
        while True:
            code = f"{letter}-{low + int(self.random() * low)}"
            if code[2:] not in self.taken_codes:
                return code
