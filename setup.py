"""Package layout: each top-level folder of the checkout installs as `taskforge.<folder>`."""
from setuptools import find_packages, setup

FOLDERS = ("agents", "builders", "diagnosis", "flows", "graders", "sandbox", "schemas", "store", "tools",
           "validators")

setup(
    packages=["taskforge"] + [f"taskforge.{folder}{'.' + sub if sub else ''}"
                              for folder in FOLDERS for sub in ["", *find_packages(folder)]],
    package_dir={"taskforge": "taskforge", **{f"taskforge.{folder}": folder for folder in FOLDERS}},
)
