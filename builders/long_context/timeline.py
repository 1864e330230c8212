"""Timeline reconstruction: put events stated across many documents into chronological order.

The world model holds every event's date; the answer is the order of those
dates. Each event is stated once, in one document, with its date in one of
several formats, among distractor events and filler.
"""

from __future__ import annotations

import random
import string
from dataclasses import dataclass
from typing import Any

from builders.long_context.length import LengthTarget, fit_length
from builders.long_context.prompting import SYSTEM, user_message
from builders.long_context.render import filler_paragraph, new_documents, render_event
from builders.long_context.world import Event, generate_world

CATEGORY = "timeline"
ANSWER_FORMAT = "Reply with the letters in chronological order, earliest first, on a final line of the form 'Answer: X, Y, Z'."


@dataclass(frozen=True)
class TimelineParams:
    """The difficulty knobs of one timeline task."""

    n_asked: int = 5
    n_distractors: int = 12
    n_documents: int = 6
    target: LengthTarget = LengthTarget(tokens=16384)


def _question(labelled: list[tuple[str, Event]]) -> str:
    lines = [f"{label}. {event.description[0].upper()}{event.description[1:]}" for label, event in labelled]
    return ("The documents above mention many events. Put the following events in the order in which they "
            "happened:\n" + "\n".join(lines) + "\n\n" + ANSWER_FORMAT)


def _labelled(asked: list[Event], rng: random.Random) -> list[tuple[str, Event]]:
    """Label the asked events so that the listing order is never already the chronological order."""
    order = list(asked)
    while True:
        rng.shuffle(order)
        if [e.date for e in order] != sorted(e.date for e in order):
            return list(zip(string.ascii_uppercase, order))


def generate(seed: int, params: TimelineParams) -> dict[str, Any]:
    """Generate one timeline case: payload (what defines the task), reference (hidden) and the prompt text."""
    rng = random.Random(seed)
    world = generate_world(seed, params.n_asked + params.n_distractors)
    asked = rng.sample(list(world.events), params.n_asked)
    labelled = _labelled(asked, rng)
    documents = new_documents(world, rng, params.n_documents)
    for event in world.events:
        document = rng.choice(documents)
        sentence = render_event(event, rng)
        document.event_sentences[event.event_id] = sentence
        paragraph = f"{filler_paragraph(world, rng, 1)} {sentence} {filler_paragraph(world, rng, 1)}"
        document.paragraphs.insert(rng.randrange(len(document.paragraphs) + 1), paragraph)
    question = _question(labelled)
    measured = fit_length(documents, lambda docs: SYSTEM + user_message(docs, question), params.target,
                          lambda: filler_paragraph(world, rng), rng)
    evidence = []
    for label, event in labelled:
        document = next(d for d in documents if event.event_id in d.event_sentences)
        sentence = document.event_sentences[event.event_id]
        start = document.text.index(sentence)
        evidence.append({"label": label, "doc_id": document.doc_id, "start": start, "end": start + len(sentence)})
    answer = [label for label, event in sorted(labelled, key=lambda item: item[1].date)]
    docs_out = [{"doc_id": d.doc_id, "title": d.title, "text": d.text} for d in documents]
    return {
        "payload": {
            "category": CATEGORY,
            "documents": docs_out,
            "question": question,
            "items": {label: event.description for label, event in labelled},
            "answer_type": "ordered_labels",
            "evidence": evidence,
            "context_tokens": measured,
            "target_tokens": params.target.tokens,
            "tolerance": params.target.tolerance,
            "answer_reserve": params.target.answer_reserve,
            "difficulty": {
                "search_space": len(world.events),
                "answer_scope": params.n_asked,
                "distractors": params.n_distractors,
                "documents": params.n_documents,
                "evidence_dispersion": len({e["doc_id"] for e in evidence}),
            },
            "world_seed": seed,
        },
        "reference": {
            "answer": answer,
            "answer_text": ", ".join(answer),
            "dates": {label: event.date.isoformat() for label, event in labelled},
        },
        "grader": {"scorer": "long_context.ordered_labels", "labels": [label for label, _ in labelled]},
        "system": SYSTEM,
        "user": user_message(docs_out, question),
    }
