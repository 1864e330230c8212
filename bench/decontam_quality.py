"""How well decontamination finds paraphrases, and how often it names an unrelated item of the same topics.

    .venv/bin/python bench/decontam_quality.py [--jsonl FILE --field NAME] [--mle-bench CLONE] [--seed 0] [--draws 10]

Texts of one topic are split in two halves, `--draws` times (each draw its own split and paraphrases; the
figures pool the draws, since one draw of 75 items counts false positives in steps of 1.3 %): the first half
is registered as an evaluation set, the second half is unrelated to it (same topics, different items). Figures:
- recall: each registered text, with a share of its words replaced by other words of the corpus (at random
  places, or evenly spread, the hardest case for word pairs), found as a paraphrase or a 13-gram, alone and
  in the middle of a long text made of unrelated items;
- false positives: the unrelated items, one by one and all in one long text, that match any registered item.
Default texts: the abstracts of the shipped synthetic paper collection (templated abstracts: one topic, many
shared phrases). `--mle-bench` takes the competition descriptions of a clone of openai/mle-bench instead
(real Kaggle texts of one topic; not shipped, so read from the clone).
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
from pathlib import Path

from figures import emit
from taskforge.validators.evalsets import EvalItem, EvalSet, Registry

SHIPPED = Path(__file__).resolve().parents[1] / "data" / "samples" / "papers_synthetic" / "synthetic_papers.jsonl"


def corpus(args: argparse.Namespace) -> list[str]:
    """The texts of one topic to measure on."""
    if args.mle_bench:
        listing = subprocess.run(["git", "-C", args.mle_bench, "ls-tree", "-r", "--name-only", "HEAD",
                                  "mlebench/competitions"], capture_output=True, text=True, check=True).stdout
        paths = [p for p in listing.splitlines() if p.endswith("/description.md")]
        return [subprocess.run(["git", "-C", args.mle_bench, "show", f"HEAD:{p}"], capture_output=True, text=True,
                               check=True).stdout for p in paths]
    rows = [json.loads(line) for line in Path(args.jsonl).read_text(encoding="utf-8").splitlines() if line.strip()]
    return [row[args.field] for row in rows if row.get(args.field)]


def paraphrase(text: str, share: float, rng: random.Random, vocabulary: list[str], even: bool) -> str:
    """The text with `share` of its words replaced by corpus words (evenly spread, or at random places)."""
    words = text.split()
    count = round(len(words) * share)
    places = (range(0, len(words), max(1, round(1 / share)))[:count] if even
              else rng.sample(range(len(words)), count))
    for place in places:
        words[place] = rng.choice(vocabulary)
    return " ".join(words)


def found(registry: Registry, text: str) -> set[str]:
    """The registered items a text matches (by 13-gram or paraphrase)."""
    return {m.item_id for m in registry.matches([("probe", text)]) if m.kind in ("13-gram", "paraphrase")}


CONDITIONS = ((0.0, False), (0.1, False), (0.25, False), (0.25, True))


def label(share: float, even: bool) -> str:
    """How a condition is printed."""
    return "copied" if not share else f"{share:.0%} of the words replaced{' evenly' if even else ''}"


def one_draw(texts: list[str], seed: int) -> dict:
    """One split of the texts (drawn with `seed`): per condition, how many registered texts are found alone and
    inside a long text; how many unrelated texts match, one by one and all in one text."""
    rng = random.Random(seed)
    texts = list(texts)
    rng.shuffle(texts)
    registered, unrelated = texts[:len(texts) // 2], texts[len(texts) // 2:]
    registry = Registry([EvalSet(name="measured", source="bench", items=[
        EvalItem(item_id=f"item-{n}", text=text) for n, text in enumerate(registered)])])
    vocabulary = [word for text in unrelated for word in text.split()]
    context = " ".join(unrelated)[:20_000]
    counts = {"registered": len(registered), "unrelated": len(unrelated)}
    for share, even in CONDITIONS:
        alone = inside = 0
        for n, text in enumerate(registered):
            changed = paraphrase(text, share, rng, vocabulary, even) if share else text
            alone += f"item-{n}" in found(registry, changed)
            cut = rng.randrange(len(context))
            inside += f"item-{n}" in found(registry, f"{context[:cut]} {changed} {context[cut:]}")
        counts[label(share, even)] = (alone, inside)
    counts["single"] = sum(bool(found(registry, text)) for text in unrelated)
    counts["joined"] = len(found(registry, " ".join(unrelated)))
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jsonl", default=str(SHIPPED))
    parser.add_argument("--field", default="abstract")
    parser.add_argument("--mle-bench", help="a clone of openai/mle-bench: measure on its competition descriptions")
    parser.add_argument("--seed", type=int, default=0, help="the first draw's seed")
    parser.add_argument("--draws", type=int, default=10, help="splits and paraphrases drawn, figures pooled")
    args = parser.parse_args()
    texts = corpus(args)
    draws = [one_draw(texts, args.seed + n) for n in range(args.draws)]
    registered, unrelated = sum(d["registered"] for d in draws), sum(d["unrelated"] for d in draws)
    print(f"{args.draws} draws (seeds {args.seed}-{args.seed + args.draws - 1}) of {draws[0]['registered']} registered "
          f"texts and {draws[0]['unrelated']} unrelated ones (~{sum(len(t.split()) for t in texts) // len(texts)} "
          f"words each); figures pooled over the draws")
    recall = {}
    for share, even in CONDITIONS:
        name = label(share, even)
        alone, inside = (sum(d[name][where] for d in draws) / registered for where in (0, 1))
        recall[name] = (alone, inside)
        print(f"  recall, {name:<36} alone {alone:6.1%}   inside a long text {inside:6.1%}")
    single = sum(d["single"] for d in draws)
    print(f"  false positives: {single} of {unrelated} unrelated items one by one; "
          f"{sum(d['joined'] for d in draws) / args.draws:.1f} registered items named, on average, by all of a "
          f"draw's unrelated items in one text")
    source = "MLE-bench descriptions" if args.mle_bench else Path(args.jsonl).name
    emit(f"decontamination recall, 25% of words replaced ({source})", 100 * min(recall["25% of the words replaced"]),
         None, "%", ">= 95 %", f"alone and inside a long text, the lower; {args.draws} draws pooled")
    emit(f"decontamination false positives, unrelated same-topic items ({source})", 100 * single / unrelated,
         None, "%", "<= 1 %", f"{unrelated} items one by one, {args.draws} draws pooled")


if __name__ == "__main__":
    main()
