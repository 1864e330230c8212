"""Findings read off a paper's body: a reported number with its metric and setting, never a pointer, a version,
a statistic's bound, a list label or a number from acknowledgments, references or debris."""

from __future__ import annotations

from taskforge.builders.literature.findings import findings, sentence_findings
from taskforge.graders.literature.papers import Paper, Section


def _values(sentence: str) -> list[str]:
    return [f.value for f in sentence_findings("results:1", sentence, sentence)]


def test_a_result_sentence_gives_its_number_metric_and_setting_nearest_first():
    sentence = "SPECTER achieves a MAP score of 83.8 on the co-view task, and 84.5 on coread, above SciBERT."
    found = sentence_findings("results:1", sentence, sentence)
    assert [(f.value, f.metric) for f in found] == [("83.8", "MAP"), ("84.5", "MAP")]
    assert found[0].setting == ("SPECTER", "SciBERT")


def test_real_results_of_the_shipped_pmc_paper_are_findings():
    # data/samples/papers/jats/PMC6398430.nxml, results
    assert _values("Not all observed marked birds could be identified (2894 out of 3356 sightings; 86.2% "
                   "identification rate) as some birds had lost rings.") == ["86.2"]
    assert _values("The mean subgroup size ± SD was 1.85 ± 1.64, N = 9525 (Quantiles: 0%: 1; 25%: 1; 50%: 1; "
                   "75%: 2; 100%: 33).") == ["1.85"]


def test_pointers_versions_years_and_bounds_are_not_findings():
    assert _values("The F1 of DF and TF is discussed in Section 3.2 of this paper.") == []
    assert _values("Statistical analyses were performed with GraphPad Prism (Version 5.0; GraphPad, USA).") == []
    assert _values("Accuracy improved markedly in 2019 over the earlier release of the corpus.") == []
    assert _values("The accuracy gain was significant (p < 0.05, 95% CI 0.12 to 0.40).") == []
    assert _values("Cells were kept at 37.5 degrees in the incubator for the whole run.") == []


def test_hyper_parameters_number_formats_and_other_clauses_quantities_are_not_findings():
    # data/samples/papers/unarxive (2212.11772, 2212.11889) and the unarXive sample's 2212.11791
    assert _values("There are 50 units in the Bi-GRU layers, and the fully connected layers used in our model have "
                   "200 units with 0.3 dropout rate.") == []
    assert _values("The audio sequences of CMU-MOSI are extracted at a sampling rate of 12.5 Hz.") == []
    assert _values("The text has been corrected to indicate a best full-precision model of 59.93 instead of the "
                   "erroneous 59.95.") == []
    assert _values("We reduced the AIA count rates to the EIS spatial resolution,\nand assumed a slit step size of "
                   "1.9.") == []


def test_a_metric_across_a_clause_still_qualifies_a_number_whose_clause_names_no_quantity():
    # data/samples/papers/unarxive (2212.11809), results
    assert _values("AZF has a +16.8% increase in accuracy to 60.0% (± 1.0%), and Chemformer has the smallest gain in "
                   "accuracy with an +11.2% increase to 65.9% (± 1.0%).") == ["16.8", "60.0", "11.2", "65.9"]


def test_replies_to_reviewers_give_no_findings():
    reply = "The text has been corrected: the best full-precision model reaches a perplexity of 59.93 on PTB."
    paper = Paper(paper_id="p1", title="Integer-only RNNs", sections=[Section(name="reviewer_1", text=reply)])
    assert findings(paper) == []


def test_only_the_content_sections_of_a_paper_give_findings():
    result = "Our parser reaches an accuracy of 91.4 on the PTB test set."
    thanks = "We thank the NSF for grant support; the accuracy of 88.2 was computed by our funders."
    paper = Paper(paper_id="p1", title="A parser", abstract="The accuracy of 90.1 on PTB.",
                  sections=[Section(name="results", text=f"2.2 Ru les of In fe rence\n\n{result}"),
                            Section(name="acknowledgments", text=thanks),
                            Section(name="references", text="Smith et al. 2019. The accuracy of 77.7. pp. 1-9.")])
    found = findings(paper)
    assert [(f.passage_id, f.value, f.setting) for f in found] == [("results:2", "91.4", ("PTB",))]
