"""Wiring of the landing and release screens: the near-duplicate index is filled from the catalog's signatures
of landed tasks (signing, from their shards, accepted tasks that have none yet) and from the data dir's
registered earlier releases."""

from __future__ import annotations

from taskforge.schemas import Task
from taskforge.schemas.locations import join
from taskforge.store.batches import iter_batch
from taskforge.store.catalog import Catalog
from taskforge.store.layout import DataDir
from taskforge.validators.near_duplicates import NearDuplicateIndex, registered_releases, task_signatures
from taskforge.validators.screen import Screen


def sign_unsigned(catalog: Catalog, data: DataDir) -> int:
    """Record signatures of accepted tasks that have none (landed before a crash, or before signatures were
    kept); returns how many were signed."""
    signed = 0
    for shard, task_ids in catalog.unsigned_accepted().items():
        wanted = set(task_ids)
        tasks = [task for task in iter_batch(join(data.shards, shard), Task) if task.task_id in wanted]
        found = {task.task_id: (task.family, signed) for task, signed in zip(tasks, task_signatures(tasks))}
        signed += catalog.record_signatures(found)
    return signed


def near_duplicate_index(catalog: Catalog, data: DataDir, landed: bool) -> NearDuplicateIndex:
    """An index of the registered earlier releases' tasks and, when `landed`, of every task landed so far."""
    index = NearDuplicateIndex()
    for name, task_id, signed, parent in registered_releases(data.root):
        index.add(task_id, f"release {name}", signed, parent)
    if landed:
        sign_unsigned(catalog, data)
        for task_id, signed, parent in catalog.signatures():
            index.add(task_id, "landed", signed, parent)
    return index


def landing_screen(catalog: Catalog, data: DataDir) -> Screen:
    """The screen of a landing: decontamination where a task lacks it, near-duplicates of everything landed."""
    return Screen(data.root, near_duplicate_index(catalog, data, landed=True), origin="landed")


def release_screen(catalog: Catalog, data: DataDir, version: str) -> Screen:
    """The screen of a release: decontamination against today's sets, near-duplicates of registered earlier
    releases and of the tasks this release keeps before it."""
    return Screen(data.root, near_duplicate_index(catalog, data, landed=False), origin=f"release {version}",
                  recheck=True)
