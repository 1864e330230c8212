"""How much a search for the ledger's words returns besides the facts: filler sentences against fact sentences.

Builds `--tasks` ledger_balance tasks at `--tokens` (no evolution) and, for each word a solver of the
category would search for ("credits", "fund", "reserve", "account", "booked", "transfer", "void", "entry",
"balance") and for any of them, counts the sentences that match and are filler beside those that match and
are facts (a fact's span as the reference locates it). The figure is filler / fact sentences matching any of
the words (ours / floor): how many lines a solver wades through per line it needs. Also printed: the share of
the documents' lines (paragraphs, what `grep` returns) that match and hold no fact.
Run: `.venv/bin/python bench/ledger_vocabulary.py [--tasks N] [--tokens T]`.
"""

from __future__ import annotations

import argparse
import re

from figures import emit

from taskforge.builders.base import BuildContext
from taskforge.builders.long_context import LongContextBuilder
from taskforge.graders.long_context.solvers import sentences_of
from taskforge.schemas import PlanItem, Task

KEYWORDS = {word: re.compile(pattern, re.IGNORECASE) for word, pattern in {
    "credits": r"\bcredits?\b", "fund": r"\bfunds?\b", "reserve": r"\breserves?\b", "account": r"\baccounts?\b",
    "booked": r"\bbook(?:ed|ing|ings)\b", "transfer": r"\btransfer(?:s|red)?\b", "void": r"\bvoid(?:ed)?\b",
    "entry": r"\bentry\b|\bentries\b", "balance": r"\bbalances?\b"}.items()}
"""The words searched for, each as a pattern (its inflections)."""
ANY = re.compile("|".join(p.pattern for p in KEYWORDS.values()), re.IGNORECASE)


def _build(count: int, tokens: int) -> list[Task]:
    """`count` ledger_balance roots."""
    item = PlanItem(family="long_context", capability="bench", quota=count, gap_ids=[], priority=1.0)
    context = BuildContext(cycle_id="bench-ledger", options={"target_tokens": tokens, "categories": "ledger_balance",
                                                             "evolve": False})
    return list(LongContextBuilder().build(item, context))


def _split(task: Task) -> tuple[list[str], list[str], list[str], list[bool]]:
    """The task's fact sentences, its filler sentences, the documents' lines and whether each holds a fact."""
    texts = {d["doc_id"]: d["text"] for d in task.payload["documents"]}
    facts = {texts[f["doc_id"]][f["start"]:f["end"]] for f in task.reference["facts"]}
    sentences = [s.text.strip() for s in sentences_of(task.payload["documents"])]
    lines = [line for text in texts.values() for line in text.splitlines() if line.strip()]
    fact_lines = [any(fact in line for fact in facts) for line in lines]
    return [s for s in sentences if s in facts], [s for s in sentences if s not in facts], lines, fact_lines


def main() -> None:
    """Print, per keyword, filler and fact sentences matching it (totals over the tasks) and the ratio."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=4, help="ledger tasks to build (default 4)")
    parser.add_argument("--tokens", type=int, default=32768, help="target tokens per task (default 32768)")
    args = parser.parse_args()
    tasks = _build(args.tasks, args.tokens)
    counts = {word: [0, 0] for word in [*KEYWORDS, "any"]}
    matching_lines = factless_lines = 0
    for task in tasks:
        facts, filler, lines, fact_lines = _split(task)
        for word, pattern in [*KEYWORDS.items(), ("any", ANY)]:
            counts[word][0] += sum(1 for s in filler if pattern.search(s))
            counts[word][1] += sum(1 for s in facts if pattern.search(s))
        for line, holds_fact in zip(lines, fact_lines):
            if ANY.search(line):
                matching_lines += 1
                factless_lines += not holds_fact
    print(f"{len(tasks)} ledger_balance tasks at {args.tokens} tokens; sentences matching, over all tasks")
    print(f"{'word':<9} {'filler':>7} {'facts':>6} {'filler/facts':>12}")
    for word, (filler, facts) in counts.items():
        print(f"{word:<9} {filler:>7} {facts:>6} {filler / facts if facts else float('nan'):>12.2f}")
    print(f"document lines matching any word: {matching_lines}, of which without a fact: "
          f"{factless_lines / max(matching_lines, 1):.0%}")
    filler, facts = counts["any"]
    emit("ledger keyword sentences, filler vs facts (bench/ledger_vocabulary.py)", filler / len(tasks),
         facts / len(tasks), "sentences/task", ">= 5x", "fact sentences matching the same words")


if __name__ == "__main__":
    main()
