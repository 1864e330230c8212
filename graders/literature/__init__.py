"""Literature grading: the paper collection and its snapshots, the search environment a solver uses, and
the scorers of the four kinds (paper sets, evidence selection, multiple choice, table cells)."""
