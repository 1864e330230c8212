"""How well decontamination finds paraphrases, and how often it names an unrelated item of the same topics.

    .venv/bin/python bench/decontam_quality.py [--jsonl FILE --field NAME] [--mle-bench CLONE] [--seed 0]

Texts of one topic are split in two halves: the first half is registered as an evaluation set, the second
half is unrelated to it (same topics, different items). Figures:
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jsonl", default=str(SHIPPED))
    parser.add_argument("--field", default="abstract")
    parser.add_argument("--mle-bench", help="a clone of openai/mle-bench: measure on its competition descriptions")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    texts = corpus(args)
    rng.shuffle(texts)
    registered, unrelated = texts[:len(texts) // 2], texts[len(texts) // 2:]
    registry = Registry([EvalSet(name="measured", source="bench", items=[
        EvalItem(item_id=f"item-{n}", text=text) for n, text in enumerate(registered)])])
    vocabulary = [word for text in unrelated for word in text.split()]
    context = " ".join(unrelated)[:20_000]
    print(f"{len(registered)} registered texts, {len(unrelated)} unrelated ones "
          f"(~{sum(len(t.split()) for t in texts) // len(texts)} words each)")
    recall = {}
    for share, even in ((0.0, False), (0.1, False), (0.25, False), (0.25, True)):
        label = "copied" if not share else f"{share:.0%} of the words replaced{' evenly' if even else ''}"
        alone = inside = 0
        for n, text in enumerate(registered):
            changed = paraphrase(text, share, rng, vocabulary, even) if share else text
            alone += f"item-{n}" in found(registry, changed)
            cut = rng.randrange(len(context))
            inside += f"item-{n}" in found(registry, f"{context[:cut]} {changed} {context[cut:]}")
        recall[label] = (alone / len(registered), inside / len(registered))
        print(f"  recall, {label:<36} alone {alone / len(registered):6.1%}   inside a long text "
              f"{inside / len(registered):6.1%}")
    single = sum(bool(found(registry, text)) for text in unrelated)
    together = " ".join(unrelated)
    joined = found(registry, together)
    print(f"  false positives: {single} of {len(unrelated)} unrelated items one by one; "
          f"{len(joined)} registered items named by all of them in one text of {len(together.split())} words")
    source = "MLE-bench descriptions" if args.mle_bench else Path(args.jsonl).name
    emit(f"decontamination recall, 25% of words replaced ({source})", 100 * min(recall["25% of the words replaced"]),
         None, "%", ">= 95 %", "alone and inside a long text, the lower")
    emit(f"decontamination false positives, unrelated same-topic items ({source})", 100 * single / len(unrelated),
         None, "%", "<= 1 %", f"{len(unrelated)} items one by one")


if __name__ == "__main__":
    main()
