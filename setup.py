"""Package layout: each top-level folder of the checkout installs as `taskforge.<folder>`; `data/` as
`taskforge.data`, whose package data (pyproject.toml) is the shipped evaluation sets and samples only (a data dir
under `data/out/` stays out), so an installed package finds them where a checkout does (`<package root>/data/`)."""
from setuptools import find_packages, setup

FOLDERS = ("agents", "builders", "diagnosis", "flows", "graders", "sandbox", "schemas", "store", "tools",
           "validators")

setup(
    packages=["taskforge", "taskforge.data"] + [f"taskforge.{folder}{'.' + sub if sub else ''}"
                                                for folder in FOLDERS for sub in ["", *find_packages(folder)]],
    package_dir={"taskforge": "taskforge", "taskforge.data": "data",
                 **{f"taskforge.{folder}": folder for folder in FOLDERS}},
)
