"""The repository a SWE build reads: a local clone (shallow ones included), a clone URL cloned once into the
cache, a git bundle (`.bundle`, cloned once per content into the cache), or the scripted sample (a `.py` file
that creates a repository with a scripted history).

A bundle's `owner/name` and licence are read from a JSON file beside it with the same stem
(`{"repo": "owner/name", "license": "MIT", "url": …}`), as the shipped sample `data/samples/swe/tomlkit.json`;
its optional `usable_since` (ISO date) says from when on the history's tests can run from the bundle alone
(e.g. earlier commits need a git submodule it does not carry): mining starts there at the earliest."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import git

from taskforge.sandbox.filelock import locked
from taskforge.store.licences import LICENCE_FILES, spdx_id
from taskforge.schemas import InputError, content_id, without_credentials

_FORGE_URL = re.compile(r"(?:github\.com|gitlab\.com|bitbucket\.org)[:/](?P<owner>[^/]+)/(?P<name>[^/]+?)(?:\.git)?/?$")


@dataclass(frozen=True)
class SourceRepository:
    """An opened repository with the `owner/name` SWE-bench calls `repo`."""

    repo: git.Repo
    name: str
    usable_since: str | None = None

    @property
    def head(self) -> str:
        """The commit the history is read from."""
        return self.repo.head.commit.hexsha

    @property
    def shallow_boundary(self) -> frozenset[str]:
        """The commits of a shallow clone whose parents are not in it (empty for a complete history)."""
        return shallow_boundary(Path(self.repo.git_dir))


def repository_licence(repo: git.Repo, commit: str) -> str | None:
    """The licence of a repository at a commit, from its top-level licence file: the SPDX id of its text, else the
    file's name (a licence not recognised); None without a licence file."""
    tree = repo.commit(commit).tree
    names = sorted(blob.name for blob in tree.blobs if LICENCE_FILES.match(blob.name))
    for name in names:
        found = spdx_id((tree / name).data_stream.read().decode("utf-8", errors="replace"))
        if found:
            return found
    return f"{names[0]} of the repository" if names else None


def shallow_boundary(git_dir: Path) -> frozenset[str]:
    """The commits listed in a repository's `shallow` file: present, but without their parents."""
    listed = git_dir / "shallow"
    return frozenset(listed.read_text().split()) if listed.exists() else frozenset()


def repo_name(repo: git.Repo, fallback: str, hops: int = 3) -> str:
    """`owner/name` from the `origin` remote when it points at a forge, or from the origin of the local clone
    it was cloned from (up to `hops` clones back); else `local/<folder name>`."""
    try:
        url = repo.remotes.origin.url
    except (AttributeError, ValueError):
        url = ""
    match = _FORGE_URL.search(url)
    if match:
        return f"{match['owner']}/{match['name']}"
    local = Path(url.removeprefix("file://")) if url and "://" not in url.replace("file://", "") else None
    if hops and local is not None and local.is_dir():
        try:
            return repo_name(git.Repo(local), fallback, hops - 1)
        except (git.InvalidGitRepositoryError, git.NoSuchPathError):
            pass
    return f"local/{fallback}"


def public_name(source: str) -> str:
    """How a source is named in errors and records, never by a host path or with credentials: `owner/name` on a
    forge, a URL without its user part, else `local/<folder name>`."""
    match = _FORGE_URL.search(source)
    if match:
        return f"{match['owner']}/{match['name']}"
    if "://" in source:
        return without_credentials(source)
    return f"local/{Path(source).name.removesuffix('.git')}"


def materialize_sample(script: Path, cache: Path) -> dict[str, str]:
    """Run a sample script (once per script content) and return what it prints: `path` and commits by role."""
    folder = cache / "samples" / content_id(script.read_text(encoding="utf-8"), prefix="sample-")
    made = folder / "made.json"
    with locked(folder):
        if not made.exists():
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir(parents=True)
            done = subprocess.run([sys.executable, str(script), str(folder)], capture_output=True, text=True)
            if done.returncode != 0:
                raise InputError(script.name, f"the sample script failed: {done.stderr.strip()[-300:]}")
            made.write_text(done.stdout)
    return json.loads(made.read_text())


def bundle_description(bundle: Path) -> dict[str, str]:
    """What the JSON file beside a bundle says (`repo`, `usable_since` …); empty when there is none."""
    sidecar = bundle.with_suffix(".json")
    if not sidecar.exists():
        return {}
    try:
        described = json.loads(sidecar.read_text(encoding="utf-8"))
        return {"repo": str(described["repo"]), **({"usable_since": str(described["usable_since"])}
                                                  if described.get("usable_since") else {})}
    except (json.JSONDecodeError, KeyError, TypeError) as exc:
        raise InputError(sidecar.name, f"not a bundle description with a `repo` field ({type(exc).__name__})") from None


def clone_bundle(bundle: Path, cache: Path) -> SourceRepository:
    """Clone a git bundle (once per content) into `cache/clones/` and name it after the file beside it."""
    digest = hashlib.sha256(bundle.read_bytes()).hexdigest()[:16]
    clone = cache / "clones" / f"bundle-{digest}"
    with locked(clone):
        if not clone.exists():
            staging = clone.with_name(clone.name + ".partial")
            shutil.rmtree(staging, ignore_errors=True)
            done = subprocess.run(["git", "clone", "-q", "--bare", str(bundle), str(staging)],
                                  capture_output=True, text=True)
            if done.returncode != 0:
                raise InputError(bundle.name, f"not a readable git bundle: {done.stderr.strip()[-300:]}")
            staging.rename(clone)
    described = bundle_description(bundle)
    return SourceRepository(repo=git.Repo(clone), name=described.get("repo", f"local/{bundle.stem}"),
                            usable_since=described.get("usable_since"))


def open_source(source: str, cache: Path) -> SourceRepository:
    """Open a local repository, a bundle, a sample script's repository, or clone a URL into `cache/clones/`
    (once)."""
    path = Path(source)
    if path.suffix == ".py" and path.is_file():
        path = Path(materialize_sample(path, cache)["path"])
    if path.suffix == ".bundle" and path.is_file():
        return clone_bundle(path, cache)
    try:
        if path.exists():
            repo = git.Repo(path)
            return SourceRepository(repo=repo, name=repo_name(repo, path.resolve().name.removesuffix(".git")))
        clone = cache / "clones" / content_id(source, prefix="clone-")
        with locked(clone):
            if not clone.exists():
                git.Repo.clone_from(source, clone, no_checkout=True)
        repo = git.Repo(clone)
        return SourceRepository(repo=repo, name=repo_name(repo, clone.name))
    except (git.InvalidGitRepositoryError, git.NoSuchPathError, git.GitCommandError) as exc:
        missing = not path.exists() and "://" not in source and ":" not in source.split("/")[0]
        problem = ("no such repository (deleted or moved?)" if missing
                   else f"not a readable git repository or clone URL ({type(exc).__name__})")
        raise InputError(public_name(source), problem) from None
