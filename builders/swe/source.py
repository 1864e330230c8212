"""The repository a SWE build reads: a local clone, or a clone URL cloned once into the cache."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import git

from schemas import InputError, content_id

_FORGE_URL = re.compile(r"(?:github\.com|gitlab\.com|bitbucket\.org)[:/](?P<owner>[^/]+)/(?P<name>[^/]+?)(?:\.git)?/?$")


@dataclass(frozen=True)
class SourceRepository:
    """An opened repository with the `owner/name` SWE-bench calls `repo`."""

    repo: git.Repo
    name: str

    @property
    def head(self) -> str:
        """The commit the history is read from."""
        return self.repo.head.commit.hexsha


def repo_name(repo: git.Repo, fallback: str) -> str:
    """`owner/name` from the `origin` remote when it points at a forge, else `local/<folder name>`."""
    try:
        url = repo.remotes.origin.url
    except (AttributeError, ValueError):
        url = ""
    match = _FORGE_URL.search(url)
    return f"{match['owner']}/{match['name']}" if match else f"local/{fallback}"


def open_source(source: str, cache: Path) -> SourceRepository:
    """Open a local repository, or clone a URL into `cache/clones/` (once; later builds reuse the clone)."""
    path = Path(source)
    try:
        if path.exists():
            repo = git.Repo(path)
            return SourceRepository(repo=repo, name=repo_name(repo, path.resolve().name.removesuffix(".git")))
        clone = cache / "clones" / content_id(source, prefix="clone-")
        if not clone.exists():
            git.Repo.clone_from(source, clone, no_checkout=True)
        repo = git.Repo(clone)
        return SourceRepository(repo=repo, name=repo_name(repo, clone.name))
    except (git.InvalidGitRepositoryError, git.NoSuchPathError, git.GitCommandError) as exc:
        raise InputError(source, f"not a readable git repository or clone URL ({type(exc).__name__})") from None
