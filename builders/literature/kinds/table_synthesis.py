"""table_synthesis: papers × aspects, every cell read off the papers; scored cell by cell.

The rows are papers that share an anchor they cite. The columns are the
publication year, the venue, the first author, whether the paper cites a
second work (one that some rows cite and others do not) and whether it
mentions a named term (again, some rows and not others), so no column can be
filled by a guess that is right for every row. A mention is matched as a
concept in the paper's content (`graders/literature/concepts.py`), and the
column names every form that counts.
"""

from __future__ import annotations

import random

from taskforge.builders.literature.cases import Case, key_passage, paper_entry, read_call
from taskforge.builders.literature.prompting import user_message
from taskforge.builders.literature.questions import QuestionWriter
from taskforge.builders.literature.text import first_passage_mentioning, matchable_terms
from taskforge.graders.literature.concepts import concept_forms, content_text, describe_forms, mentions_concept
from taskforge.graders.literature.environment import METADATA, REFERENCES, SearchEnvironment
from taskforge.graders.literature.papers import Paper

KIND = "table_synthesis"
ROWS = 4


def _split(rows: list[Paper], holds) -> bool:
    """Whether a yes/no property holds for some rows and not for others."""
    return 0 < sum(1 for row in rows if holds(row)) < len(rows)


def generate(env: SearchEnvironment, rng: random.Random, writer: QuestionWriter) -> Case | None:
    """One table_synthesis case around a randomly chosen anchor paper, or None when it does not make one."""
    collection = env.collection
    anchors = sorted(pid for pid, citing in collection.cited_by.items() if len(citing) >= ROWS)
    if not anchors:
        return None
    anchor = rng.choice(anchors)
    usable = [collection.by_id[c] for c in collection.cited_by[anchor]]
    usable = [p for p in usable if p.year and p.venue and p.authors]
    if len(usable) < ROWS:
        return None
    rows = sorted(rng.sample(usable, ROWS), key=lambda p: p.paper_id)
    texts = {p.paper_id: content_text(p) for p in rows}
    cited = sorted({r for p in rows for r in p.references if r in collection.by_id and r != anchor})
    cited = [c for c in cited if _split(rows, lambda p, c=c: c in p.references)]
    forms = {t: concept_forms(t, list(texts.values())) for t in sorted({t for p in rows
                                                                        for t in matchable_terms(texts[p.paper_id])})}
    terms = [t for t, f in forms.items() if _split(rows, lambda p, f=f: mentions_concept(texts[p.paper_id], f))]
    if not cited or not terms:
        return None
    second, term = collection.by_id[rng.choice(cited)], rng.choice(terms)
    columns = {
        "year": "publication year (a number)",
        "venue": "where it was published, as the metadata names it",
        "first_author": "full name of the first author",
        "cites_work": f"does it cite “{second.title}”? yes or no",
        "mentions_term": f"does it mention {term} (written as {describe_forms(forms[term])}; case, plurals and "
                         f"hyphens aside) in its title, abstract or body text, not counting its reference list or "
                         f"acknowledgments? yes or no",
    }
    table = {p.paper_id: {"year": p.year, "venue": p.venue, "first_author": p.authors[0],
                          "cites_work": "yes" if second.paper_id in p.references else "no",
                          "mentions_term": "yes" if mentions_concept(texts[p.paper_id], forms[term]) else "no"}
             for p in rows}
    passages = [key_passage(p, *(first_passage_mentioning(p, forms[term]) or (None, None)))
                for p in rows if table[p.paper_id]["mentions_term"] == "yes"]
    facts = {"rows": len(rows), "columns": columns}
    question = writer.phrase(KIND, facts)
    listing = (["Papers:"] + [f"- {p.paper_id}: {p.title}" for p in rows]
               + ["Columns:"] + [f"- {key}: {meaning}" for key, meaning in columns.items()])
    return Case(
        kind=KIND, question=question, user=user_message(KIND, question, listing), facts=facts,
        payload={"question": question, "rows": [p.paper_id for p in rows], "columns": columns,
                 "question_writer": writer.name, "difficulty": {"rows": len(rows), "columns": len(columns)}},
        reference={
            "answer": table, "gold_ids": [p.paper_id for p in rows],
            "papers": [paper_entry(p, "gold") for p in rows] + [paper_entry(second, "cited")],
            "key_passages": passages,
            "tool_path": [read_call(p.paper_id, section) for p in rows for section in (METADATA, REFERENCES)]
                         + [read_call(k["paper_id"], k["passage"]) for k in passages],
        },
        grader={"scorer": "literature.table_cells", "rows": [p.paper_id for p in rows], "columns": list(columns)},
    )
