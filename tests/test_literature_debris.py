"""Text-extraction debris refused as a task's evidence, and clean sentences of real papers accepted."""

from __future__ import annotations

import pytest

from taskforge.builders.literature.debris import number_debris, passage_debris, sentence_debris, term_debris

DEBRIS_SENTENCES = {
    "2.2 Ru les of In fe rence": "a heading",
    "The Ru les of In fe rence are ap plied to each de rivation in turn.": "OCR-garbled text",
    "We minimise the loss \\mathbf{W} over the N4t hidden states of the encoder.": "LaTeX or math debris",
    "BERT 88.1 86.4 87.2 RoBERTa 89.0 87.7 88.3 XLNet 88.6 87.1 87.8": "a flattened table",
    # data/samples/papers/s2orc (Construction of the Literature Graph in Semantic Scholar): a table run into text
    "In the deployed system, we use three instances of the entity extraction model Description F1 Without LM 49.9":
        "a flattened table",
    "The vocabulary is the set {w1, w2, w3} of the most frequent words in the corpus.": "set or list notation",
    "Smith, J., et al. 2019. Parsing with trees. In Proceedings of ACL, pp. 12-20.": "bibliography entries",
    "This work was supported in part by NSF grant 1234567 and by a DARPA fellowship.": "acknowledgments or funding",
    # data/samples/papers/unarxive (2212.11772, 2212.11889): a formula rendered as inline LaTeX, and a `\\ref`
    # unarXive left unresolved
    "Besides, we use \\(Adam\\) optimizer with 0.001 learning rate and L1 loss function.": "LaTeX or math debris",
    "Table REF shows that the AIA count rates\nas predicted with a 1.2 and 1.3 MK isothermal models and with the EIS "
    "DEM are close, within 50%.": "an unresolved cross-reference",
    # data/samples/papers/unarxive (2212.11790): a `\\cref` unarXive wrote as its label
    "fig:memoryqueuesize presents the effect of the train query queue size on text-video retrieval performance on "
    "ActivityNet.": "an unresolved cross-reference",
}
CLEAN_SENTENCES = [
    # from data/samples/papers (PMC and S2ORC full texts)
    "In this study, the amount of CSP consumption for the mouse was 187.5 mg/kg/day, which is approximately "
    "equated to 15.2 mg/kg/day for human [36].",
    "Co-incubation with 0.044 and 0.22 μM CSP or un-nanosized curcuminoids significantly reversed oAβ-induced "
    "neuronal death.",
    "For training, we use the Adam optimizer (Kingma and Ba, 2014) following the suggested hyperparameters in "
    "Devlin et al. (2019).",
    "The model reaches an F1 of 91.2 on CoNLL-2003, 2.4 points above the GPT-3 baseline.",
    "The cost per patient was $115.2 billion in 2018 and is expected to rise to $140.3 billion by 2025.",
]


@pytest.mark.parametrize("sentence,kind", DEBRIS_SENTENCES.items())
def test_debris_sentences_are_refused_with_their_kind(sentence, kind):
    assert sentence_debris(sentence) == kind


@pytest.mark.parametrize("sentence", CLEAN_SENTENCES)
def test_clean_sentences_of_real_papers_are_accepted(sentence):
    assert sentence_debris(sentence) is None
    assert passage_debris(sentence) is None


@pytest.mark.parametrize("text,number,why", [
    ("TF and DF are compared in Section 3.2 of the paper.", "3.2", "points into the document"),
    ("As Table 4.1 shows, recall drops.", "4.1", "points into the document"),
    ("see Fig. 2.5 for the curves", "2.5", "points into the document"),
    # data/samples/papers/unarxive (2212.11765): the end of a range of sections
    ("we will next analyze the different components of the multi-variate timeseries input (Sec. 5.2 - 5.4) and then "
     "we focus on ESG rating prediction's accuracy", "5.4", "points into the document"),
    ("The corpus was released in 2018 with new labels.", "2018", "is a year"),
    ("the set {0.5, 0.7} of thresholds", "0.5", "math or set notation"),
])
def test_pointers_years_and_notation_are_not_findings(text, number, why):
    start = text.index(number)
    assert why in number_debris(text, start, start + len(number))


def test_a_reported_number_is_a_finding():
    text = "Our parser reaches an accuracy of 3.2 points above the baseline."
    start = text.index("3.2")
    assert number_debris(text, start, start + 3) is None


@pytest.mark.parametrize("term,why", [("NSF", "funding body"), ("N4t", "math or LaTeX"), ("PDF", "names no"),
                                      ("X1", "math or LaTeX")])
def test_funders_generic_words_and_math_are_not_terms(term, why):
    assert why in term_debris(term)


@pytest.mark.parametrize("term", ["POS", "BERT", "CoNLL-2003", "MIMIC-III", "word2vec", "SciBERT"])
def test_method_and_dataset_names_are_terms(term):
    assert term_debris(term) is None
