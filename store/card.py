"""The dataset card (`README.md`) of a release: configs, loading, counts, sources and licences, the funnel per
family and the decontamination report. Everything in it comes from its arguments, in sorted order."""

from __future__ import annotations

from collections import Counter
from typing import Any

from taskforge.schemas import SCHEMA_VERSION
from taskforge.store.report import check_cell

SHOWN_REMOVALS = 50
SHOWN_RESOURCES = 3


def _configs(families: list[str], splits: dict[str, list[str]]) -> str:
    """The card's `configs:` entries: the RL view and the envelopes of each family, one data file pattern per
    split (`train` when `splits` does not name the family's)."""
    entries = []
    for family in families:
        files = "".join(f"\n  - split: {split}\n    path: {{folder}}/{family}/{split}-*.parquet"
                        for split in splits.get(family) or ["train"])
        for name, folder in ((family, "data"), (f"{family}_envelope", "envelope")):
            entries.append(f"- config_name: {name}\n  data_files:" + files.format(folder=folder))
    return "\n".join(entries)


def _table(header: list[str], rows: list[list[Any]]) -> str:
    """A markdown table."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(cell).replace("|", "\\|") for cell in row) + " |" for row in rows]
    return "\n".join(lines)


def _matched(removal: dict[str, Any]) -> str:
    """What a removed task matched, in a few words per match."""
    parts = []
    for match in removal["matches"][:3]:
        if "set" in match:
            parts.append(f"{match['kind']} of set '{match['set']}' item '{match['item']}'")
        else:
            parts.append(f"task {match['task_id']} ({match['origin']}), Jaccard {match['jaccard']}")
    more = len(removal["matches"]) - len(parts)
    return "; ".join(parts) + (f"; {more} more" if more > 0 else "")


def _sources_section(summaries: dict[str, dict[str, Any]]) -> str:
    """Per family and builder: licence, tasks and resources."""
    rows = []
    for family, summary in sorted(summaries.items()):
        for source in summary["sources"]:
            shown = ", ".join(source["resources"][:SHOWN_RESOURCES])
            extra = len(source["resources"]) - SHOWN_RESOURCES
            rows.append([family, source["builder"], source["licence"], source["tasks"],
                         f"{len(source['resources'])}: {shown}" + (f" … (+{extra})" if extra > 0 else "")])
    return _table(["family", "builder", "licence", "tasks", "resources"], rows)


def _funnel_section(funnel: list[dict[str, Any]], released: dict[str, int], removals: list[dict[str, Any]]) -> str:
    """Per family: candidates, each check, accepted at landing, removed by the release, released."""
    removed = Counter(family for family, _ in {(r["family"], r["task_id"]) for r in removals
                                                 if r["stage"] == "release"})
    rows = [[f["family"], f["candidates"], ", ".join(f"{c['check']} {check_cell(c)}" for c in f["checks"]),
             f["accepted"], removed[f["family"]], released.get(f["family"], 0)] for f in funnel]
    return _table(["family", "candidates", "checks (passed/judged)", "accepted at landing", "removed by this release",
                   "released"], rows)


def _decontamination_section(references: dict[str, list[dict[str, Any]]], removals: list[dict[str, Any]]) -> str:
    """What tasks were checked against, and every task left out with what it matched."""
    sets = references.get("evaluation_sets", [])
    releases = references.get("earlier_releases", [])
    lines = ["Evaluation sets checked (exact ids, canary strings, 13-grams of normalised words, paraphrases):", "",
             _table(["set", "version", "source", "licence", "items", "ids", "texts", "canaries"],
                    [[s["name"], s["version"], s["source"], s["licence"], s["items"], s["ids"], s["texts"],
                      s["canaries"]] for s in sets])
             if sets else "none registered.", "",
             "Earlier releases checked for near-duplicates (MinHash, Jaccard ≥ 0.8):", "",
             _table(["release", "tasks"], [[r["name"], r["tasks"]] for r in releases]) if releases
             else "none registered.", ""]
    counts = Counter((r["family"], r["stage"], r["check"]) for r in removals)
    lines += ["Tasks left out:", "",
              _table(["family", "stage", "check", "tasks"], [[*key, n] for key, n in sorted(counts.items())])
              if counts else "none.", ""]
    if removals:
        shown = removals[:SHOWN_REMOVALS]
        lines += [_table(["task", "family", "stage", "check", "matched"],
                         [[r["task_id"], r["family"], r["stage"], r["check"], _matched(r)] for r in shown]), ""]
        if len(removals) > SHOWN_REMOVALS:
            lines += [f"… and {len(removals) - SHOWN_REMOVALS} more: see `decontamination.json`.", ""]
    return "\n".join(lines)


def release_card(version: str, released: dict[str, int], summaries: dict[str, dict[str, Any]],
                 funnel: list[dict[str, Any]], removals: list[dict[str, Any]],
                 references: dict[str, list[dict[str, Any]]], environment_files: list[str],
                 splits: dict[str, list[str]] | None = None) -> str:
    """The card of release `version` (released rows per family; per-family kinds and sources; the catalog's
    funnel; every removal; what was checked against; the environment files shipped)."""
    families = sorted(released)
    contents = _table(["family", "tasks", "kinds"],
                      [[f, released[f], ", ".join(f"{k} {n}" for k, n in summaries[f]["kinds"].items())]
                       for f in families])
    shipped = "\n".join(f"- `{name}`" for name in environment_files) or "- none"
    return "\n".join([
        "---", "configs:", _configs(families, splits or {}), "license: other", f"pretty_name: taskforge {version}",
        "tags:", "- taskforge", "- reinforcement-learning", "- agents", "---", "",
        f"# taskforge release {version}", "",
        "Verified training tasks built by taskforge from diagnosed failures of an agentic model. Every task "
        "passed its family's no-op, reference, leakage and decontamination checks and near-duplicate removal "
        "before landing, and the release screen (decontamination and near-duplicates again) before release.", "",
        f"Schema version {SCHEMA_VERSION}.", "",
        "## Loading", "",
        "```python",
        "from datasets import load_dataset",
        "rl = load_dataset(\"<this folder>\", \"<family>\", split=\"train\")           # verl RL view",
        "tasks = load_dataset(\"<this folder>\", \"<family>_envelope\", split=\"train\")  # task envelopes",
        "```", "",
        "Config `<family>`: verl's columns `data_source` (`taskforge/<family>`), `prompt`, `ability`, "
        "`reward_model {style, ground_truth}` (the hidden reference as JSON), `extra_info` (index, split, task id, "
        "payload, grader and environment as JSON strings, `tools_kwargs`, `interaction_kwargs`) and `agent_name`. "
        "Rewards: `graders/reward.py::compute_score(data_source, solution_str, ground_truth, extra_info)`. "
        "Config `<family>_envelope`: the same tasks as taskforge envelopes (validation results, lineage), row "
        "for row.", "",
        "Task environments are rebuilt from these files, with this folder as the data dir:", "", shipped, "",
        "## Contents", "", contents, "",
        "## Sources and licences", "", _sources_section({f: summaries[f] for f in families}), "",
        "## Funnel per family", "",
        "All tasks the catalog holds: candidates, each check (passed/judged, then those it did not judge: n/a or "
        "skipped), accepted at landing, removed by this release's screen, released.", "",
        _funnel_section(funnel, released, removals), "",
        "## Decontamination", "", _decontamination_section(references, removals),
    ])
