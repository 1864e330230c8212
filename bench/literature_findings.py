"""What a literature build keeps of a real collection's numbers: every number of a body sentence (what the
generators used to pick from) against the findings they pick from now, with the refusals by reason.

    .venv/bin/python bench/literature_findings.py [--source data/samples/papers] [--examples 2]

Prints the candidates (numbers in full-text sentences outside the abstract), how many are findings, each
refusal reason with its count and examples, and the time to read the findings beside the bare sentence split.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from taskforge.builders.literature.collection import load_collection  # noqa: E402
from taskforge.builders.literature.debris import number_debris, passage_debris, sentence_debris  # noqa: E402
from taskforge.builders.literature.findings import NUMBER, findings  # noqa: E402
from taskforge.builders.literature.text import sentences  # noqa: E402
from taskforge.graders.literature.concepts import content_sections  # noqa: E402
from taskforge.graders.literature.papers import ABSTRACT, paragraphs, section_texts  # noqa: E402


def _refusal(section: str, content: dict[str, str], passage: str, sentence: str, start: int, end: int) -> str:
    """Why a number of a body sentence is not a finding."""
    if section not in content:
        return "not content (references, acknowledgments, funding …)"
    why = passage_debris(passage)
    if why and why != "a flattened table":
        return f"passage: {why}"
    why = sentence_debris(sentence) or number_debris(sentence, start, end)
    if why is None:
        return "no metric near it, or a p-value, bound or spread"
    return f"number: {why.split(' ', 3)[-1].split(' (')[0]}" if why.startswith("the number") else f"sentence: {why}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", default="data/samples/papers")
    parser.add_argument("--examples", type=int, default=2)
    args = parser.parse_args()
    papers = [p for p in load_collection(args.source).collection.papers if p.sections]

    started = time.perf_counter()
    kept = {(f.passage_id, f.sentence, f.value) for p in papers for f in findings(p)}
    ours = time.perf_counter() - started

    started = time.perf_counter()
    candidates, reasons, examples = 0, Counter(), defaultdict(list)
    for paper in papers:
        content = content_sections(paper)
        for section, body in section_texts(paper).items():
            if section == ABSTRACT:
                continue
            for n, passage in enumerate(paragraphs(body), start=1):
                for sentence in sentences(passage):
                    for match in NUMBER.finditer(sentence):
                        candidates += 1
                        if (f"{section}:{n}", sentence, match[0]) in kept:
                            continue
                        why = _refusal(section, content, passage, sentence, match.start(), match.end())
                        reasons[why] += 1
                        if len(examples[why]) < args.examples:
                            examples[why].append(f"{match[0]!r} in {sentence[:110]!r}")
    bare = time.perf_counter() - started

    print(f"{len(papers)} papers with full text in {args.source}")
    print(f"{candidates} numbers in body sentences; {len(kept)} findings kept; {candidates - len(kept)} refused")
    for why, count in reasons.most_common():
        print(f"  {count:5d}  {why}")
        for example in examples[why]:
            print(f"           {example}")
    print(f"findings read in {ours:.2f} s; the candidate scan with reasons (no findings) in {bare:.2f} s")


if __name__ == "__main__":
    main()
