"""Leakage between SWE tasks of one repository mined at different commits.

A task's workspace is its repository at the base commit, so a task whose base
comes after another task's fix shows that fix (and the other task's hidden
tests) to its solver: in `git log -p`, and often in the work tree itself. The
link is re-derived from the tasks' stored patches and snapshots, never from a
field the builder wrote:

- `history`: every post-image blob of the other task's patch and test patch is
  in this snapshot's object store (the fix is in the history the solver can read);
- `work_tree`: the other task's patch applies in reverse to this work tree
  (the fixed code is checked out);
- `tests_in_work_tree`: the other task's test patch applies in reverse (its
  hidden tests are checked out).

What follows from a link (see validators/README.md):

- two linked tasks whose patches change a common function (read from the
  pre-image blobs in the holder's snapshot, `graders/swe/functions.py`) teach
  the same repair twice, and the later one's workspace holds the earlier one's
  answer in that very function: the holder is **rejected** (`swe_history_overlap`,
  part of the `leakage` question) — one task per function holds across commits
  and cycles, not only within one build's mining;
- any other link is **only grouped**: a training set may hold both tasks, but a
  release keeps every linked pair in one split (`store/splits.py`), so no
  test-split task's fix is visible in a train-split workspace.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Sequence

from taskforge.graders.swe.functions import patch_functions
from taskforge.graders.swe.harness import cache_root
from taskforge.graders.swe.patch import post_image_blobs, split_files
from taskforge.graders.swe.safe_git import SAFE_GIT, git_in
from taskforge.schemas import Task, ValidationResult
from taskforge.schemas.swe import SweReference


@dataclass(frozen=True)
class HistoryLink:
    """`holder`'s workspace shows `shown`'s fix: how (`via`), and the functions both patches change."""

    holder: str
    shown: str
    via: tuple[str, ...]
    shared_functions: tuple[str, ...]

    @property
    def repeats_repair(self) -> bool:
        """Whether both patches change a common function (the holder is then rejected)."""
        return bool(self.shared_functions)

    def summary(self) -> dict[str, Any]:
        """The link as stored in a result's detail and passed to a release."""
        return {"holder": self.holder, "shown": self.shown, "via": list(self.via),
                "shared_functions": list(self.shared_functions)}


def snapshot_of(task: Task) -> Path:
    """The task's solver snapshot in the SWE cache."""
    return cache_root() / task.environment["snapshot"]


def _git(snapshot: Path, args: list[str], stdin: str) -> subprocess.CompletedProcess:
    """git in a snapshot, fed `stdin`, its exit status kept (hooks and the rest off, as `safe_git` runs it)."""
    return subprocess.run([*SAFE_GIT, "-C", str(snapshot), *args], input=stdin, capture_output=True, text=True)


def objects_present(snapshot: Path, object_ids: set[str]) -> set[str]:
    """Which of the object ids the snapshot's object store holds (one `git cat-file --batch-check`)."""
    if not object_ids:
        return set()
    done = _git(snapshot, ["cat-file", "--batch-check=%(objectname) %(objecttype)"],
                "".join(f"{o}\n" for o in sorted(object_ids)))
    found = [line.split() for line in done.stdout.splitlines()]
    return {words[0] for words in found if len(words) == 2 and words[1] != "missing"} & object_ids


@lru_cache(maxsize=1024)
def tracked_files(snapshot: str) -> frozenset[str]:
    """The files a snapshot's work tree tracks (a snapshot never changes: its folder is named by repository and
    commit)."""
    return frozenset(git_in(Path(snapshot), "ls-files", "-z").split("\0")) - {""}


def patch_paths(patch: str) -> set[str]:
    """Every path a patch names, before and after it."""
    return {path for piece in split_files(patch) for path in (piece.old_path, piece.new_path)}


def applies_in_reverse(snapshot: Path, patch: str) -> bool:
    """Whether the patch's post-image is what the snapshot's work tree holds (`git apply --check -R`, asked only
    when every file the patch leaves is tracked there; nothing is written)."""
    left = {piece.new_path for piece in split_files(patch) if not piece.is_deleted}
    return (bool(left) and left <= tracked_files(str(snapshot))
            and _git(snapshot, ["apply", "--check", "-R", "-"], patch).returncode == 0)


@lru_cache(maxsize=4096)
def _blob_text(snapshot: str, blob: str) -> str | None:
    """A blob's text from a snapshot's object store (None when it is not there)."""
    done = _git(Path(snapshot), ["cat-file", "blob", blob], "")
    return done.stdout if done.returncode == 0 else None


SHOWN_LINKS = 20
"""Links kept in a result's detail (the release derives them again over every released task)."""
_NAMED: dict[str, frozenset[str]] = {}
"""The functions of each patch named so far, by the patch's text (its pre-image blob ids pin the files it reads)."""
MAX_NAMED = 4096


def functions_in(snapshot: Path, patch: str) -> set[str]:
    """The functions a patch changes, its pre-image files read from the snapshot's object store (named once per
    patch text: a patch whose pre-image a snapshot lacks is named again from the next one)."""
    if patch in _NAMED:
        return set(_NAMED[patch])
    missing: list[str] = []

    def read(blob: str) -> str | None:
        text = _blob_text(str(snapshot), blob)
        missing.extend([] if text is not None else [blob])
        return text

    names = patch_functions(patch, read)
    if not missing:
        if len(_NAMED) >= MAX_NAMED:
            _NAMED.clear()
        _NAMED[patch] = frozenset(names)
    return names


def links_from(holder: Task, others: Sequence[Task]) -> list[HistoryLink]:
    """Every other task whose fix `holder`'s workspace shows (see the module docstring for how)."""
    snapshot = snapshot_of(holder)
    if not (snapshot / ".git").is_dir():
        raise ValueError(f"the snapshot {snapshot.name} of task {holder.task_id} is missing or is not a repository")
    references = {other.task_id: SweReference.of(other) for other in others}
    blobs = {task_id: set(post_image_blobs(r.patch) + post_image_blobs(r.test_patch))
             for task_id, r in references.items()}
    present = objects_present(snapshot, set().union(*blobs.values()))
    own: set[str] | None = None
    links = []
    for other in sorted(others, key=lambda t: t.task_id):
        reference = references[other.task_id]
        via = [name for name, shown in (
            ("history", bool(blobs[other.task_id]) and blobs[other.task_id] <= present),
            ("work_tree", applies_in_reverse(snapshot, reference.patch)),
            ("tests_in_work_tree", applies_in_reverse(snapshot, reference.test_patch))) if shown]
        if not via:
            continue
        own = functions_in(snapshot, SweReference.of(holder).patch) if own is None else own
        shared = own & functions_in(snapshot, reference.patch)
        links.append(HistoryLink(holder.task_id, other.task_id, tuple(via), tuple(sorted(shared))))
    return links


def history_links(tasks: Sequence[Task]) -> list[HistoryLink]:
    """Every link among the SWE tasks of a batch or release, holder by holder (other families have none)."""
    swe = [task for task in tasks if task.family == "swe"]
    return [link for holder in swe for link in links_from(holder, [t for t in swe if t.task_id != holder.task_id])]


class SweHistoryOverlap:
    """The task against the SWE tasks already landed (`peers`), both ways: rejected when its workspace shows the
    fix of one changing a common function, or one's workspace shows its fix so; every link is recorded in the
    detail (`links`). Peers whose snapshot is not in this SWE cache are counted, not compared; a peer's workspace
    is searched for the task's fix only when it tracks a file the fix changes."""

    name = "swe_history_overlap"

    def __init__(self, peers: Callable[[], Sequence[Task]]):
        self.peers = peers

    def applies_to(self, task: Task) -> bool:
        return task.family == "swe"

    def run(self, task: Task) -> ValidationResult:
        others = [peer for peer in self.peers() if peer.task_id != task.task_id and peer.family == "swe"]
        comparable = [peer for peer in others if (snapshot_of(peer) / ".git").is_dir()]
        paths = patch_paths(SweReference.of(task).patch)
        could_show_task = [peer for peer in comparable if paths & tracked_files(str(snapshot_of(peer)))]
        links = links_from(task, comparable) + [link for peer in could_show_task for link in links_from(peer, [task])]
        detail = {"peers": len(comparable), "peers_without_snapshot": len(others) - len(comparable),
                  "linked": len(links), "links": [link.summary() for link in links[:SHOWN_LINKS]]}
        repeats = [link for link in links if link.repeats_repair]
        if not repeats:
            return ValidationResult(check=self.name, passed=True, score=0.0, detail=detail)
        named = "; ".join(f"{link.holder} shows {link.shown} ({', '.join(link.shared_functions)}; via "
                          f"{', '.join(link.via)})" for link in repeats[:3])
        return ValidationResult(check=self.name, passed=False, score=1.0, detail=detail,
                                reason=f"a landed task changes the same function(s) at another commit and one "
                                       f"workspace shows the other's fix: {named} (one task per function)")


def release_links(tasks: list[Task]) -> list[dict[str, Any]]:
    """The links among a release's SWE tasks whose snapshots this SWE cache holds, as `store/release.py` takes
    them (a task without its snapshot here keeps only its recorded source group)."""
    present = [task for task in tasks if task.family == "swe" and (snapshot_of(task) / ".git").is_dir()]
    return [link.summary() for link in history_links(present)]
