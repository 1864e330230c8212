"""Rebuild the default evaluation sets of this folder from local clones of their public sources.

    python data/evalsets/build_defaults.py --mle-bench CLONE --paper-qa CLONE --swe-bench-verified-report FILE

Every source is a git checkout (or one file of it) named in README.md beside this script, with the commit the
shipped files were built from; the output files keep that commit as the set's version.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
from pathlib import Path

HERE = Path(__file__).resolve().parent


def git(clone: Path, *args: str) -> str:
    """Output of a git command in a clone (a bare repository works too)."""
    return subprocess.run(["git", "-C", str(clone), *args], check=True, capture_output=True, text=True).stdout


def write(name: str, meta: dict, items: list[dict]) -> None:
    """One set file in the registry's JSON form, with its version, source and licence."""
    head = json.dumps({"name": name, **meta}, ensure_ascii=False, sort_keys=True)[:-1]
    lines = ",\n".join(json.dumps(item, ensure_ascii=False, sort_keys=True) for item in items)
    (HERE / f"{name}.json").write_text(f'{head}, "items": [\n{lines}\n]}}\n', encoding="utf-8")
    print(f"{name}: {len(items)} items")


def mle_bench(clone: Path) -> None:
    """Every competition MLE-bench prepares (its id is the Kaggle competition and dataset slug), with its split."""
    commit = git(clone, "rev-parse", "HEAD").strip()
    split_of = {}
    for split in ("low", "medium", "high", "dev"):
        for line in git(clone, "show", f"HEAD:experiments/splits/{split}.txt").splitlines():
            split_of.setdefault(line.strip(), split) if line.strip() else None
    items = []
    for entry in git(clone, "ls-tree", "--name-only", "HEAD", "mlebench/competitions/").splitlines():
        competition = entry.rsplit("/", 1)[-1]
        if competition.endswith(".py"):
            continue
        config = git(clone, "show", f"HEAD:{entry}/config.yaml")
        title = re.search(r"^name:\s*(.+)$", config, re.MULTILINE)
        items.append({"item_id": competition, "ids": [f"competition:{competition.casefold()}"], "text": "",
                      "canaries": [], "title": title.group(1).strip() if title else competition,
                      "split": split_of.get(competition, "unlisted")})
    write("mle-bench", {"source": "openai/mle-bench: mlebench/competitions/*/config.yaml", "version": commit[:12],
                        "licence": "MIT (ids and titles only)"}, sorted(items, key=lambda i: i["item_id"]))


def litqa2(clone: Path) -> None:
    """LitQA2's held-out question ids and the DOIs of the papers its evaluation and test questions were answered
    from (PaperQA's published splits); its train split is left out, being meant for training."""
    commit = git(clone, "rev-parse", "HEAD").strip()
    text = git(clone, "show", "HEAD:docs/2024-10-16_litqa2-splits.json5")
    splits: dict[str, dict[str, list[str]]] = {}
    split = field = None
    for line in text.splitlines():
        if m := re.match(r"^\s{2}(\w+): \{", line):
            split = m.group(1)
            splits[split] = {}
        elif m := re.match(r"^\s{4}(\w+): \[", line):
            field = m.group(1)
            splits[split][field] = []
        elif m := re.match(r'^\s{6}"(.*)",?$', line):
            splits[split][field].append(m.group(1))
    items, seen = [], set()
    for split in ("eval", "test"):
        for question in splits[split]["question_ids"]:
            items.append({"item_id": f"{split} question {question}", "ids": [], "text": "", "canaries": [question]})
        for doi in splits[split]["dois"]:
            if doi.casefold() not in seen:
                seen.add(doi.casefold())
                items.append({"item_id": f"{split} paper doi:{doi}", "ids": [f"doi:{doi.casefold()}"], "text": "",
                              "canaries": []})
    write("litqa2", {"source": "Future-House/paper-qa: docs/2024-10-16_litqa2-splits.json5, eval and test",
                     "version": f"2024-10-16 splits, {commit[:12]}", "licence": "Apache-2.0 (ids and DOIs only)"},
          items)


def swe_bench_verified(report: Path, commit: str) -> None:
    """The 500 instance ids of SWE-bench Verified (test split) and their repositories, as listed by a public
    full-run report of the benchmark (every instance, resolved or not)."""
    ids = sorted(set(re.findall(r"^- \[([\w.-]+__[\w.-]+-\d+)\]", report.read_text(encoding="utf-8"), re.MULTILINE)))
    if len(ids) != 500:
        raise SystemExit(f"expected the 500 instances of SWE-bench Verified, found {len(ids)}")
    items = []
    for instance in ids:
        owner, rest = instance.split("__", 1)
        repo, number = rest.rsplit("-", 1)
        items.append({"item_id": instance, "ids": [f"pr:{owner}/{repo}#{number}".casefold()], "text": "",
                      "canaries": [], "repo": f"{owner}/{repo}"})
    write("swe-bench-verified", {"source": "SWE-bench_Verified test split, as listed by gruckion/mini-swe-agent: "
                                           "swebench_results/20251118_gemini-3-pro-74pct/RESULTS.md",
                                 "version": f"500 instances, {commit[:12]}", "licence": "MIT (ids only)"}, items)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mle-bench", type=Path, required=True)
    parser.add_argument("--paper-qa", type=Path, required=True)
    parser.add_argument("--swe-bench-verified-report", type=Path, required=True,
                        help="RESULTS.md of the report (extracted from its clone)")
    parser.add_argument("--swe-bench-verified-commit", required=True, help="commit the report was read at")
    args = parser.parse_args()
    mle_bench(args.mle_bench)
    litqa2(args.paper_qa)
    swe_bench_verified(args.swe_bench_verified_report, args.swe_bench_verified_commit)


if __name__ == "__main__":
    main()
