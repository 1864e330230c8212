"""`taskforge export swebench`: the catalog's accepted SWE tasks as SWE-bench instances, with their images built.

Not a Prefect flow: it reads shards, asks the SWE builder for each task's instance
image (built once, from the recipe and the snapshot in the SWE cache) and writes
the instances file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable

from taskforge.builders.swe.image import build_instance_image
from taskforge.schemas import Task, TaskforgeError
from taskforge.schemas.locations import join
from taskforge.store.batches import iter_batch
from taskforge.store.layout import DataDir
from taskforge.store.swebench import accepted_swe, write_instances


def catalog_swe_shards(data: DataDir) -> list[str]:
    """The SWE shards the data dir's catalog lists, as paths."""
    if not data.catalog.exists():
        raise TaskforgeError(f"no catalog at {data.catalog}: run `taskforge build swe` or a cycle first")
    with data.open_catalog() as catalog:
        return [str(join(data.shards, shard.path)) for shard in catalog.all_shards() if shard.family == "swe"]


def export_swebench(shards: Iterable[str], out: Path, images: bool = True) -> dict[str, Any]:
    """Write the SWE tasks of `shards` as SWE-bench instances to `out`, building each one's instance image first
    (unless `images` is false); returns the file, the count and each image with how it was had."""
    tasks = accepted_swe(task for shard in shards for task in iter_batch(shard, Task))
    built = {build.tag: build.source for build in map(build_instance_image, tasks)} if images else {}
    return {"kind": "export", "swebench_jsonl": str(out), "swebench_instances": write_instances(tasks, out),
            "images": built}
