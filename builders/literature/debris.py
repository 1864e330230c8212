"""What text extraction leaves in a paper's full text that a task must never be built from.

Each test names the kind of debris it finds, or returns None: numbers that are
section, table, figure, page or equation numbers (and ranges of them: "Sec. 5.2 - 5.4"); headings;
OCR-garbled words ("Ru les of In fe rence"); LaTeX and math debris ("N4t", "\\mathbf", "\\(x_1\\)", "0:5; 0:5/");
cross-references left unresolved ("Figure REF", "Eq. (REF )", "fig:tsne", as unarXive writes a `\\ref`, `\\cref`);
flattened tables (rows of numbers); set or list notation ("{w1, w2, …}");
bibliography entries; acknowledgments and funding statements. Generators call
`passage_debris` on whole passages, `sentence_debris` on the sentence a task
quotes, `number_debris` on the number a task asks about, and `term_debris` on
a named term a task matches.
"""

from __future__ import annotations

import re

_POINTER_WORD = (
    r"(?:\b(?:sections?|sects?\.?|secs?\.?|chapters?|ch\.|tables?|tabs?\.?|figures?|figs?\.?|eqs?\.?|equations?|"
    r"appendix|appendices|pages?|pp?\.|lines?|algorithms?|alg\.|theorems?|lemmas?|definitions?|propositions?|"
    r"corollary|footnotes?|steps?|versions?|items?|no\.|nos\.|refs?\.?)|§|#)\s*[\(\[]?\s*")
_POINTER = re.compile(_POINTER_WORD + r"$", re.IGNORECASE)
"""What, just before a number, makes it a pointer into the document rather than a finding."""
_POINTER_RANGE = re.compile(_POINTER_WORD + r"\d+(?:\.\d+)*\s*(?:[-–—]|and|to)\s*$", re.IGNORECASE)
"""A pointer's range or list: the second number of "Sec. 5.2 - 5.4" points as the first does."""
_UNRESOLVED_REFERENCE = re.compile(
    r"(?<![\w-])REF(?![\w-])|(?i:\b(?:fig|figure|tab|tbl|table|sec|subsec|section|eqn?|equation|app|appendix|alg|"
    r"algorithm|lst|thm|lem|lemma|prop|cor|def|chap):[a-z0-9])")
"""A cross-reference whose target was not resolved: unarXive writes a `\\ref{…}` as "REF" ("Table REF"), a
`\\cref{…}` as its label ("fig:tsne visualizes …")."""
_HEADING_NUMBER = re.compile(r"^\s*(?:\d+(?:\.\d+)*|[IVX]+|[A-Z])[.)]?\s+[A-Z]")
_SHORT_WORDS = frozenset(
    "a an as at be by do go he if in is it me my no of on or so to up us we am id ie eg vs al et ii iii iv vi "
    "vii ok pm mr dr st nd rd th".split())
_LETTERS = re.compile(r"[^\W\d_]+")
_FRAGMENT = re.compile(r"[A-Z][a-z]|[a-z]{1,2}")
"""What OCR leaves of a split word: one or two plain letters ('Ru', 'fe'), not a symbol such as 'Aβ' or 'oA'."""
_UNIT_BEFORE, _JOINED_AFTER = re.compile(r"[\d/]\s?$"), re.compile(r"^[/-]")
"""A short word after a number or slash is a unit ('0.2 g/kg', '37.5 mg'); one before a slash or hyphen is a
unit or a prefix ('un-nanosized'): neither is an OCR fragment."""
_LATEX = re.compile(r"\\[a-zA-Z()]|\$(?![\d,.\s])[^$\n]{1,80}\$|[_^]\{|\{\s*\}|\\\\|\(cid:\d+\)|\ufffd|[\u2200-\u22ff]{2,}")
_JUNK_TOKEN = re.compile(r"^(?:[A-Za-z]\d[a-z]{1,2}|[a-z]\d[A-Z][a-z]?)$")
"""Short tokens that mix letters and digits the way extracted math does ('N4t', 'x2i'), not the way names do
('BERT2', 'GPT-3', 'CoNLL-2003', 'word2vec', 'F1')."""
_MATH_DEBRIS = re.compile(r"\s!\s|\d:\d\s*;|\d:\d/")
_SET_NOTATION = re.compile(r"\{[^{}]*,[^{}]*\}?|\b[a-z]\d?\s*,\s*(?:\.\.\.|…)\s*,|\{\s*\w+\s*,")
_BIBLIOGRAPHY = re.compile(
    r"\bet al\.,?\s*\d{4}[a-z]?\.|\bIn Proceedings\b|\bProc\.\s|\bpp\.\s*\d|\bVol\.\s*\d|\bdoi:|\barXiv:\d|"
    r"\b\d{4}[a-z]?\)\.\s+[A-Z]|\bJournal of\b.*\d{4}", re.IGNORECASE)
_ACKNOWLEDGMENT = re.compile(
    r"\b(?:we (?:would like to )?thank|thanks to|grateful|acknowledg\w*|supported (?:in part )?by|funded by|"
    r"funding|grant(?:s)? (?:no\.?|number|#)|under grant|award (?:no\.?|number)|fellowship|sponsored by|"
    r"competing interests?|conflicts? of interest)\b", re.IGNORECASE)
FUNDERS = frozenset(
    "NSF NIH DARPA IARPA ONR ARO AFOSR DOE NASA ERC EPSRC BBSRC MRC NSERC DFG ANR JSPS JST NSFC CNPq FAPESP NWO "
    "SNSF ARC NHMRC H2020 FP7 AHRC ESRC UKRI CIFAR NRF KAKENHI".split())
"""Funding bodies: named in acknowledgments, never a finding's setting or a term a task matches."""
_GENERIC_TERMS = frozenset(
    "I II III IV V VI VII VIII IX X US USA UK EU PhD MSc BSc CEO CV PDF URL HTTP HTML XML JSON API CPU GPU RAM "
    "OK AM PM ID IDs No Fig Figs Eq Eqs Tab Sec Ref Refs CI SD SE SEM IQR OR HR RR AUC ROC".split())
"""Capitalised tokens that name no method, dataset or concept of a paper (or only a statistic)."""
_ENDS_IN_A_CELL = re.compile(r"\d%?\*?\s*$")
"""A sentence that ends on a bare number, with no full stop, is a table's row run into the text
('… extraction model Description F1 Without LM 49.9')."""
_TABLE_TOKEN = re.compile(r"^[-+±]?\d+(?:[.,]\d+)?%?\*?$|^[-–—/|]+$")


def number_debris(text: str, start: int, end: int) -> str | None:
    """Why the number at text[start:end] is not a finding: it points at a section, table, figure, page,
    equation or the like; it numbers a heading; it is a year; it labels a list item ('25%: 1'); or it sits in
    math or set notation."""
    before, number = text[max(0, start - 24):start], text[start:end]
    if _POINTER.search(before) or _POINTER_RANGE.search(text[max(0, start - 40):start]):
        return f"the number {number} points into the document ({before.strip()[-12:]} {number})"
    if _HEADING_NUMBER.match(text[start:start + 40]) and (start == 0 or text[start - 1] in "\n"):
        return f"the number {number} numbers a heading"
    if re.fullmatch(r"(?:19|20)\d\d", number):
        return f"the number {number} is a year"
    if re.match(r"%?\s*:", text[end:end + 3]):
        return f"the number {number} labels an item of a list"
    around = text[max(0, start - 3):end + 3]
    if "{" in around or "}" in around or re.search(r"\d:\d", around):
        return f"the number {number} sits in math or set notation"
    return None


def is_heading(text: str) -> bool:
    """Whether a passage is a heading: numbered, or a few words without a verb's full stop."""
    stripped = text.strip()
    words = stripped.split()
    if not words:
        return True
    if _HEADING_NUMBER.match(stripped) and len(words) <= 14:
        return True
    return len(words) <= 8 and not stripped.endswith((".", "?", "!", ":"))


def garbled(text: str) -> bool:
    """Whether words are split apart the way OCR splits them ('Ru les of In fe rence'): several fragments of
    one or two letters that are neither short words nor abbreviations."""
    words = [m for m in _LETTERS.finditer(text)
             if not (_UNIT_BEFORE.search(text[max(0, m.start() - 2):m.start()]) or _JOINED_AFTER.match(text[m.end():]))]
    fragments = [m[0] for m in words if _FRAGMENT.fullmatch(m[0]) and m[0].lower() not in _SHORT_WORDS]
    return len(fragments) >= 2 and len(fragments) >= 0.12 * len(words)


def has_latex(text: str) -> bool:
    """Whether the text carries LaTeX, extracted math or encoding debris."""
    if _LATEX.search(text) or _MATH_DEBRIS.search(text):
        return True
    return any(_JUNK_TOKEN.match(token) for token in re.findall(r"[A-Za-z0-9]+", text))


def is_table(text: str) -> bool:
    """Whether the text is a flattened table or a run of table cells: mostly numbers, or three numbers in a
    row with no word between them."""
    tokens = text.split()
    if not tokens:
        return False
    numeric = [t for t in tokens if _TABLE_TOKEN.match(t.strip("(),;"))]
    runs = re.search(r"(?:[-+]?\d+(?:\.\d+)?%?\s+){2,}[-+]?\d+(?:\.\d+)?", text)
    return (len(numeric) >= 4 and len(numeric) >= 0.35 * len(tokens)) or runs is not None


def has_unresolved_reference(text: str) -> bool:
    """Whether the text points at a figure, table, section or equation whose number was lost ("Figure REF"): a
    sentence with one is never quoted; a passage with one elsewhere stays evidence, read as the paper's text."""
    return _UNRESOLVED_REFERENCE.search(text) is not None


def is_bibliography(text: str) -> bool:
    """Whether the text is (or is mostly) reference-list entries."""
    return len(_BIBLIOGRAPHY.findall(text)) >= 2 or bool(re.match(r"^\s*\[\d+\]\s+[A-Z]", text))


def is_acknowledgment(text: str) -> bool:
    """Whether the text thanks people or names funding."""
    return _ACKNOWLEDGMENT.search(text) is not None or any(f in FUNDERS for f in re.findall(r"\b[A-Z][A-Z0-9]+\b", text))


def passage_debris(text: str) -> str | None:
    """Why a whole passage cannot be a task's evidence, or None."""
    for test, what in ((is_heading, "a heading"), (garbled, "OCR-garbled text"), (has_latex, "LaTeX or math debris"),
                       (is_table, "a flattened table"), (is_bibliography, "bibliography entries"),
                       (is_acknowledgment, "acknowledgments or funding")):
        if test(text):
            return what
    return None


def sentence_debris(sentence: str) -> str | None:
    """Why a sentence cannot be quoted by a task (as a claim's source or a cloze), or None."""
    if _SET_NOTATION.search(sentence):
        return "set or list notation"
    if len(sentence.split()) < 6:
        return "too short to state a finding"
    if has_unresolved_reference(sentence):
        return "an unresolved cross-reference"
    if _ENDS_IN_A_CELL.search(sentence):
        return "a flattened table"
    return passage_debris(sentence)


def term_debris(term: str) -> str | None:
    """Why a named term cannot be matched by a task, or None."""
    if term in FUNDERS:
        return f"{term} is a funding body"
    if term in _GENERIC_TERMS or len(term) < 2:
        return f"{term} names no method, dataset or concept"
    if _JUNK_TOKEN.match(term) or re.fullmatch(r"[A-Z]\d+[a-z]?", term):
        return f"{term} is math or LaTeX debris"
    if re.fullmatch(r"[A-Z]{1,2}\d{0,2}", term) and len(term) <= 2:
        return f"{term} is too short to name a concept"
    return None
