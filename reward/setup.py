"""taskforge-reward: the modules `taskforge.graders.reward.compute_score` imports, taken from the checkout's
folders (`src/taskforge/` links to `taskforge/__init__.py`, `taskforge/errors.py` and `graders/`) and installed
under the same `taskforge` namespace as the full package.

Build a wheel from the checkout (`pip wheel --no-deps ./reward`); the full `taskforge` install holds every
module listed here, so install one or the other, not both.
"""
from setuptools import setup
from setuptools.command.build_py import build_py

MODULES = {
    "taskforge": ("__init__", "errors"),
    "taskforge.graders": ("__init__", "base", "replies", "reward"),
    "taskforge.graders.literature": ("__init__", "scorers"),
    "taskforge.graders.long_context": ("__init__", "scorers", "values"),
    "taskforge.graders.mle": ("__init__", "grading", "metrics"),
    "taskforge.graders.swe": ("__init__", "eval_script", "grading", "patch", "reward"),
    "taskforge.graders.workflow": ("__init__", "deliverables"),
}
"""Package → the modules of it the reward imports (`tests/test_reward_install.py` checks this is the whole
import closure of `taskforge.graders.reward`)."""


class RewardModulesOnly(build_py):
    """Builds only the listed modules of each package (the folders also hold builder-side modules)."""

    def find_package_modules(self, package, package_dir):
        return [entry for entry in super().find_package_modules(package, package_dir)
                if entry[1] in MODULES[package]]


setup(
    packages=list(MODULES),
    package_dir={"": "src"},
    cmdclass={"build_py": RewardModulesOnly},
)
