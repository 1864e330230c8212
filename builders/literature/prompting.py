"""How a literature task is shown to the solver: the tools and collection, the question, the answer format."""

from __future__ import annotations

from taskforge.graders.literature.papers import PaperCollection

SYSTEM = (
    "You are a literature research agent working over a fixed collection of papers ({name}, {papers} papers). "
    "Two tools reach it: search(query, k) returns the k best papers for keywords (paper_id, title, year, venue, "
    "score), and read(paper_id, section) returns a paper's 'metadata', 'abstract', 'references', 'cited_by' or a "
    "full-text section, with text as numbered passages such as 'experiments:2'. Search as often as you need, revise "
    "your queries, read before you decide, and base the answer only on what the tools return."
)

PAPER_IDS = ("Reply with the ids of every paper that satisfies all the conditions, as the tools write them, on a "
             "final line of the form 'Answer: id1, id2, id3'.")
ANSWER_FORMATS = {
    "find_papers": PAPER_IDS,
    "find_papers_2hop": PAPER_IDS,
    "select_evidence": ("Reply with a JSON object naming the candidates that support the claim and the passages "
                        "that show it: {\"papers\": [\"<paper_id>\", ...], \"passages\": [{\"paper_id\": "
                        "\"<paper_id>\", \"passage\": \"<section>:<n>\"}, ...]}. Leave out candidates that do not "
                        "support it."),
    "fulltext_qa": "Reply with the letter of one option on a final line of the form 'Answer: X'.",
    "described_finding": "Reply with the letter of one option on a final line of the form 'Answer: X'.",
    "table_synthesis": ("Reply with a JSON object mapping each paper id to an object with one value per column key, "
                        "e.g. {\"<paper_id>\": {\"<column>\": <value>, ...}, ...}; answer yes/no columns with "
                        "\"yes\" or \"no\"."),
}


def system_message(collection: PaperCollection) -> str:
    """The system turn: what the collection is and how the tools behave."""
    return SYSTEM.format(name=collection.collection_id, papers=len(collection))


def user_message(kind: str, question: str, listing: list[str] | None = None) -> str:
    """The user turn: the question, any listing (candidates, options, rows and columns), the answer format."""
    parts = [question]
    if listing:
        parts.append("\n".join(listing))
    parts.append(ANSWER_FORMATS[kind])
    return "\n\n".join(parts)
