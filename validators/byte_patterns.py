"""Which texts hold a short pattern of bytes, found in numpy over the texts' bytes joined in one array.

A pattern is a run of byte classes (each the bytes it allows) with an anchor: the position of a single byte that is
rare in text. The anchor byte is found with one comparison over the whole array and the other classes are checked
only where it is. Texts are joined with spaces and no pattern allows a space, so no match straddles two texts.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Sequence

import numpy as np

DIGITS = b"0123456789"


@dataclass(frozen=True)
class BytePattern:
    """Consecutive byte classes; `anchor` is the index of a class of one byte, looked for first."""

    classes: tuple[bytes, ...]
    anchor: int

    @classmethod
    def literal(cls, text: bytes, anchor: int) -> "BytePattern":
        """The pattern of exactly these bytes."""
        return cls(tuple(bytes([b]) for b in text), anchor)

    @cached_property
    def checks(self) -> list[tuple[int, np.ndarray]]:
        """Each class but the anchor: its offset in the pattern and whether it allows each byte value."""
        checks = []
        for offset, allowed in enumerate(self.classes):
            if offset != self.anchor:
                table = np.zeros(256, dtype=bool)
                table[list(allowed)] = True
                checks.append((offset, table))
        return checks

    def starts(self, data: np.ndarray, anchored: np.ndarray) -> np.ndarray:
        """Where the pattern starts in `data`, given where its anchor byte is (`anchored`, ascending)."""
        start = anchored - self.anchor
        start = start[(start >= 0) & (start <= len(data) - len(self.classes))]
        for offset, allowed in self.checks:
            start = start[allowed[data[start + offset]]]
        return start


class PatternScan:
    """Texts joined in one byte array (text `i` starts at `offsets[i]`; `offsets` ends one past the last), each
    anchor byte looked for once, whatever patterns use it."""

    def __init__(self, data: np.ndarray, offsets: np.ndarray):
        self.data = data
        self.offsets = offsets
        self.anchored: dict[bytes, np.ndarray] = {}

    def texts_holding(self, patterns: Sequence[BytePattern]) -> np.ndarray:
        """Whether each text holds any of the patterns."""
        held = np.zeros(len(self.offsets) - 1, dtype=bool)
        for pattern in patterns:
            anchor = pattern.classes[pattern.anchor]
            if anchor not in self.anchored:
                self.anchored[anchor] = np.flatnonzero(self.data == anchor[0])
            starts = pattern.starts(self.data, self.anchored[anchor])
            held[np.searchsorted(self.offsets, starts, side="right") - 1] = True
        return held
