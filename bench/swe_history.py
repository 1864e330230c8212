"""SWE tasks of one repository at different commits: how they leak into each other, and what a release split does.

Reads the SWE tasks landed under a data dir (e.g. after `taskforge build swe --data-dir DIR`), and prints tasks per
source group, the links among them (`validators/swe/history.py`: which task's workspace shows which task's fix,
how, and which pairs change a common function), and the split `store/splits.py` gives at `--test-fraction`.
Cost, ours beside the floor: deriving every link against the bare git calls alone (per holder one
`git cat-file --batch-check`, per pair two `git apply --check -R`), nothing else; the floor runs once untimed
first, so both find the snapshots in the page cache.

    python bench/swe_history.py --data-dir DIR [--test-fraction 0.2]
"""

from __future__ import annotations

import argparse
import hashlib
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from figures import emit  # noqa: E402
from taskforge.graders.swe.patch import post_image_blobs  # noqa: E402
from taskforge.store.splits import assign_splits, source_group  # noqa: E402
from taskforge.validators.landed import landed_tasks  # noqa: E402
from taskforge.validators.swe.history import history_links, snapshot_of  # noqa: E402


def floor(tasks) -> None:
    """The bare git calls the links need, run in each holder's snapshot."""
    for holder in tasks:
        snapshot = str(snapshot_of(holder))
        blobs = "".join(f"{b}\n" for t in tasks for b in post_image_blobs(t.reference["patch"]))
        subprocess.run(["git", "-C", snapshot, "cat-file", "--batch-check"], input=blobs, capture_output=True,
                       text=True)
        for other in tasks:
            if other is not holder:
                for patch in (other.reference["patch"], other.reference["test_patch"]):
                    subprocess.run(["git", "-C", snapshot, "apply", "--check", "-R", "-"], input=patch,
                                   capture_output=True, text=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--test-fraction", type=float, default=0.2)
    args = parser.parse_args()
    tasks = sorted(landed_tasks(args.data_dir, "swe"), key=lambda t: t.payload["committed_at"])
    print(f"landed SWE tasks: {len(tasks)}; per source group: {dict(Counter(source_group(t) for t in tasks))}")
    floor(tasks)
    started = time.perf_counter()
    links = history_links(tasks)
    ours = time.perf_counter() - started
    started = time.perf_counter()
    floor(tasks)
    bare = time.perf_counter() - started
    pairs = len(tasks) * (len(tasks) - 1)
    print(f"ordered pairs: {pairs}; links (holder shows the other's fix): {len(links)}; "
          f"by way: {dict(Counter(way for link in links for way in link.via))}")
    shown_in_later = sum(1 for t in tasks if any(link.shown == t.task_id for link in links))
    print(f"tasks whose fix a later task's workspace shows: {shown_in_later} of {len(tasks)}")
    for link in links:
        if link.repeats_repair:
            print(f"  same function: {link.holder} shows {link.shown}: {', '.join(link.shared_functions)}")
    print(f"pairs changing a common function: {sum(link.repeats_repair for link in links)}")
    naive_test = set(sorted((t.task_id for t in tasks), key=lambda i: hashlib.sha256(i.encode()).hexdigest())
                     [:round(args.test_fraction * len(tasks))])
    leaked = {link.shown for link in links if link.shown in naive_test and link.holder not in naive_test}
    print(f"a task-level split at {args.test_fraction} (by task id hash): {len(naive_test)} test task(s), "
          f"{len(leaked)} of them with their fix and hidden tests in a train task's workspace")
    plan = assign_splits(tasks, args.test_fraction, [link.summary() for link in links])
    for family, part in plan.families.items():
        print(f"split at test_fraction={args.test_fraction}: {family}: train {part['train']}, test {part['test']}"
              f"{'; ' + part['note'] if 'note' in part else ''}; groups: "
              f"{[(g['sources'], g['tasks'], g['split']) for g in part['groups']]}")
    print(f"links: ours {ours:.3f} s, floor (bare git calls) {bare:.3f} s, ratio {ours / max(bare, 1e-9):.2f}")
    emit("swe history links", ours, bare, "s", note="floor: the bare git calls of every task pair")


if __name__ == "__main__":
    main()
