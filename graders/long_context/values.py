"""Reading values out of text: the final answer line, dates, numbers, versions and names.

Shared by the scorers, the evidence check, the shallow solvers and the
extraction of facts from real documents, so that all of them read a date or a
number the same way.
"""

from __future__ import annotations

import datetime as dt
import re
from bisect import bisect_right
from itertools import accumulate
from typing import Callable, Iterable

_ANSWER_LINE = re.compile(r"answer\s*:\s*(.*)", re.IGNORECASE)
MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
          "november", "december")
ORDINAL_WORDS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth",
                 "eleventh", "twelfth", "thirteenth", "fourteenth", "fifteenth", "sixteenth", "seventeenth",
                 "eighteenth", "nineteenth", "twentieth", "twenty-first", "twenty-second", "twenty-third",
                 "twenty-fourth", "twenty-fifth", "twenty-sixth", "twenty-seventh", "twenty-eighth",
                 "twenty-ninth", "thirtieth", "thirty-first")
_MONTH_NUMBER = {m: i for i, m in enumerate(MONTHS, start=1)}
_LONG_S = str.maketrans("\u017f", "s")
"""Ignoring case, the regex engine reads the long s (ſ) as s: a month written with it ('Auguſt') is that month."""
_ORDINAL_NUMBER = {w: i for i, w in enumerate(ORDINAL_WORDS, start=1)}
_MONTH = f"({'|'.join(MONTHS)})"
_DATE_FORMS = (
    (r"\b(\d{4})-(\d{2})-(\d{2})\b", lambda m: (int(m[1]), int(m[2]), int(m[3])), None),
    (rf"\b(\d{{1,2}})(?:st|nd|rd|th)? (?:of )?{_MONTH},? (\d{{4}})\b",
     lambda m: (int(m[3]), _month_number(m[2]), int(m[1])),
     (2, lambda text, at: [start for start in range(max(at - 8, 0), at - 1) if text[start].isdecimal()]
      if text[at - 1:at] == " " else ())),
    (rf"\b{_MONTH} (\d{{1,2}})(?:st|nd|rd|th)?, (\d{{4}})\b",
     lambda m: (int(m[3]), _month_number(m[1]), int(m[2])), (1, lambda text, at: (at,))),
    (rf"\bthe ([a-z-]+) of {_MONTH} (\d{{4}})\b",
     lambda m: (int(m[3]), _month_number(m[2]), _ORDINAL_NUMBER.get(m[1].lower(), 0)),
     (2, lambda text, at: (text.rfind(" ", 0, at - 4) - 3,) if text.startswith(" of ", at - 4) else ())),
    (rf"\b{_MONTH} (\d{{4}}), on the (\d{{1,2}})(?:st|nd|rd|th)\b",
     lambda m: (int(m[2]), _month_number(m[1]), int(m[3])), (1, lambda text, at: (at,))),
)
"""Date formats (lower-case) in the order they are tried (a later format's match inside an earlier one's is not
a date of its own): the pattern, the date of a match, and for a format naming a month, the group of the month
and where a match may start given where its month starts (at a digit at most eight characters before it, and
only where a space comes just before the month; a word after 'the' is the one before ' of ')."""
_DATE_PATTERNS = tuple((re.compile(form, re.IGNORECASE), parts, None) for form, parts, _ in _DATE_FORMS)
_LOWER_DATE_PATTERNS = tuple((re.compile(form), parts, anchor) for form, parts, anchor in _DATE_FORMS)
"""The same formats matched case-sensitively on the text lower-cased: the same matches at the same positions,
unless the text holds one of the characters `_UNLOWERABLE` finds; a month format is only tried where a month is
named."""
_UNLOWERABLE = ("\u0130", "\u0131", "\u017f")
"""The only characters whose lower case is longer (İ) or that ignoring case equates with an ASCII letter that
their lower case is not (ı, ſ)."""
_NUMBER = re.compile(r"(?<![\w.\-/])-?\d{1,3}(?:,\d{3})+(?:\.\d+)?(?![\w.\-/]\d)"
                     r"|(?<![\w.\-/])-?\d+(?:\.\d+)?(?![\w\-/]|\.\d)")
_VERSION = re.compile(r"(?<![\w.])v?(\d+\.\d+(?:\.\d+)?(?:-[a-z0-9]+)?)(?![\w.]*\d)", re.I)
_PUNCT = re.compile(r"[^\w\s-]")
_DIGIT = re.compile(r"\d")
_DIGITS = re.compile(r"\d+")


def _month_number(name: str) -> int:
    """The number of a month matched by name (any case, a long s read as s)."""
    return _MONTH_NUMBER[name.lower().translate(_LONG_S)]


def final_answer(submission: str) -> str:
    """The text after the last 'Answer:' marker, or the last non-empty line."""
    matches = _ANSWER_LINE.findall(submission)
    if matches:
        return matches[-1].strip()
    lines = [line.strip() for line in submission.splitlines() if line.strip()]
    return lines[-1] if lines else ""


class _Spans:
    """Character spans, merged, asked whether a position falls inside one of them (in logarithmic time)."""

    def __init__(self, spans: Iterable[tuple[int, int]]):
        self.starts: list[int] = []
        self.ends: list[int] = []
        for start, end in sorted(spans):
            if self.ends and start <= self.ends[-1]:
                self.ends[-1] = max(self.ends[-1], end)
            else:
                self.starts.append(start)
                self.ends.append(end)

    def __contains__(self, position: int) -> bool:
        at = bisect_right(self.starts, position) - 1
        return at >= 0 and position < self.ends[at]


def date_mentions(text: str) -> list[tuple[int, int, dt.date]]:
    """Every calendar date written in `text` in a format documents use, with its character span, in order.
    The text is matched lower-cased where that reads the same, a format that names a month only where a month
    is named, the numeric format only at runs of four digits."""
    if not _DIGIT.search(text):
        return []
    return _dates(text, _digit_runs(text))


def _digit_runs(text: str) -> list[tuple[int, int]]:
    """The spans of the runs of digits of a text, in order."""
    return [run.span() for run in _DIGITS.finditer(text)]


def _dates(text: str, runs: list[tuple[int, int]]) -> list[tuple[int, int, dt.date]]:
    """`date_mentions` of a text whose runs of digits are known (lower-casing moves no digit where it is used:
    no character's lower case is longer, and none is a digit or becomes one)."""
    patterns, searched, months = _DATE_PATTERNS, text, None
    if text.isascii() or not any(char in text for char in _UNLOWERABLE):
        patterns, searched = _LOWER_DATE_PATTERNS, text.lower()
        months = _month_starts(searched)
    found: list[tuple[int, int, dt.date]] = []
    for pattern, parts, anchor in patterns:
        if months is None:
            matches: Iterable[re.Match[str]] = pattern.finditer(searched)
        elif anchor is None:
            matches = _at_year_runs(pattern, searched, runs)
        elif months:
            matches = _anchored(pattern, anchor, searched, months)
        else:
            continue
        taken = _Spans((start, end) for start, end, _ in found) if found else None
        for match in matches:
            if taken is not None and match.start() in taken:
                continue
            try:
                found.append((match.start(), match.end(), dt.date(*parts(match))))
            except ValueError:
                continue
    return sorted(found)


def _month_starts(lowered: str) -> list[int]:
    """Where months are named in a lower-cased text, in order: what `finditer` of the months' alternation finds
    (no month's name ends with the start of another's, so two never overlap)."""
    starts = []
    for month in MONTHS:
        at = lowered.find(month)
        while at >= 0:
            starts.append(at)
            at = lowered.find(month, at + len(month))
    starts.sort()
    return starts


def _at_year_runs(pattern: re.Pattern[str], text: str, runs: list[tuple[int, int]]) -> list[re.Match[str]]:
    """What `pattern.finditer(text)` finds for the numeric format (`2014-05-03`), tried only where its matches
    start: at a run of exactly four digits followed by a hyphen."""
    kept, end = [], 0
    for start, stop in runs:
        if stop - start == 4 and start >= end and text.startswith("-", stop):
            match = pattern.match(text, start)
            if match:
                kept.append(match)
                end = match.end()
    return kept


def _anchored(pattern: re.Pattern[str], anchor: tuple[int, Callable[[str, int], Iterable[int]]], text: str,
              months: list[int]) -> list[re.Match[str]]:
    """What `pattern.finditer(text)` finds, for a format naming a month, tried only where a match may start
    given where the months are: of the matches whose month is one of them, the first and then each next that
    starts where the one before ends or later."""
    group, starts = anchor
    matches: dict[int, re.Match[str]] = {}
    for month in months:
        for start in starts(text, month):
            match = pattern.match(text, start) if start >= 0 and start not in matches else None
            if match and match.start(group) == month:
                matches[start] = match
    kept, end = [], 0
    for start in sorted(matches):
        if start >= end:
            kept.append(matches[start])
            end = matches[start].end()
    return kept


def dates_in(text: str) -> set[dt.date]:
    """The set of calendar dates written in `text`."""
    return {date for _, _, date in date_mentions(text)}


def number_mentions(text: str) -> list[tuple[int, int, float]]:
    """Numbers written with digits (thousands separators allowed) outside dates and three-part versions,
    with their spans."""
    if not _DIGIT.search(text):
        return []
    runs = _digit_runs(text)
    blocked = _Spans([(start, end) for start, end, _ in _dates(text, runs)]
                     + [m.span() for m in _version_matches(text, runs) if m[1].count(".") > 1 or "-" in m[1]])
    return [(match.start(), match.end(), float(match[0].replace(",", ""))) for match in _number_matches(text, runs)
            if match.start() not in blocked]


def _version_matches(text: str, runs: list[tuple[int, int]]) -> list[re.Match[str]]:
    """What `_VERSION.finditer(text)` finds, tried only where a version may start: at a run of digits followed
    by a full stop and a digit (the start of its `\\d+\\.\\d+`), or at the `v` just before it (anywhere else
    the character before is a word character)."""
    found: list[re.Match[str]] = []
    end = 0
    for (start, stop), (following, _) in zip(runs, runs[1:]):
        if following != stop + 1 or text[stop] != ".":
            continue
        for at in ((start - 1, start) if start and text[start - 1] in "vV" else (start,)):
            match = _VERSION.match(text, at) if at >= end else None
            if match:
                found.append(match)
                end = match.end()
                break
    return found


def _number_matches(text: str, runs: list[tuple[int, int]]) -> list[re.Match[str]]:
    """What `_NUMBER.finditer(text)` finds, tried only where a number may start: at a run of digits, or at the
    minus sign just before it (anywhere else inside a run the character before is a digit, which no number
    follows)."""
    found: list[re.Match[str]] = []
    end = 0
    for start, _ in runs:
        if start < end:
            continue
        match = _NUMBER.match(text, start - 1 if start and text[start - 1] == "-" else start)
        if match:
            found.append(match)
            end = match.end()
    return found


def numbers_in(text: str) -> list[float]:
    """The numbers written in `text` (see `number_mentions`), in order."""
    return [value for _, _, value in number_mentions(text)]


def quantities_in(text: str) -> list[float]:
    """Numbers that are not years (see `number_mentions`), in order. Read from a whole document set they are its
    sentences' quantities in order: no date, number or version runs over the white space between two sentences,
    and what a sentence starts or ends next to there reads as its start or end."""
    return [v for _, v in _quantity_mentions(text)]


def quantities_each(texts: list[str]) -> list[list[float]]:
    """`quantities_in` of each text, read in one pass over the texts joined by line breaks (as over sentences:
    nothing read runs over a line break, and what a text starts or ends next to one reads as its start or end)."""
    offsets = [0, *accumulate(len(text) + 1 for text in texts)]
    found: list[list[float]] = [[] for _ in texts]
    for start, value in _quantity_mentions("\n".join(texts)):
        found[bisect_right(offsets, start) - 1].append(value)
    return found


def _quantity_mentions(text: str) -> list[tuple[int, float]]:
    """Where each number of a text that is not a year starts, and its value, in order."""
    return [(start, v) for start, end, v in number_mentions(text)
            if not (1900 <= v <= 2100 and "," not in text[start:end])]


def versions_in(text: str) -> list[str]:
    """Version strings (`1.4`, `2.0.3`, `v1.5.3-p1`) written in `text`, without a leading `v`."""
    return [m[1].lower() for m in _VERSION.finditer(text) if "." in m[1]]


def version_key(version: str) -> tuple[int, ...]:
    """A sortable key of a version string: its numeric parts (a suffix such as `-p1` is not part of the order)."""
    return tuple(int(part) for part in version.split("-")[0].split("."))


def normalise(text: str) -> str:
    """A name or short answer compared loosely: case, punctuation, a leading article and spacing ignored."""
    words = _PUNCT.sub(" ", text.casefold()).split()
    if words and words[0] in ("the", "a", "an"):
        words = words[1:]
    return " ".join(words)


def parse_number(text: str) -> float | None:
    """The first number written in `text`, or None."""
    numbers = numbers_in(text)
    return numbers[0] if numbers else None


def verbatim_in(needle: str, haystack: str) -> bool:
    """Whether `needle` occurs in `haystack` as whole words, ignoring case and runs of spaces."""
    words = needle.split()
    if not words:
        return False
    pattern = r"(?<!\w)" + r"\s+".join(map(re.escape, words)) + r"(?!\w)"
    return re.search(pattern, haystack, re.IGNORECASE) is not None
