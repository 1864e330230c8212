"""The `taskforge` command line: cycle, diagnose, build, validate, release, export, sft, decontam, report, serve."""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator, Sequence

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from taskforge.flows.runners import TASK_RUNNERS
from taskforge.flows.startup import TemporaryAPI, prefect_api, prepare_prefect, quiet_infrastructure_tracebacks
from taskforge.schemas import FAMILIES
from taskforge.schemas.locations import join, normalize
from taskforge.store.layout import DEFAULT_DATA_DIR, SAMPLES_DIR, DataDir

err = Console(stderr=True)
out = Console()
FLOW_MODULES = {"cycle": "cycle", "diagnose": "diagnose", "build": "build_family", "release": "release_export",
                "sft": "sft_export"}
FLOW_COMMANDS = tuple(FLOW_MODULES)


def _import_flow(command: str) -> None:
    """Import a command's flow module (while the API server boots)."""
    importlib.import_module(f"taskforge.flows.{FLOW_MODULES[command]}")


def incomplete_reason(result: dict[str, Any]) -> str | None:
    """One line saying why a run ended incomplete (batches whose infrastructure failed every attempt), or None."""
    failures = result.get("infrastructure_failures") or []
    if not failures:
        return None
    first = (failures[0]["reason"] or "").strip().splitlines()[0:1] or ["no reason recorded"]
    run = " ".join(str(part) for part in (result.get("kind", "run"), result.get("cycle_id")) if part)
    return (f"{run} ended incomplete: {len(failures)} batch(es) failed on infrastructure on every attempt "
            f"(first: {first[0]}); run the same command again to resume")


def _parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--data-dir", default=str(DEFAULT_DATA_DIR),
                        help="where shards and work files live: a local path or an fsspec URL every worker reaches, "
                             f"e.g. s3://bucket/prefix (default: {DEFAULT_DATA_DIR})")
    common.add_argument("--catalog", type=Path,
                        help="the local DuckDB catalog file (default: <data-dir>/catalog.duckdb; required when "
                             "--data-dir is a URL)")
    common.add_argument("--json", action="store_true", help="print one JSON object summarising the run")
    runner = argparse.ArgumentParser(add_help=False)
    runner.add_argument("--task-runner", choices=TASK_RUNNERS, default="thread", help="Prefect task runner")
    runner.add_argument("--runner-address", help="address of an existing Dask scheduler or Ray cluster")
    runner.add_argument("--seed", type=int, default=0, help="seed of every generator in the run")
    runner.add_argument("--target-tokens", type=int, default=None,
                        help="long-context target length in tokens (default: a mix of 16K, 32K, 64K and 128K)")

    verdicts = argparse.ArgumentParser(add_help=False)
    verdicts.add_argument("--verdicts", nargs="+", default=[], metavar="FILE",
                          help="verdicts for runs whose traces carry none: a SWE-bench run report (resolved_ids), "
                               "per-instance report.json files or their folder, or JSONL/CSV of id → resolved/score")

    parser = argparse.ArgumentParser(prog="taskforge", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    cycle = commands.add_parser("cycle", parents=[common, runner, verdicts], help="diagnose traces, then build, validate and land tasks")
    cycle.add_argument("--traces", nargs="+", default=[str(SAMPLES_DIR / "traces")], help="trace files or folders")
    cycle.add_argument("--budget", type=int, default=12, help="tasks to build in this cycle")
    cycle.add_argument("--family", action="append", choices=FAMILIES, help="restrict the cycle to these families")
    cycle.add_argument("--source", action="append", default=[], metavar="FAMILY=PATH",
                       help="the resource a family builds from (default: its shipped sample)")
    cycle.add_argument("--cycle-id", help="resume or name a cycle (default: derived from traces and parameters)")
    diagnose = commands.add_parser("diagnose", parents=[common, verdicts],
                                   help="diagnose trace files and print the gap table")
    diagnose.add_argument("paths", nargs="+", help="trace files or folders (formats are detected by content)")
    build = commands.add_parser("build", parents=[common, runner], help="build, validate and land one family")
    build.add_argument("family", choices=FAMILIES)
    build.add_argument("--count", type=int, default=4, help="how many tasks to build")
    build.add_argument("--capability", default="general", help="the capability the tasks train")
    build.add_argument("--source", help="the resource to build from (a repository, dataset, folder …)")
    build.add_argument("--target", metavar="COLUMN",
                       help="mle: the label column of the source's datasets (overrides their settings files)")
    build.add_argument("--since", metavar="DATE",
                       help="swe: mine changes committed on or after DATE (the trained model's knowledge cutoff; "
                            "default 2025-01-01; '' for the whole history)")
    build.add_argument("--export-jsonl", type=Path, metavar="FILE",
                       help="swe: also write the accepted tasks as SWE-bench instances (JSON lines) to FILE, their "
                            "instance images built (see `export swebench`)")
    validate = commands.add_parser("validate", parents=[common], help="run every check on task Parquet files")
    validate.add_argument("paths", nargs="+", type=Path, help="Parquet files of tasks (candidates or shards)")
    release = commands.add_parser("release", parents=[common], help="export a Hugging Face dataset release")
    release.add_argument("--version", required=True, help="release version, e.g. 2026.11.0")
    release.add_argument("--out", help="output folder or fsspec URL (default: <data-dir>/releases/<version>)")
    release.add_argument("--test-fraction", type=float, default=0.0, metavar="F",
                         help="put about F of each family's tasks in a test split, whole source groups at a time "
                              "(one repository, dataset, paper collection …; see splits.json); default 0: train only")
    export = commands.add_parser("export", parents=[common],
                                 help="swebench: the accepted SWE tasks as SWE-bench instances (JSON lines) whose "
                                      "instance images are built here, for the SWE-bench harness and mini-swe-agent")
    export.add_argument("target", choices=("swebench",))
    export.add_argument("--out", type=Path, required=True, help="the instances file to write (JSON lines)")
    export.add_argument("--no-images", action="store_true", help="write the instances without building their images")
    sft = commands.add_parser("sft", parents=[common], help="select SFT demonstrations from traces and write them")
    sft.add_argument("traces", nargs="*", help="trace files or folders (formats are detected by content)")
    sft.add_argument("--out", type=Path, required=True, help="output folder (rows under <out>/data/)")
    sft.add_argument("--builder-runs", action="store_true",
                     help="also turn the builders' solution paths of accepted tasks into demonstrations")
    serve = commands.add_parser("serve", help="run a Prefect server, deploy prefect.yaml and start a worker")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=4200)
    serve.add_argument("--database-url", help="PostgreSQL URL (postgresql+asyncpg://…); default: SQLite in $PREFECT_HOME")
    report = commands.add_parser("report", parents=[common], help="show diagnoses, gaps and the funnel of a cycle")
    report.add_argument("--cycle", help="cycle id (default: the latest)")
    report.add_argument("--html", nargs="?", const="", type=str, metavar="DIR",
                        help="also write an HTML report with PNG charts (default DIR: <data-dir>/reports/<cycle>)")
    decontam = commands.add_parser("decontam", parents=[common],
                                   help="register evaluation sets that no task may overlap (ids, canaries, 13-grams, "
                                        "paraphrases); the shipped defaults are always registered")
    decontam.add_argument("action", choices=("add", "list"))
    decontam.add_argument("file", nargs="?", type=Path,
                          help="records (JSONL/JSON/Parquet), a list of ids, one a line, or an earlier release "
                               "folder whose tasks new ones must not nearly duplicate (for add)")
    decontam.add_argument("--name", help="the set's name (default: the file's stem)")
    decontam.add_argument("--version", default="", help="the set's version, shown wherever the set is named")
    decontam.add_argument("--licence", default="", help="the licence the set's content is under")
    return parser


@contextmanager
def _progress(enabled: bool) -> Iterator[None]:
    """Progress bars on stderr for flows run in this process."""
    from taskforge.flows.progress import reporting_to

    if not enabled:
        yield
        return
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=err, transient=False) as bars:
        ids: dict[str, Any] = {}

        def update(stage: str, done: int, total: int) -> None:
            if stage not in ids:
                ids[stage] = bars.add_task(stage, total=total)
            bars.update(ids[stage], completed=done, total=total)

        with reporting_to(update):
            yield


def _with_paths(summary: dict[str, Any], data: DataDir) -> dict[str, Any]:
    """The summary with the data dir, catalog and (for runs that land tasks) absolute shard paths."""
    located = {**summary, "data_dir": str(data.root), "catalog": str(data.catalog)}
    if "shards" in summary:
        located["shard_paths"] = [str(join(data.shards, p)) for p in summary["shards"]]
    return located


def _local(paths: list[str]) -> list[str] | None:
    """Local files given on the command line as absolute paths (None when none were given)."""
    return [str(Path(p).resolve()) for p in paths] or None


def _sources(pairs: list[str]) -> dict[str, str]:
    """`FAMILY=PATH` pairs as a mapping; local paths are made absolute, URLs are kept."""
    sources = {}
    for pair in pairs:
        family, sep, source = pair.partition("=")
        if not sep or family not in FAMILIES:
            raise SystemExit(f"taskforge: error: --source expects FAMILY=PATH with FAMILY in {', '.join(FAMILIES)}")
        sources[family] = str(Path(source).resolve()) if Path(source).exists() else source
    return sources


def _run(args: argparse.Namespace, api: TemporaryAPI | None) -> dict[str, Any]:
    data = DataDir.at(args.data_dir, args.catalog)
    if args.command in FLOW_COMMANDS:
        _import_flow(args.command)
        quiet_infrastructure_tracebacks()
        if api is not None:
            api.wait()
    catalog_path = str(data.catalog) if data.remote or data.catalog_file else None
    if args.command == "cycle":
        from taskforge.flows.cycle import cycle

        return _with_paths(cycle(traces=[str(Path(p).resolve()) for p in args.traces], data_dir=str(data.root),
                                 budget=args.budget, families=args.family, sources=_sources(args.source),
                                 seed=args.seed,
                                 target_tokens=args.target_tokens, cycle_id=args.cycle_id,
                                 task_runner=args.task_runner, runner_address=args.runner_address,
                                 catalog_path=catalog_path, verdicts=_local(args.verdicts)), data)
    if args.command == "diagnose":
        from taskforge.flows.diagnose import diagnose_traces

        return _with_paths(diagnose_traces(traces=[str(Path(p).resolve()) for p in args.paths],
                                           data_dir=str(data.root), catalog_path=catalog_path,
                                           verdicts=_local(args.verdicts)), data)
    if args.command == "build":
        from taskforge.flows.build_family import build_family

        options: dict[str, Any] = {"target_tokens": args.target_tokens}
        if args.source:
            options["source"] = str(Path(args.source).resolve()) if Path(args.source).exists() else args.source
        if args.target:
            options["target"] = args.target
        if args.since is not None:
            options["since"] = args.since
        built = _with_paths(build_family(family=args.family, count=args.count, capability=args.capability,
                                         data_dir=str(data.root), seed=args.seed, options=options,
                                         task_runner=args.task_runner, runner_address=args.runner_address,
                                         catalog_path=catalog_path), data)
        if args.export_jsonl:
            from taskforge.flows.export import export_swebench

            exported = export_swebench(built["shard_paths"], args.export_jsonl.resolve())
            built.update(swebench_jsonl=exported["swebench_jsonl"], swebench_instances=exported["swebench_instances"])
        return built
    if args.command == "export":
        from taskforge.flows.export import catalog_swe_shards, export_swebench

        return export_swebench(catalog_swe_shards(data), args.out.resolve(), images=not args.no_images)
    if args.command == "validate":
        from taskforge.flows.validate import validate_files

        return validate_files(args.paths, data.root)
    if args.command == "decontam":
        from taskforge.flows.decontam import add_evalset, list_evalsets

        if args.action == "list":
            return list_evalsets(data)
        if args.file is None:
            raise SystemExit("taskforge: error: decontam add needs a FILE")
        return add_evalset(args.file, data, args.name, args.version, args.licence)
    if args.command == "sft":
        from taskforge.flows.sft_export import sft_export

        if not args.traces and not args.builder_runs:
            raise SystemExit("taskforge: error: sft needs TRACES or --builder-runs")
        summary = sft_export(traces=[str(Path(p).resolve()) for p in args.traces], out_dir=str(args.out.resolve()),
                             data_dir=str(data.root), builder_runs=args.builder_runs, catalog_path=catalog_path)
        return {**summary, "out_dir": str(args.out.resolve())}
    if args.command == "release":
        from taskforge.flows.release_export import release_export

        out_dir = str(normalize(args.out) if args.out else join(data.releases, args.version))
        result = release_export(version=args.version, out_dir=out_dir, data_dir=str(data.root),
                                catalog_path=catalog_path, test_fraction=args.test_fraction)
        return {**result, "out_dir": out_dir}
    from taskforge.store.catalog import Catalog
    from taskforge.store.report import cycle_report

    if not data.catalog.exists():
        from taskforge.schemas import TaskforgeError

        raise TaskforgeError(f"no catalog at {data.catalog}: run `taskforge cycle` first")
    with Catalog(data.catalog, read_only=True) as catalog:
        report = cycle_report(catalog, args.cycle)
        if args.html is not None:
            from taskforge.store.report_html import write_html_report

            out_dir = (Path(args.html).resolve() if args.html
                       else data.local_root / "reports" / report["cycle"]["cycle_id"])
            report["html"] = str(write_html_report(catalog, data.shards, out_dir, report["cycle"]["cycle_id"]))
        return {"kind": "report", **report}


def _print(args: argparse.Namespace, result: dict[str, Any]) -> None:
    from taskforge.flows.render import print_report, print_run, table

    if args.command == "report":
        print_report(out, result)
        if "html" in result:
            out.print(f"html report: {result['html']}")
    elif args.command == "validate":
        out.print(table("validation", result["tasks"], ["source", "task_id", "family", "status", "reasons"]))
    elif args.command == "decontam":
        out.print(table("evaluation sets", result["sets"],
                        ["name", "version", "licence", "items", "ids", "texts", "canaries"]))
        if result["releases"]:
            out.print(table("earlier releases", result["releases"], ["name", "tasks"]))
    elif args.command == "sft":
        out.print(f"sft: {result['selected']} of {result['episodes']} episodes selected "
                  f"({', '.join(f'{k}={v}' for k, v in result['by_reason'].items())}), "
                  f"{result['regraded']} regraded, written to {result['out_dir']}")
    elif args.command == "export":
        out.print(f"swebench: {result['swebench_instances']} instance(s) written to {result['swebench_jsonl']}; "
                  f"images: {', '.join(f'{tag} ({how})' for tag, how in result['images'].items()) or 'none built'}")
    elif args.command == "release":
        out.print(f"release {result['version']} written to {result['out_dir']}: "
                  + ", ".join(f"{f}={n} (train {result['splits'][f]['train']}, test {result['splits'][f]['test']})"
                              if f in result["splits"] else f"{f}={n}" for f, n in result["rows"].items()))
    else:
        print_run(out, result)
        if "shard_paths" in result:
            out.print(f"shards: {len(result['shard_paths'])} file(s) under {join(result['data_dir'], 'shards')}")
            out.print(f"catalog: {result['catalog']}")


def _error(message: str) -> int:
    """Print the CLI's one-line error and return its exit code."""
    err.print(f"taskforge: error: {message}", markup=False, highlight=False, soft_wrap=True)
    return 1


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point: run one subcommand; on error, or when a run ends incomplete, print a one-line cause and exit
    non-zero."""
    args = _parser().parse_args(argv)
    prepare_prefect(json_output=getattr(args, "json", False))
    if args.command == "serve":
        from taskforge.flows.serve import serve

        return serve(args.host, args.port, args.database_url)
    try:
        with prefect_api(needed=args.command in FLOW_COMMANDS) as api, \
                _progress(enabled=not args.json and err.is_terminal):
            result = _run(args, api)
    except KeyboardInterrupt:
        err.print("taskforge: interrupted")
        return 130
    except Exception as exc:  # the CLI's contract: one line, non-zero exit
        return _error(str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__)
    if args.json:
        sys.stdout.write(json.dumps(result, default=str, sort_keys=True) + "\n")
    else:
        _print(args, result)
    incomplete = incomplete_reason(result)
    return _error(incomplete) if incomplete else 0


if __name__ == "__main__":
    raise SystemExit(main())
