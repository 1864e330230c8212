"""Licences of task sources: a recorded name or a licence file's text as an SPDX id, and the Hugging Face
licence id of a dataset card.

A source's licence is what its builder recorded (a name such as "MIT" or "CC BY 4.0", or the text of the
repository's licence file); `spdx_id` names it by its SPDX id where it is one of the common licences of HF_LICENCES,
and gives None otherwise, so the card shows the recorded name as it was given, marked as not an SPDX id.
"""

from __future__ import annotations

import re

HF_LICENCES = {"MIT": "mit", "Apache-2.0": "apache-2.0", "BSD-2-Clause": "bsd-2-clause", "BSD-3-Clause": "bsd-3-clause",
               "ISC": "isc", "MPL-2.0": "mpl-2.0", "Unlicense": "unlicense", "CC0-1.0": "cc0-1.0",
               "CC-BY-4.0": "cc-by-4.0", "CC-BY-SA-4.0": "cc-by-sa-4.0", "ODbL-1.0": "odbl"}
"""The licences recognised by name or text (SPDX id) → their Hugging Face card licence id."""
_ALIASES = {
    "mit license": "MIT", "the mit license": "MIT", "apache 2.0": "Apache-2.0", "apache license 2.0": "Apache-2.0",
    "apache license, version 2.0": "Apache-2.0", "apache-2": "Apache-2.0", "bsd 3-clause": "BSD-3-Clause",
    "new bsd": "BSD-3-Clause", "bsd 2-clause": "BSD-2-Clause", "simplified bsd": "BSD-2-Clause",
    "cc by 4.0": "CC-BY-4.0", "cc-by 4.0": "CC-BY-4.0", "cc by-sa 4.0": "CC-BY-SA-4.0", "cc0": "CC0-1.0",
    "cc0 1.0": "CC0-1.0", "public domain (cc0)": "CC0-1.0", "mozilla public license 2.0": "MPL-2.0",
}
_TEXT_MARKERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Apache-2.0", ("apache license", "version 2.0")),
    ("MPL-2.0", ("mozilla public license version 2.0",)),
    ("BSD-3-Clause", ("redistribution and use in source and binary forms", "neither the name")),
    ("BSD-2-Clause", ("redistribution and use in source and binary forms",)),
    ("MIT", ("permission is hereby granted, free of charge", "without restriction")),
    ("ISC", ("permission to use, copy, modify, and/or distribute this software for any purpose",)),
    ("Unlicense", ("this is free and unencumbered software released into the public domain",)),
)
"""SPDX id → phrases that all occur in its licence text (checked in this order: BSD-3 before BSD-2)."""
LICENCE_FILES = re.compile(r"^(LICEN[CS]E|COPYING)([.-][\w.-]*)?$", re.IGNORECASE)
"""Names of a repository's licence file at its top level."""


def spdx_id(recorded: str) -> str | None:
    """The SPDX id of a recorded licence name or licence text, None when it is none of HF_LICENCES."""
    name = " ".join(recorded.split())
    by_id = {known.lower(): known for known in HF_LICENCES}
    if name.lower() in by_id or name.lower() in _ALIASES:
        return by_id.get(name.lower()) or _ALIASES[name.lower()]
    text = name.lower()
    return next((known for known, phrases in _TEXT_MARKERS if all(p in text for p in phrases)), None)
