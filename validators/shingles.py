r"""Word hashes of text computed in numpy: the unit decontamination and near-duplicate removal match on.

A text is normalised (NFKC, casefolded; a word is a maximal run of letters and digits, as `[^\W_]+` finds them
in the normalised text) and every word is hashed with the CRC-32 of its UTF-8 bytes. CRC-32 is linear, so a word's
CRC is the XOR of one table entry per byte (chosen by the byte and its distance from the word's end) and a constant
of the word's length; the entries are gathered for all words of the texts at once, one distance at a time (longest
words first, so the words that long are a prefix), and no Python loop visits a word; the rare word longer than
`LONG_WORD` bytes is hashed by `zlib` alone. Word n-grams are combined from runs of consecutive word hashes, again
over whole arrays.
"""

from __future__ import annotations

import re
import unicodedata
import zlib
from dataclasses import dataclass
from functools import cached_property
from typing import Sequence

import numpy as np

LONG_WORD = 48
"""Longer words are hashed one by one with zlib (they are rare, and would each cost a numpy pass per byte)."""
NGRAM_MIXER = np.uint64(1_000_003)
_NON_WORD = re.compile(r"[\W_]+")


def _crc_table() -> np.ndarray:
    """The byte table of CRC-32 (reflected polynomial 0xEDB88320), as zlib uses it."""
    table = np.arange(256, dtype=np.uint32)
    for _ in range(8):
        table = np.where(table & 1, (table >> np.uint32(1)) ^ np.uint32(0xEDB88320), table >> np.uint32(1))
    return table.astype(np.uint32)


def _zero_byte(register: np.ndarray) -> np.ndarray:
    """The CRC register after one more byte 0 (a linear map of the register)."""
    return _CRC_TABLE[register & _BYTE] ^ (register >> np.uint32(8))


def _distance_tables() -> tuple[np.ndarray, np.ndarray]:
    """What a byte at distance `d` from a word's end adds to its CRC register (row `d`, column the byte), and what
    the initial register adds to the CRC of a word of length `n` with the final inversion (entry `n`)."""
    rows = [_CRC_TABLE]
    register = np.array([0xFFFFFFFF], dtype=np.uint32)
    constants = [register[0]]
    for _ in range(LONG_WORD):
        rows.append(_zero_byte(rows[-1]))
        register = _zero_byte(register)
        constants.append(register[0])
    return np.stack(rows[:LONG_WORD]), np.array(constants, dtype=np.uint32) ^ np.uint32(0xFFFFFFFF)


_CRC_TABLE = _crc_table()
_BYTE = np.uint32(0xFF)
_BY_DISTANCE, _BY_LENGTH = _distance_tables()


def normalised_bytes(text: str) -> bytes:
    """The text as `words` sees it, in UTF-8: NFKC, casefolded, and (outside ASCII) every run of characters that
    are not letters or digits turned into one space, so a word is exactly a run of word bytes."""
    text = unicodedata.normalize("NFKC", text).casefold()
    if not text.isascii():
        text = _NON_WORD.sub(" ", text)
    return text.encode("utf-8")


def word_spans(data: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Start and end byte offsets of the words of normalised bytes (a word byte is an ASCII letter or digit, or
    any byte of a character outside ASCII)."""
    is_word = np.zeros(len(data) + 2, dtype=bool)
    letter = (data | np.uint8(0x20)) - np.uint8(ord("a")) < 26
    digit = data - np.uint8(ord("0")) < 10
    np.logical_or(letter | digit, data >= 0x80, out=is_word[1:-1])
    edges = np.flatnonzero(is_word[1:] != is_word[:-1])
    return edges[0::2], edges[1::2]


def crc32_spans(data: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """`zlib.crc32` of every byte span, computed for all spans at once (uint32): the table entries of the bytes at
    each distance from the ends, gathered for the spans still that long (longest first, so they are a prefix)."""
    lengths = ends - starts
    crc = np.empty(len(starts), dtype=np.uint32)
    short = np.flatnonzero(lengths <= LONG_WORD)
    order = short[np.argsort((LONG_WORD - lengths[short]).astype(np.uint8), kind="stable")]
    remaining = lengths[order]
    reversed_data = data[::-1].copy()
    from_back = len(data) - ends[order]
    longer = np.searchsorted(-remaining, -np.arange(int(remaining[0]) if len(order) else 0), side="left")
    register = np.zeros(len(order), dtype=np.uint32)
    for distance, count in enumerate(longer.tolist()):
        register[:count] ^= _BY_DISTANCE[distance][reversed_data[distance:][from_back[:count]]]
    crc[order] = register ^ _BY_LENGTH[remaining]
    for index in np.flatnonzero(lengths > LONG_WORD):
        crc[index] = zlib.crc32(data[starts[index]:ends[index]].tobytes())
    return crc


@dataclass
class Words:
    """The words of several texts, hashed: text `i` holds words `bounds[i]` to `bounds[i + 1]` (exclusive), and
    its normalised bytes start at `data[offsets[i]]` (texts joined with spaces; `offsets` ends one past them)."""

    data: np.ndarray
    starts: np.ndarray
    ends: np.ndarray
    hashes: np.ndarray
    bounds: np.ndarray
    offsets: np.ndarray

    @classmethod
    def of(cls, texts: Sequence[str]) -> "Words":
        """Normalise and hash the words of all texts in one pass (numpy's per-call cost is paid once)."""
        parts = [normalised_bytes(text) for text in texts]
        data = np.frombuffer(b" ".join(parts), dtype=np.uint8)
        starts, ends = word_spans(data)
        hashes = crc32_spans(data, starts, ends)
        text_starts = np.cumsum([0] + [len(part) + 1 for part in parts])
        return cls(data, starts, ends, hashes, np.searchsorted(starts, text_starts), text_starts)

    def phrase(self, first: int, count: int) -> str:
        """Words `first` to `first + count` as normalised text, one space between words."""
        return " ".join(self.data[self.starts[i]:self.ends[i]].tobytes().decode("utf-8")
                        for i in range(first, first + count))

    @cached_property
    def text_ids(self) -> np.ndarray:
        """The index of the text each word belongs to."""
        return np.repeat(np.arange(len(self.bounds) - 1), np.diff(self.bounds))

    def text_of(self, word: np.ndarray | int) -> np.ndarray:
        """The index of the text each of these word positions belongs to."""
        return self.text_ids[word]


def ngram_hashes(hashes: np.ndarray, n: int) -> np.ndarray:
    """A 64-bit hash of every run of `n` consecutive word hashes (one run of all of them when fewer): each run
    is folded polynomially, `h = h * 1000003 + word` modulo 2^64."""
    width = min(n, len(hashes))
    count = len(hashes) - width + 1
    words = hashes.astype(np.uint64)
    combined = np.zeros(count, dtype=np.uint64)
    for offset in range(width):
        np.multiply(combined, NGRAM_MIXER, out=combined)
        np.add(combined, words[offset:offset + count], out=combined)
    return combined
