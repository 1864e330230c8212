"""Leakage in SWE tasks: the solver's snapshot must hold nothing the base commit does not reach.

The audit reads the snapshot's git folder directly: exactly one ref (the
branch at the base commit), no tags, stash, notes or remotes, no reflogs,
FETCH_HEAD / ORIG_HEAD or alternates, a clean work tree, and an object store
in which every object is reachable from the base commit — so neither the fix
commit nor the solution's or the tests' post-fix blobs can be there. The
prompt must not quote the solution or the held-out tests either (the header and
docstring of a new function the hidden tests call are interface, not solution).
"""

from __future__ import annotations

from pathlib import Path

from taskforge.graders.swe.safe_git import git_in, names_in_tree
from taskforge.graders.swe.harness import cache_root
from taskforge.graders.swe.patch import post_image_blobs, quoted_lines
from taskforge.graders.swe.statement import patch_names, without_specs
from taskforge.schemas import Task
from taskforge.schemas.swe import SwePayload, SweReference

LEFTOVER_FILES = ("FETCH_HEAD", "ORIG_HEAD", "MERGE_HEAD", "CHERRY_PICK_HEAD", "REVERT_HEAD", "objects/info/alternates",
                  "objects/info/http-alternates")


def audit_snapshot(snapshot: Path, base_commit: str, fix_commit: str, forbidden_blobs: list[str]) -> list[str]:
    """Every way the snapshot exposes more than the base commit reaches (empty: the snapshot is clean)."""
    if not (snapshot / ".git").is_dir():
        return [f"the snapshot {snapshot.name} is missing or is not a repository"]
    git_dir = snapshot / ".git"
    leaks = []
    refs = [line.split() for line in git_in(snapshot, "for-each-ref", "--format=%(refname) %(objectname)").splitlines()]
    extra_refs = [name for name, target in refs if not (name.startswith("refs/heads/") and target == base_commit)]
    if extra_refs or len(refs) != 1:
        leaks.append(f"refs other than one branch at the base commit: {', '.join(extra_refs) or len(refs)}")
    if git_in(snapshot, "rev-parse", "HEAD").strip() != base_commit:
        leaks.append("HEAD is not the base commit")
    leaks += [f"{name} is present" for name in LEFTOVER_FILES if (git_dir / name).exists()]
    if (git_dir / "logs").exists() and any(p.is_file() for p in (git_dir / "logs").rglob("*")):
        leaks.append("reflogs are present")
    stored = set(git_in(snapshot, "cat-file", "--batch-all-objects", "--batch-check=%(objectname)").split())
    reachable = {line.split()[0] for line in git_in(snapshot, "rev-list", "--objects", base_commit).splitlines()}
    if fix_commit in stored:
        leaks.append(f"the fix commit {fix_commit[:12]} is in the object store")
    leaked_blobs = [blob for blob in forbidden_blobs if blob in stored and blob not in reachable]
    if leaked_blobs:
        leaks.append(f"{len(leaked_blobs)} post-fix blob(s) of the solution or tests are in the object store")
    unreachable = stored - reachable
    if unreachable:
        leaks.append(f"{len(unreachable)} object(s) not reachable from the base commit are in the object store")
    later = set(git_in(snapshot, "log", "--all", "--format=%H").split()) - reachable
    if later:
        leaks.append(f"`git log --all` shows {len(later)} commit(s) beyond the base commit")
    if git_in(snapshot, "status", "--porcelain", "--untracked-files=all").strip():
        leaks.append("the work tree differs from the base commit")
    return leaks


def swe_leaks(task: Task) -> list[str]:
    """Leaks of a SWE task: through its snapshot, or through its prompt quoting the solution or the tests."""
    reference = SweReference.of(task)
    snapshot = cache_root() / task.environment["snapshot"]
    leaks = audit_snapshot(snapshot, SwePayload.of(task).base_commit, reference.fix_commit,
                           post_image_blobs(reference.patch) + post_image_blobs(reference.test_patch))
    existing = names_in_tree(snapshot, patch_names(reference.patch, reference.test_patch, snapshot))
    visible = without_specs("\n".join(message.content for message in task.prompt), reference.patch,
                            reference.test_patch, existing, snapshot)
    for name, diff in (("patch", reference.patch), ("test patch", reference.test_patch)):
        quoted = quoted_lines(visible, diff)
        if quoted:
            leaks.append(f"the prompt quotes {len(quoted)} line(s) of the {name}")
    return leaks
