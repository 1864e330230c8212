"""The literature task kinds, each a generator from a collection and its search environment to a Case."""

from __future__ import annotations

import random
from typing import Callable

from builders.literature.cases import Case
from builders.literature.kinds import find_papers, fulltext_qa, select_evidence, table_synthesis
from builders.literature.questions import QuestionWriter
from graders.literature_env import SearchEnvironment

Generator = Callable[[SearchEnvironment, random.Random, QuestionWriter], "Case | None"]

GENERATORS: dict[str, Generator] = {
    "find_papers": find_papers.generate,
    "select_evidence": select_evidence.generate,
    "fulltext_qa": fulltext_qa.generate,
    "table_synthesis": table_synthesis.generate,
}
KINDS = tuple(GENERATORS)
