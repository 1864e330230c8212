"""The literature task kinds, each a generator from a collection and its search environment to a Case."""

from __future__ import annotations

import random
from typing import Callable

from taskforge.builders.literature.cases import Case
from taskforge.builders.literature.kinds import (described_finding, find_papers, fulltext_qa, select_evidence,
                                                table_synthesis)
from taskforge.builders.literature.questions import QuestionWriter
from taskforge.graders.literature.environment import SearchEnvironment

Generator = Callable[[SearchEnvironment, random.Random, QuestionWriter], "Case | None"]

GENERATORS: dict[str, Generator] = {
    "find_papers": find_papers.generate,
    "select_evidence": select_evidence.generate,
    "fulltext_qa": fulltext_qa.generate,
    "table_synthesis": table_synthesis.generate,
    "described_finding": described_finding.generate,
    "find_papers_2hop": find_papers.generate_two_hop,
}
KINDS = tuple(GENERATORS)
"""The kinds a build without a capability mapping cycles through by task index (index mod 6): a kind is added last,
so the first indices keep their kinds (described_finding moved every index from 4 on onto another kind,
find_papers_2hop every index from 5 on)."""
