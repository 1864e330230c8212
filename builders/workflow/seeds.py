"""Workflow seeds on disk: a folder per seed with `seed.json`, the hidden `reference.py`, and either `inputs/`
or a `generate.py` that writes them.

`seed.json` holds the package fields (see `taskforge.schemas.workflow.WorkflowPackage`)
except the input files, which are read from `inputs/`. A seed with a
`generate.py` (standard library, run in the sandbox by
`taskforge.builders.workflow.generation`) ships no inputs: they are generated at
build time, deterministically from a data seed and a scale, from the
parameters under `"generator"` in `seed.json`; such a seed loads with no inputs
until it is generated. Accepted descendants are written back with their inputs
so they seed the next round of evolution.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from taskforge.schemas import InputError, Task
from taskforge.schemas.workflow import INPUTS, WorkflowPackage

SEED_FILE = "seed.json"
WORKFLOW_FILE = "reference.py"
GENERATOR_FILE = "generate.py"
MAX_INPUT_BYTES = 8 * 1024 * 1024
"""Most bytes of input files a seed may hold (shipped or generated): a task carries them inline."""


@dataclass(frozen=True)
class WorkflowSeed:
    """A package plus its hidden reference workflow (the source of `reference.py`), and, for a seed whose
    inputs are generated, its generator's source and parameters (until the inputs are generated)."""

    package: WorkflowPackage
    workflow: str
    generator: str | None = None
    generator_params: dict[str, Any] | None = None

    @property
    def pending(self) -> bool:
        """Whether the inputs are still to be generated."""
        return self.generator is not None and not self.package.inputs


def _read_inputs(folder: Path, generated: bool) -> dict[str, str]:
    inputs_dir = folder / INPUTS
    if generated and not inputs_dir.is_dir():
        return {}
    if not inputs_dir.is_dir():
        raise InputError(str(folder.name), f"no {INPUTS}/ folder (and no {GENERATOR_FILE} to write it)")
    inputs = {}
    for path in sorted(p for p in inputs_dir.rglob("*") if p.is_file()):
        name = f"{INPUTS}/{path.relative_to(inputs_dir).as_posix()}"
        try:
            inputs[name] = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            raise InputError(f"{folder.name}/{name}", "input files must be UTF-8 text") from None
    check_size(inputs, folder.name)
    return inputs


def check_size(inputs: dict[str, str], source: str) -> None:
    """Raise InputError when the input files are larger than a task may carry."""
    if sum(len(t.encode()) for t in inputs.values()) > MAX_INPUT_BYTES:
        raise InputError(source, f"inputs exceed {MAX_INPUT_BYTES} bytes")


def check_package(package: WorkflowPackage, source: str) -> None:
    """Raise InputError unless the package's declared inputs are exactly its files and its instructions render."""
    declared, present = set(package.input_paths()), set(package.inputs)
    if declared != present:
        problems = [f"missing {p}" for p in sorted(declared - present)] + [f"undeclared {p}" for p in sorted(present - declared)]
        raise InputError(source, "inputs do not match the declared tables and files: " + ", ".join(problems))
    try:
        package.rendered_instructions()
    except (KeyError, IndexError, ValueError) as exc:
        raise InputError(source, f"instructions name a parameter that is not set: {exc}") from None
    paths = [d.path for d in package.deliverables + package.optional_deliverables]
    if len(paths) != len(set(paths)):
        raise InputError(source, "deliverable paths repeat")


def load_seed(folder: Path) -> WorkflowSeed:
    """Read one seed folder; InputError names the folder and the problem."""
    meta_path, workflow_path = folder / SEED_FILE, folder / WORKFLOW_FILE
    if not meta_path.is_file() or not workflow_path.is_file():
        raise InputError(folder.name, f"a seed needs {SEED_FILE} and {WORKFLOW_FILE}")
    try:
        meta: dict[str, Any] = json.loads(meta_path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise InputError(f"{folder.name}/{SEED_FILE}", f"not valid JSON: {exc}") from None
    meta.setdefault("root_seed_id", meta.get("seed_id"))
    generator_path = folder / GENERATOR_FILE
    generator = generator_path.read_text(encoding="utf-8") if generator_path.is_file() else None
    generator_params = meta.pop("generator", None)
    if generator_params is not None and (generator is None or not isinstance(generator_params, dict)):
        raise InputError(f"{folder.name}/{SEED_FILE}", f"'generator' needs an object of parameters and a {GENERATOR_FILE}")
    try:
        package = WorkflowPackage.model_validate({**meta, "inputs": _read_inputs(folder, generator is not None)})
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(map(str, first["loc"]))
        raise InputError(f"{folder.name}/{SEED_FILE}", f"{where}: {first['msg']}") from None
    seed = WorkflowSeed(package=package, workflow=workflow_path.read_text(encoding="utf-8"), generator=generator,
                        generator_params=(generator_params or {}) if generator else None)
    if not seed.pending:
        check_package(package, folder.name)
    return seed


def seed_folders(root: Path) -> list[Path]:
    """The seed folders under `root` (folders holding a seed.json), sorted by name."""
    if not root.is_dir():
        raise InputError(str(root.name), "no such seed folder")
    folders = sorted(p.parent for p in root.glob(f"*/{SEED_FILE}"))
    if not folders:
        raise InputError(root.name, f"no seeds (folders with {SEED_FILE})")
    return folders


def load_seeds(root: Path) -> list[WorkflowSeed]:
    """Every seed under `root`; the first bad one raises InputError."""
    return [load_seed(folder) for folder in seed_folders(root)]


def seed_json(package: WorkflowPackage) -> str:
    """`seed.json` text for a package: one top-level field per line, lists one item per line."""
    document = package.model_dump(mode="json", exclude={"inputs"}, exclude_defaults=True)
    document.update(seed_id=package.seed_id, root_seed_id=package.root_seed_id)
    lines = []
    for key, value in document.items():
        if isinstance(value, list) and value:
            items = ",\n    ".join(json.dumps(item, ensure_ascii=False) for item in value)
            lines.append(f'  "{key}": [\n    {items}\n  ]')
        else:
            lines.append(f'  "{key}": {json.dumps(value, ensure_ascii=False)}')
    return "{\n" + ",\n".join(lines) + "\n}\n"


def write_seed(seed: WorkflowSeed, root: Path) -> Path:
    """Write a seed folder under `root` (named by its seed id) and return it."""
    folder = root / seed.package.seed_id
    (folder / INPUTS).mkdir(parents=True, exist_ok=True)
    for path, text in seed.package.inputs.items():
        target = folder / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    (folder / SEED_FILE).write_text(seed_json(seed.package), encoding="utf-8")
    (folder / WORKFLOW_FILE).write_text(seed.workflow, encoding="utf-8")
    return folder


def seed_from_task(task: Task) -> WorkflowSeed:
    """The seed of a built workflow task (an accepted descendant seeds the next round)."""
    return WorkflowSeed(package=WorkflowPackage.model_validate(task.payload),
                        workflow=task.reference["workflow"][WORKFLOW_FILE])
