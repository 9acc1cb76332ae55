"""One benchmark process: one engine, one session, jobs run in turn. Writes a JSON result.

run.py starts a fresh process per measurement series (one job), so the first run in it is
a cold run; a smoke run shares one process among all jobs of an engine. Every run's result
is checked against the table's manifest: a mismatch fails the job instead of reporting a
time for the wrong work. W8 (`commits`) and W9 (`contend`) always run in processes of their
own; a `contend` process is one of W9's writers and waits at a start barrier run.py opens.

    .venv/bin/python bench/worker.py --engine delta-rs --runs 3 --out /tmp/r.json \
        --job load bench/out/tables/w1-20000/table --job update bench/out/tables/w1-20000/table
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import json
import os
import resource
import shutil
import statistics
import tempfile
import time
import traceback
from collections.abc import Callable
from contextlib import contextmanager
from pathlib import Path

import appends
import contention
import dml_table
import dv_table
import gen_logs
import golden_tables
import optimize_files
import stream_table
import overwrite_large
import s3_jobs
import scans
import vacuum_table
import write_data
from engines.base import Commit, Counts, Engine, GaveUp, Unavailable

ENGINES = {
    "delta-rs": ("engines.delta_rs", "DeltaRs"),
    "delta-spark": ("engines.delta_spark", "DeltaSpark"),
    "txlog": ("engines.txlog_py", "Txlog"),
    "txlog-baseline": ("engines.txlog_py", "TxlogBaseline"),
    "txlog-cds": ("engines.txlog_py", "TxlogCds"),
    "txlog-sql": ("engines.txlog_py", "TxlogSql"),
    "spark-floor": ("engines.spark_floor", "SparkFloor"),
}
SCRATCH = gen_logs.OUT.parent / "scratch"


def make_engine(name: str) -> Engine:
    module, cls = ENGINES[name]
    return getattr(importlib.import_module(module), cls)()


class Mismatch(Exception):
    pass


def check(got: Counts, expected: dict) -> None:
    want = Counts(expected["version"], expected["num_files"], expected["size_in_bytes"])
    if got != want:
        raise Mismatch(f"expected {want}, got {got}")


def _copy_or_link(source: str, target: str) -> None:
    """Copies a file, keeping its modification time, except a checkpoint's parquet file, which
    is linked: no engine writes an existing checkpoint file in place (the protocol makes them
    immutable; a new checkpoint is a new file), and W17's is 27 GB."""
    name = os.path.basename(source)
    if ".checkpoint" in name and name.endswith(".parquet"):
        try:
            os.link(source, target)
            return
        except OSError:  # another file system: copied
            pass
    shutil.copy2(source, target)


@contextmanager
def scratch_copy(table: Path):
    """A private copy of the table for operations that write to it (checkpoint files linked,
    the rest copied: see _copy_or_link)."""
    SCRATCH.mkdir(parents=True, exist_ok=True)
    root = Path(tempfile.mkdtemp(dir=SCRATCH))
    try:
        copy = root / "table"
        shutil.copytree(table, copy, copy_function=_copy_or_link)  # keeps modification times
        yield copy
    finally:
        shutil.rmtree(root, ignore_errors=True)


def timed(engine: Engine, op: Callable[[], object]) -> tuple[object, dict]:
    engine.reset_heap_peak()
    start = time.perf_counter()
    out = op()
    seconds = time.perf_counter() - start
    return out, {"seconds": seconds, "jvm_heap_mb": engine.memory()["jvm_heap_mb"]}


def run_load(engine: Engine, table: Path, manifest: dict) -> dict:
    counts, run = timed(engine, lambda: engine.load(str(table)))
    check(counts, manifest)
    return run


def run_load_s3(engine: Engine, table: Path, manifest: dict) -> dict:
    """W16, W18: the load of the table through run.py's S3 server (a delay on every request),
    the engine pointed at it before its session started (s3_jobs.configure)."""
    counts, run = timed(engine, lambda: engine.load(s3_jobs.url(engine, table)))
    check(counts, manifest)
    return run


def run_load_files(engine: Engine, table: Path, manifest: dict) -> dict:
    """The load through the file list: every live add action listed, then counted."""
    counts, run = timed(engine, lambda: engine.load_files(str(table)))
    check(counts, manifest)
    return run


def check_checkpoint(table: Path, manifest: dict) -> None:
    """A checkpoint file for the manifest's version exists (classic, multi-part or v2) and
    _last_checkpoint points at that version."""
    version = manifest["version"]
    log_dir = table / "_delta_log"
    if not any(log_dir.glob(f"{version:020d}.checkpoint*")):
        raise Mismatch(f"no checkpoint written at version {version}")
    last = json.loads((log_dir / "_last_checkpoint").read_text())
    if last["version"] != version:
        raise Mismatch(f"_last_checkpoint is at version {last['version']}, not {version}")


def run_checkpoint(engine: Engine, table: Path, manifest: dict) -> dict:
    """W3: the checkpoint of the latest version of a fresh copy (copied before timing); then,
    untimed, the checkpoint file is looked for and the engine loads the copy (the floor, which
    writes no Delta checkpoint, counts what it wrote instead)."""
    with scratch_copy(table) as copy:
        _, run = timed(engine, lambda: engine.checkpoint(str(copy)))
        if engine.name == "spark-floor":
            check(engine.written(str(copy)), manifest)
        else:
            check_checkpoint(copy, manifest)
            check(engine.load(str(copy)), manifest)
    return run


def run_checkpoint_in_place(engine: Engine, table: Path, manifest: dict) -> dict:
    """Writes a checkpoint into the table itself: run.py prepares the W7 table (its own copy
    of W2) with it, untimed as far as the benchmark is concerned."""
    _, run = timed(engine, lambda: engine.checkpoint(str(table)))
    check_checkpoint(table, manifest)
    return run


def run_update(engine: Engine, table: Path, manifest: dict) -> dict:
    with scratch_copy(table) as copy:
        handle = engine.open(str(copy))
        try:
            expected = gen_logs.append_commit(table, copy, manifest)
            counts, run = timed(engine, lambda: engine.update(handle))
        finally:
            engine.release(handle)
    check(counts, expected)
    return run


def run_time_travel(engine: Engine, table: Path, manifest: dict) -> dict:
    target = manifest["time_travel"]
    counts, run = timed(engine, lambda: engine.time_travel(str(table), target["timestamp"]))
    check(counts, target)
    return run


def as_committed(add: dict, commit: Commit) -> dict:
    """A commit of one add action as appends.check takes it."""
    return {"path": add["path"], **dataclasses.asdict(commit)}


def run_commits(engine: Engine, table: Path, manifest: dict) -> dict:
    """W8: on a fresh copy, the latest snapshot opened once (untimed), then W8_COMMITS commits
    of one new file each, timed one by one (each from the engine's up-to-date cached state; the
    action is built before the clock starts). Then, untimed, the log holds each commit at its
    version and the engine loads the copy with the expected figures. The run's `seconds` is
    the median commit."""
    adds = [appends.add(f"w8-{i}") for i in range(appends.W8_COMMITS)]
    with scratch_copy(table) as copy:
        handle = engine.open(str(copy))
        try:
            commits, runs = [], []
            for add in adds:
                action = engine.prepare_add(handle, add)
                commit, run = timed(engine, lambda a=action: engine.commit(handle, a))
                commits.append(as_committed(add, commit))
                runs.append(run)
        finally:
            engine.release(handle)
        appends.check(copy, manifest["version"], commits)
        check(engine.load(str(copy)), appends.after(manifest, len(adds)))
    seconds = [run["seconds"] for run in runs]
    heaps = [run["jvm_heap_mb"] for run in runs if run["jvm_heap_mb"] is not None]
    return {
        "seconds": statistics.median(seconds),
        "commits_s": seconds,
        "jvm_heap_mb": max(heaps) if heaps else None,
    }


def commit_new_file(engine: Engine, handle: object, name: str) -> dict:
    """Commits the add action of a new file `name` to an opened table."""
    add = appends.add(name)
    return as_committed(add, engine.commit(handle, engine.prepare_add(handle, add)))


def run_contend(engine: Engine, table: Path, manifest: dict) -> dict:
    """W9, one of the writers run.py starts on one table: opens it, commits one warm-up file
    (the first commit of a JVM is slow), waits at the start barrier (see contention.py), then
    commits one new file per commit until the time is up (the commit under way then is
    finished). The run's `seconds` runs from the common start to the end of the last commit;
    `warmup` and `commits` are what appends.check takes; `gave_up` counts the commits the
    engine gave up on (nothing committed)."""
    handle = engine.open(str(table))
    try:
        warmup = [commit_new_file(engine, handle, f"w9-{os.getpid()}-warmup")]
        start, end = contention.ready_then_wait(table)
        commits: list[dict] = []
        gave_up = 0
        while time.time() < end:
            name = f"w9-{os.getpid()}-{len(commits) + gave_up}"
            try:
                commits.append(commit_new_file(engine, handle, name))
            except GaveUp:
                gave_up += 1
        seconds = time.time() - start
    finally:
        engine.release(handle)
    return {
        "seconds": seconds,
        "warmup": warmup,
        "commits": commits,
        "gave_up": gave_up,
        "jvm_heap_mb": engine.memory()["jvm_heap_mb"],
    }


def run_vacuum(engine: Engine, table: Path, manifest: dict, dry_run: bool) -> dict:
    """W14: VACUUM (dry run or real) with the manifest's retention on a fresh copy of the table
    (made before timing). Then, untimed: the paths the engine reports are exactly the expected
    ones (its count where it gives no paths); a dry run deleted nothing, a real one left exactly
    the live files; the cached table still has all its files."""
    expected = manifest["vacuum"]
    with vacuum_table.fresh_copy(table) as copy:
        hours = expected["retention_hours"]
        done, run = timed(engine, lambda: engine.vacuum(str(copy), hours, dry_run))
        try:
            found = [vacuum_table.relative(copy, p) for p in done.paths()] if done.paths else None
        finally:
            done.release()
        if found is not None:
            vacuum_table.check_found(copy, found, expected)
            run["found_digest"] = vacuum_table.digest(found)
        if done.num_files is not None and done.num_files != expected["num_files"]:
            raise Mismatch(f"vacuum reported {done.num_files} files, not {expected['num_files']}")
        run["num_files"] = done.num_files
        left = list(vacuum_table.data_files(copy))
        if dry_run and len(left) != expected["remaining"] + expected["num_files"]:
            raise Mismatch(f"a dry run left {len(left)} data files")
        if not dry_run:
            vacuum_table.check_remaining(copy, expected)
            run["remaining_digest"] = vacuum_table.digest(left)
    on_disk = expected["remaining"] + expected["num_files"]
    if sum(1 for _ in vacuum_table.data_files(table)) != on_disk:
        raise Mismatch(f"the cached table {table} lost files: regenerate it")
    return run


def run_plan(engine: Engine, table: Path, manifest: dict, which: str) -> dict:
    """W12: the files a filtered query of the latest version would read (scans.py's `which`
    scan), planned from the table's path; the count (and size, where the engine gives it) must
    be the scan's expected one."""
    scan = scans.expected(table, manifest)[which]
    selected, run = timed(engine, lambda: engine.plan(str(table), scan))
    if selected.num_files != scan["num_files"] or selected.size_in_bytes not in (
        None, scan["size_in_bytes"]
    ):
        raise Mismatch(f"{which} scan selected {selected}, expected {scan['num_files']} files of "
                       f"{scan['size_in_bytes']} bytes")  # fmt: skip
    run["num_files"] = selected.num_files
    return run


def run_read_rows(engine: Engine, table: Path, manifest: dict) -> dict:
    """W13: every row of the latest version read (deletion vectors applied) and aggregated over
    every column; the answer must be the manifest's."""
    got, run = timed(engine, lambda: engine.read_rows(str(table), dv_table.AGGREGATE))
    if dv_table.answer(got) != manifest["answer"]:
        raise Mismatch(f"read {dv_table.answer(got)}, expected {manifest['answer']}")
    return run


TASKS = {
    "load": run_load,
    "load_files": run_load_files,
    "load_s3": run_load_s3,
    "golden": lambda e, t, m: golden_tables.run(e, t, m, timed, files=False),
    "golden_files": lambda e, t, m: golden_tables.run(e, t, m, timed, files=True),
    "checkpoint": run_checkpoint,
    "checkpoint_in_place": run_checkpoint_in_place,
    "update": run_update,
    "time_travel": run_time_travel,
    "commits": run_commits,
    "contend": run_contend,
    "vacuum_dry": lambda e, t, m: run_vacuum(e, t, m, dry_run=True),
    "vacuum": lambda e, t, m: run_vacuum(e, t, m, dry_run=False),
    "plan_partition": lambda e, t, m: run_plan(e, t, m, "partition"),
    "plan_data": lambda e, t, m: run_plan(e, t, m, "data"),
    "read_rows": run_read_rows,
    "write_append": lambda e, t, m: write_data.run(e, t, m, timed, "append"),
    "write_overwrite": lambda e, t, m: write_data.run(e, t, m, timed, "overwrite"),
    "optimize": lambda e, t, m: optimize_files.run(e, t, m, timed),
    "overwrite_large": lambda e, t, m: overwrite_large.run(e, t, m, timed),
    "delete_rows": lambda e, t, m: dml_table.run(e, t, m, timed, "delete"),
    "update_rows": lambda e, t, m: dml_table.run(e, t, m, timed, "update"),
    "merge_rows": lambda e, t, m: dml_table.run(e, t, m, timed, "merge"),
    "stream_drain": lambda e, t, m: stream_table.run(e, t, m, timed),
}


def describe(e: BaseException) -> str:
    lines = str(e).strip().splitlines()
    return f"{type(e).__name__}: {lines[0] if lines else ''}"[:500]


def run_job(engine: Engine, task: str, table: Path, runs: int) -> dict:
    job: dict = {"task": task, "table": str(table), "status": "ok", "runs": []}
    try:
        manifest = gen_logs.manifest(table)
        for _ in range(runs):
            job["runs"].append(TASKS[task](engine, table, manifest))
    except Unavailable as e:
        job.update(status="unavailable", reason=str(e))
    except Exception as e:
        traceback.print_exc()
        job.update(status="failed", error=describe(e))
    return job


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--engine", choices=sorted(ENGINES), required=True)
    parser.add_argument(
        "--job", nargs=2, action="append", required=True, metavar=("TASK", "TABLE"),
        help=f"one of {', '.join(TASKS)} and a generated table's path; repeatable",
    )  # fmt: skip
    parser.add_argument("--runs", type=int, default=1, help="runs of each job")
    parser.add_argument("--driver-memory", default="4g")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--max-memory-gb", type=int, help="address-space limit (delta-rs only)")
    args = parser.parse_args()
    if args.max_memory_gb and args.engine == "delta-rs":  # a JVM reserves far more than it uses
        limit = args.max_memory_gb * 2**30
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    for task, _ in args.job:
        if task not in TASKS:
            parser.error(f"unknown task {task}")

    result: dict = {"engine": args.engine, "status": "ok", "jobs": []}
    try:
        engine = make_engine(args.engine)
        if any(task in s3_jobs.TASKS for task, _ in args.job):
            s3_jobs.configure(engine)
        start = time.perf_counter()
        engine.start(args.driver_memory)
        result["startup_s"] = time.perf_counter() - start
        for task, table in args.job:
            result["jobs"].append(run_job(engine, task, Path(table), args.runs))
        result["memory"] = engine.memory()
    except Unavailable as e:
        result.update(status="unavailable", reason=str(e))
    except Exception as e:
        traceback.print_exc()
        result.update(status="failed", error=describe(e))
    args.out.write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
