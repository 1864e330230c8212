"""Redact e-mail addresses, phone numbers and National Insurance numbers from a letter."""
import re

import wfio

kinds = wfio.params()["redact"].split(", ")
PATTERNS = {
    "EMAIL": re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}"),
    "NINO": re.compile(r"\b[A-Z]{2} ?\d{2} ?\d{2} ?\d{2} ?[A-D]\b"),
    "PHONE": re.compile(r"(?:\+44 ?(?:\(0\))? ?|\b0)\d{2,4}(?: ?\d{3,4}){2}\b"),
}
text = wfio.text("complaint_letter.txt")
counts = {}
for kind in ("EMAIL", "NINO", "PHONE"):
    if kind not in kinds:
        continue
    text, counts[kind] = PATTERNS[kind].subn(f"[{kind}]", text)
wfio.write_text("letter_redacted.txt", text)
wfio.write_csv("redaction_log.csv", ["kind", "count"], [{"kind": k, "count": v} for k, v in counts.items()])
