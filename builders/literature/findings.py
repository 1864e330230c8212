"""A paper's findings: a reported number with its metric and the setting it was measured in.

A finding is read from a sentence of the paper's content (never its abstract,
reference list or acknowledgments) that names a metric ("an F1 of 91.2",
"accuracy", "odds ratio", "prevalence") near a decimal number or percentage,
where neither the passage nor the sentence is extraction debris and the number
is not a pointer (section, table, figure, page), a year, a p-value, a
confidence bound or a spread (`debris.py`). Its setting is the named terms of
the sentence (methods, datasets, groups), nearest the number first.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from taskforge.builders.literature.debris import number_debris, passage_debris, sentence_debris, term_debris
from taskforge.builders.literature.text import entity_terms, sentences
from taskforge.graders.literature.concepts import content_sections
from taskforge.graders.literature.papers import ABSTRACT, Paper, paragraphs

METRIC = re.compile(
    r"\b(?:accuracy|(?<!-)precision|recall|F1|F-?scores?|F-?measures?|BLEU|ROUGE(?:-[\dLSW]+)?|METEOR|AUC|AUROC|perplexity|"
    r"error rates?|WER|CER|MAP|MRR|n?DCG|NDCG|correlations?|Pearson|Spearman|kappa|exact match|EM|"
    r"[PR]@\d+|Hits@\d+|odds ratios?|hazard ratios?|relative risks?|risk ratios?|prevalence|seroprevalence|"
    r"incidence|sensitivity|specificity|mortality|survival|positive predictive value|PPV|NPV|"
    r"effect sizes?|Cohen's d|ICC|intraclass correlation|Cronbach's alpha|heritability|coefficients?|"
    r"R2|R\^2|speed-?up|throughput|latency|BPC|bits per character|success rate|win rate|AP|mAP|IoU|"
    r"percentage|proportion|(?:mean|median|average) (?:\w+ ){0,2}(?:time|score|age|length|size|value|rate|count|number)|"
    r"\b(?!learning |dropout |sampling )[a-z]+ rates?)\b",
    re.IGNORECASE)
"""Words that name what a reported number measures (not a number format such as "full-precision", nor a
hyper-parameter such as a learning, dropout or sampling rate)."""
_CASED = {"EM", "AP", "MAP", "CER", "WER", "PPV", "NPV", "ICC", "BPC", "AUC", "AUROC"}
NUMBER = re.compile(r"(?<![\w.,-])\d+\.\d+(?![\w-]|\.\d)|(?<![\w.,-])\d+(?:\.\d+)?(?=\s?%)")
"""A reported number: a decimal (87.3) or a percentage (45%), not part of a name or a longer number."""
_NOT_A_RESULT = re.compile(
    r"(?:\bp\s*[<=>≤≥]\s*|\bCI\b[^)]{0,12}|±\s*|\bSD\b\s*[=:]?\s*|\bSE\b\s*[=:]?\s*|\b95\s*%\s*|\bn\s*=\s*|"
    r"\bversion\s+|\bv)$", re.IGNORECASE)
_CONFIDENCE_LEVEL = re.compile(r"\s?%\s*(?:CI\b|confidence)", re.IGNORECASE)
_HYPOTHETICAL = re.compile(r"\bif\s+(?:we|one|they|it|this|these)\s+(?:were|had)\b|\bwould\s+(?:\w+\s+)?(?:have|be|get|"
                           r"give|yield|reach|achieve|obtain|result|lead)\b|\bcould\s+(?:have|reach|achieve)\b",
                           re.IGNORECASE)
"""A sentence saying what would have been ("if we were to remove the lowest performing operator we would in fact
have 95% accuracy"): its numbers are a what-if, not a finding."""
MAX_METRIC_DISTANCE = 80
"""How far (in characters) a metric word may be from the number it qualifies."""
CLAUSE_BREAK = re.compile(r";|,\s+(?:and|but|while|whereas)\s")
_OWN_QUANTITY = re.compile(r"([A-Za-z-]+)\s+(?:of|=)\s*$")
"""A clause break, and a number its own clause names the quantity of: a metric word across the break measures
something else ("the count rates …, and assumed a slit step size of 1.9"; not "a MAP score of 83.8 on co-view,
and 84.5 on coread")."""


@dataclass(frozen=True)
class Finding:
    """A number a paper reports: where (passage id and text), the sentence, the number as written, the metric
    word as written, and the named terms of its setting (nearest the number first)."""

    passage_id: str
    passage: str
    sentence: str
    value: str
    metric: str
    setting: tuple[str, ...]


def _metric_near(sentence: str, start: int, end: int) -> str | None:
    """The metric word nearest the number, if one is close enough and in the number's clause (an upper-case-only
    metric must be written in capitals: 'map' is not 'MAP')."""
    best = None
    own = _OWN_QUANTITY.search(sentence[:start])
    own = own is not None and not METRIC.fullmatch(own[1])
    for match in METRIC.finditer(sentence):
        word = match[0]
        if word.upper() in _CASED and word != word.upper():
            continue
        distance = match.start() - end if match.start() >= end else start - match.end()
        between = sentence[end:match.start()] if match.start() >= end else sentence[match.end():start]
        if own and CLAUSE_BREAK.search(between):
            continue
        if 0 <= distance <= MAX_METRIC_DISTANCE and (best is None or distance < best[0]):
            best = (distance, word)
    return best[1] if best else None


def _setting(sentence: str, start: int, metric: str) -> tuple[str, ...]:
    """The sentence's named terms that are not debris and not the metric, nearest the number first."""
    terms = [t for t in entity_terms(sentence) if term_debris(t) is None and not METRIC.fullmatch(t) and t != metric]
    return tuple(sorted(terms, key=lambda t: abs(sentence.find(t) - start)))


def sentence_findings(passage_id: str, passage: str, sentence: str) -> list[Finding]:
    """The findings one clean sentence states (none where it says what would have been)."""
    if sentence_debris(sentence) or _HYPOTHETICAL.search(sentence):
        return []
    found = []
    for match in NUMBER.finditer(sentence):
        value = match[0]
        if (number_debris(sentence, match.start(), match.end()) or _NOT_A_RESULT.search(sentence[:match.start()])
                or _CONFIDENCE_LEVEL.match(sentence, match.end())):
            continue
        metric = _metric_near(sentence, match.start(), match.end())
        if metric is None:
            continue
        found.append(Finding(passage_id, passage, sentence, value, metric,
                             _setting(sentence, match.start(), metric)))
    return found


def findings(paper: Paper) -> list[Finding]:
    """Every finding of a paper's body (not its abstract), in reading order."""
    found = []
    for name, body in content_sections(paper).items():
        if name == ABSTRACT:
            continue
        for n, passage in enumerate(paragraphs(body), start=1):
            if passage_debris(passage) not in (None, "a flattened table"):
                continue
            for sentence in sentences(passage):
                found += sentence_findings(f"{name}:{n}", passage, sentence)
    return found
