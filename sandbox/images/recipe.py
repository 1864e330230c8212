"""Image recipes and their content-hash tags: an image is rebuilt only when its recipe changes."""

from __future__ import annotations

from dataclasses import asdict, dataclass

from taskforge.sandbox.api import BASE_IMAGE
from taskforge.schemas.base import content_id

BASE_REPOSITORY, BASE_ALIAS = BASE_IMAGE.rsplit(":", 1)
ENV_REPOSITORY = "taskforge/sandbox-env"
RECIPE_FORMAT = 1
CONTAINER_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
VENV = "/opt/venv"


@dataclass(frozen=True)
class BaseRecipe:
    """The sandbox base image: a minimal Debian with Python, venv, pip, git and the CA certificates."""

    suite: str = "bookworm"
    variant: str = "minbase"
    packages: tuple[str, ...] = ("python3", "python3-venv", "python3-pip", "git", "ca-certificates")
    trimmed: tuple[str, ...] = ("var/cache/apt/archives", "var/lib/apt/lists", "usr/share/doc", "usr/share/man",
                                "usr/share/info")
    changes: tuple[str, ...] = (f"ENV PATH={CONTAINER_PATH}", "ENV LANG=C.UTF-8", "WORKDIR /workspace",
                                'CMD ["bash"]')

    def tag(self) -> str:
        """`taskforge/sandbox-base:<hash of this recipe>`."""
        return f"{BASE_REPOSITORY}:{content_id({'format': RECIPE_FORMAT, **asdict(self)})}"


@dataclass(frozen=True)
class PythonEnvRecipe:
    """A derived image: a virtual environment at /opt/venv with wheels prepared on the host, installed offline.

    `requirements` are `pip wheel` arguments (names with versions, or local paths);
    pin them where the image must not change while its tag stays the same.
    """

    name: str
    requirements: tuple[str, ...]
    base: str = BASE_IMAGE

    def tag(self, base_image_id: str) -> str:
        """`taskforge/sandbox-env:<name>-<hash of recipe and base image id>`."""
        digest = content_id({"format": RECIPE_FORMAT, "base_id": base_image_id, **asdict(self)})
        return f"{ENV_REPOSITORY}:{self.name}-{digest}"

    def changes(self) -> list[str]:
        """Dockerfile instructions applied when the image is committed: the venv first on PATH."""
        return [f"ENV PATH={VENV}/bin:{CONTAINER_PATH}", "ENV LANG=C.UTF-8", "WORKDIR /workspace", 'CMD ["bash"]']


PYTHON_ENVS: dict[str, PythonEnvRecipe] = {
    "science": PythonEnvRecipe(
        name="science",
        requirements=("pytest>=8,<10", "numpy>=1.26,<3", "pandas>=2.1,<3", "scikit-learn>=1.4,<2"),
    ),
}
