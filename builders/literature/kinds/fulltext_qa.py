"""fulltext_qa: a number that only the full text states, asked as a cloze over its sentence; multiple choice.

The key is a finding of the paper's body (a reported number with its metric,
never a section, table or page number, a heading, a table's debris or LaTeX:
`findings.py`), and its number appears neither in the title nor in the
abstract, so the answer needs the full text.
Distractors are other numbers of the same paper (near misses a careless reader
picks), topped up with nearby values; the last option is always
"Insufficient information", which is never right for a built task. The options
and their order follow from the key alone, so a key drawn twice (a small
collection has few) is one task, landed once.
"""

from __future__ import annotations

import random
import re

from taskforge.builders.literature.cases import Case, key_passage, paper_entry, read_call, search_call
from taskforge.builders.literature.debris import passage_debris
from taskforge.builders.literature.findings import Finding, findings
from taskforge.builders.literature.options import lettered, near_values
from taskforge.builders.literature.prompting import user_message
from taskforge.builders.literature.questions import QuestionWriter
from taskforge.builders.literature.text import DECIMAL, decimals
from taskforge.graders.literature.environment import SearchEnvironment
from taskforge.graders.literature.papers import Paper, full_text, mentions

KIND = "fulltext_qa"
DISTRACTORS = 3
TITLE_SEARCH_K = 5
BLANK = "____"


def _keys(paper: Paper) -> list[Finding]:
    """The findings of the paper's body with a decimal number (as its distractors are) that the title and abstract
    lack and their sentence states once, outside flattened tables (a cloze over table cells reads as nothing)."""
    front = f"{paper.title}\n{paper.abstract}"
    return [f for f in findings(paper)
            if DECIMAL.fullmatch(f.value) and passage_debris(f.passage) is None and not mentions(front, f.value) and len(re.findall(_number_pattern(f.value), f.sentence)) == 1]


def _number_pattern(value: str) -> str:
    """The number as a whole number in text (87.3 not inside 187.3 or 87.35)."""
    return rf"(?<![\w.-]){re.escape(value)}(?![\w-]|\.\w)"


def _distractors(value: str, paper: Paper, sentence: str, rng: random.Random) -> list[str]:
    """Other numbers of the paper closest to the answer, then values near it, none in the key sentence."""
    excluded = set(decimals(sentence))
    same_paper = sorted((v for v in decimals(full_text(paper)) if v not in excluded),
                        key=lambda v: (abs(float(v) - float(value)), v))
    return near_values(value, same_paper[:DISTRACTORS], excluded, DISTRACTORS, rng)


def generate(env: SearchEnvironment, rng: random.Random, writer: QuestionWriter) -> Case | None:
    """One fulltext_qa case from a random paper with a full text, or None when it does not make one."""
    with_text = [p for p in env.collection.papers if p.sections]
    if not with_text:
        return None
    paper = rng.choice(with_text)
    keys = _keys(paper)
    found = [hit["paper_id"] for hit in env.search(paper.title, TITLE_SEARCH_K)["results"]]
    if not keys or paper.paper_id not in found:
        return None
    key = rng.choice(keys)
    passage_id, passage, sentence, value = key.passage_id, key.passage, key.sentence, key.value
    keyed = random.Random(f"{KIND}:{paper.paper_id}:{passage_id}:{value}")
    cloze = re.sub(_number_pattern(value), BLANK, sentence, count=1)
    facts = {"title": paper.title, "cloze": cloze}
    question = writer.phrase(KIND, facts)
    values = [value, *_distractors(value, paper, sentence, keyed)]
    keyed.shuffle(values)
    options, answer, refusal = lettered(values, value)
    listing = [f"{letter}. {text}" for letter, text in options.items()]
    return Case(
        kind=KIND, question=question, user=user_message(KIND, question, listing), facts=facts,
        payload={"question": question, "options": options, "insufficient_option": refusal,
                 "question_writer": writer.name,
                 "difficulty": {"options": len(options), "same_paper_distractors":
                                sum(1 for v in values if v != value and mentions(full_text(paper), v))}},
        reference={
            "answer": answer, "answer_text": value, "gold_ids": [paper.paper_id],
            "papers": [paper_entry(paper, "gold")], "key_sentence": sentence,
            "key_passages": [key_passage(paper, passage_id, passage)],
            "tool_path": [search_call(paper.title, TITLE_SEARCH_K), read_call(paper.paper_id, passage_id)],
        },
        grader={"scorer": "literature.multiple_choice", "options": list(options), "insufficient": refusal},
    )
