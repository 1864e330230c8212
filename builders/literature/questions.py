"""How a literature question is phrased from the facts a generator computed.

`TemplateQuestions` is the deterministic path and the default; another
`QuestionWriter` plugs in as `LiteratureBuilder(question_writer=...)`, and the
writer's name is recorded in the payload. The builder agent does not plug in
here: a natural question must be checked against the computed answer and the
papers, which a writer of facts alone does not have (a claim is phrased before
its candidates are retrieved), so the agent rewrites the finished case instead
(`taskforge.builders.literature.natural`).
"""

from __future__ import annotations

from typing import Any, Callable, Protocol

from taskforge.graders.literature.concepts import describe_forms


class QuestionWriter(Protocol):
    """Phrases the question of one task from its facts; must not add facts of its own."""

    name: str

    def phrase(self, kind: str, facts: dict[str, Any]) -> str: ...


def _find_papers(facts: dict[str, Any]) -> str:
    after = f", were published after {facts['after']}," if facts.get("after") else ""
    return (f"Which papers in the collection cite “{facts['anchor_title']}”{after} and mention "
            f"{facts['term']} (written as {describe_forms(facts['forms'])}; case, plurals and hyphens aside) in their "
            f"title, abstract or body text, not counting reference lists or acknowledgments?")


def _find_papers_2hop(facts: dict[str, Any]) -> str:
    after = f" were published after {facts['after']}," if facts.get("after") else ""
    return (f"Take the paper “{facts['anchor_title']}”. Which other papers in the collection are cited by a paper "
            f"that cites it, do not cite it themselves,{after} and mention {facts['term']} (written as "
            f"{describe_forms(facts['forms'])}; case, plurals and hyphens aside) in their title, abstract or body "
            f"text, not counting reference lists or acknowledgments?")


def _select_evidence(facts: dict[str, Any]) -> str:
    what = (f"a relative improvement of {facts['value']}% in {facts['metric']}" if facts.get("relative")
            else f"an improvement of {facts['value']} in {facts['metric']}" if facts.get("gain")
            else f"{facts['metric']} = {facts['value']}")
    setting = f" for {facts['setting']}" if facts.get("setting") else ""
    return f"Claim: a paper in the collection reports {what}{setting}."


def _fulltext_qa(facts: dict[str, Any]) -> str:
    return (f"The full text of the paper “{facts['title']}” contains this sentence with one number blanked out: "
            f"“{facts['cloze']}” Which number fills the blank?")


_CLAUSES = {
    "cites": lambda c: f"cites “{c['title']}”",
    "cited_by": lambda c: f"is cited by “{c['title']}”",
    "published_in": lambda c: f"was published in {c['year']}",
    "venue": lambda c: f"appeared in {c['venue']}",
}


def _described_finding(facts: dict[str, Any]) -> str:
    clauses = [_CLAUSES[c["type"]](c) for c in facts["constraints"] if c["type"] != "mentions"]
    terms = [c["term"] for c in facts["constraints"] if c["type"] == "mentions"]
    if terms:
        clauses.append(f"mentions {' and '.join(terms)} (case, plurals and hyphens aside) in its title, abstract or "
                       f"body text")
    description = ", ".join(clauses[:-1]) + (" and " if len(clauses) > 1 else "") + clauses[-1]
    setting = " and ".join(facts["setting"])
    return (f"One paper in the collection {description}. What {facts['metric']} does that paper report for "
            f"{setting}? (Its text states the number in one sentence with “{facts['metric']}” and {setting}.)")


def _table_synthesis(facts: dict[str, Any]) -> str:
    return f"Compare these {facts['rows']} papers in a table with one row per paper and the columns below."


class TemplateQuestions:
    """The deterministic question templates, one per kind."""

    name = "templates-v1"
    templates: dict[str, Callable[[dict[str, Any]], str]] = {
        "find_papers": _find_papers, "select_evidence": _select_evidence,
        "fulltext_qa": _fulltext_qa, "table_synthesis": _table_synthesis, "described_finding": _described_finding,
        "find_papers_2hop": _find_papers_2hop,
    }

    def phrase(self, kind: str, facts: dict[str, Any]) -> str:
        return self.templates[kind](facts)
