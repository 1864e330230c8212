"""Which texts hold a short pattern of bytes, found in numpy over the texts' bytes joined in one array.

A pattern is a run of byte classes (each the bytes it allows) with an anchor: the position of a single byte that is
rare in text. The anchor byte is found with one comparison over the whole array and the other classes are checked
only where it is. Texts are joined with spaces and no pattern allows a space, so no match straddles two texts.
"""

from __future__ import annotations

from dataclasses import dataclass
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

    def starts(self, data: np.ndarray, anchored: np.ndarray) -> np.ndarray:
        """Where the pattern starts in `data`, given where its anchor byte is (`anchored`, ascending)."""
        start = anchored - self.anchor
        start = start[(start >= 0) & (start <= len(data) - len(self.classes))]
        for offset, allowed in enumerate(self.classes):
            if offset != self.anchor:
                table = np.zeros(256, dtype=bool)
                table[list(allowed)] = True
                start = start[table[data[start + offset]]]
        return start


def texts_holding(data: np.ndarray, offsets: np.ndarray, patterns: Sequence[BytePattern]) -> np.ndarray:
    """Whether each text holds any of the patterns: text `i` is `data[offsets[i]:offsets[i + 1]]`."""
    held = np.zeros(len(offsets) - 1, dtype=bool)
    anchored: dict[bytes, np.ndarray] = {}
    for pattern in patterns:
        anchor = pattern.classes[pattern.anchor]
        if anchor not in anchored:
            anchored[anchor] = np.flatnonzero(data == anchor[0])
        held[np.searchsorted(offsets, pattern.starts(data, anchored[anchor]), side="right") - 1] = True
    return held
