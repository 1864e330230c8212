"""Terms matched as concepts (case, inflection, hyphens, the expansions papers define) in a paper's content only."""

from __future__ import annotations

import pytest

from taskforge.graders.literature.concepts import concept_forms, content_text, describe_forms, mentions_concept
from taskforge.graders.literature.papers import Paper, Section

DEFINING = ["We tag each token with its part of speech (POS) before parsing.",
            "Named entities are found by NER (named-entity recognition) over the tagged text."]


def test_expansions_are_read_off_the_papers_definitions():
    assert concept_forms("POS", DEFINING) == ["POS", "part of speech"]
    assert concept_forms("NER", DEFINING) == ["NER", "named entity recognition"]
    assert concept_forms("CRF", DEFINING) == ["CRF"]
    assert describe_forms(["POS", "part of speech"]) == "“POS”, “part of speech”"


@pytest.mark.parametrize("text", ["Part-of-speech tags help.", "We use the part of speech of each word.",
                                  "PoS tagging is first.", "All POS's are kept."])
def test_every_written_form_of_the_concept_is_a_mention(text):
    assert mentions_concept(text, ["POS", "part of speech"])


@pytest.mark.parametrize("text", ["The pos of the robot is logged.", "A POSIX shell runs it.", "The positions."])
def test_other_words_are_not_a_mention(text):
    assert not mentions_concept(text, ["POS", "part of speech"])


def test_inflection_and_hyphenation_of_a_plain_term_match():
    assert mentions_concept("Two Tree-banks were merged.", ["treebank"])
    assert not mentions_concept("A treebanking effort.", ["treebank"])


def test_acknowledgments_and_references_are_not_content():
    paper = Paper(paper_id="p", title="Parsing news", abstract="We parse news.",
                  sections=[Section(name="introduction", text="Parsing is hard."),
                            Section(name="acknowledgments", text="Supported by NSF grant 123."),
                            Section(name="references", text="POS tagging. Smith et al. 2001.")])
    text = content_text(paper)
    assert "Parsing is hard." in text
    assert not mentions_concept(text, ["NSF"]) and not mentions_concept(text, ["POS"])
