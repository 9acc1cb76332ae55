"""The command-line part of the cluster test (``test_cli_on_cluster`` in tests/test_cluster.py):
its tables, the spark-submit of ``txlog.cli.Main`` against the standalone cluster, and what
delta-rs says about the tables -- the oracle the CLI's JSON is checked against, never txlog's
own output.

Three fixture tables that differ: partitioned with column mapping and deletion vectors (a
classic checkpoint), V2 checkpoints with sidecars (plus an empty commit, so that the latest
version has no checkpoint yet and the CLI writes one) and an unpartitioned table with whole
files removed (what VACUUM finds). Data files are aged 30 days, as in tests/test_vacuum.py: the
fixtures were copied to this machine recently, so their files look new; the tables keep 7 days.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

import pyarrow as pa
from deltalake import DeltaTable

import standalone
from txlog_testing import copy_table

TABLES = {  # name -> fixture (under the fixtures root)
    "dv-column-mapping": "golden/dv-with-columnmapping",
    "v2-checkpoint": "golden/v2-checkpoint-parquet",
    "inserts-deletes": "golden/basic-with-inserts-deletes-checkpoint",
}
EMPTY_COMMIT_TABLE = "v2-checkpoint"
# The kind of checkpoint each table asks for (its delta.checkpointPolicy, v2 or the default).
CHECKPOINT_KIND = {"dv-column-mapping": "classic", "v2-checkpoint": "v2",
                   "inserts-deletes": "classic"}
AGE_S = 30 * 24 * 3600


def prepare(fixtures: Path, root: Path) -> dict[str, Path]:
    """Copies of the tables under ``root``, their data files aged, the empty commit added."""
    tables = {}
    old = time.time() - AGE_S
    for name, fixture in TABLES.items():
        table = copy_table(fixtures / fixture, root / name)
        for dirpath, dirnames, filenames in os.walk(table):
            dirnames[:] = [d for d in dirnames if d != "_delta_log"]
            for f in filenames:
                os.utime(os.path.join(dirpath, f), (old, old))
        tables[name] = table
    log = tables[EMPTY_COMMIT_TABLE] / "_delta_log"
    latest = max(int(p.name[:20]) for p in log.glob("*.json"))
    commit = {"commitInfo": {"timestamp": int(time.time() * 1000), "operation": "TEST"}}
    (log / f"{latest + 1:020d}.json").write_text(json.dumps(commit) + "\n")
    return tables


def _relative(uri_or_path: str, table: Path) -> str:
    path = unquote(urlparse(uri_or_path).path) if "://" in uri_or_path else uri_or_path
    return os.path.relpath(path, table) if os.path.isabs(path) else path


def rs_view(table: Path, version: int | None = None) -> dict[str, Any]:
    """delta-rs's state of a table: version, protocol, metadata, live files and their
    deletion vectors (the rows each keeps, which reads the deletion vector files)."""
    dt = DeltaTable(str(table), version=version)
    p, md = dt.protocol(), dt.metadata()
    adds = pa.table(dt.get_add_actions(flatten=True)).select(["path", "size_bytes"]).to_pylist()
    dvs = pa.table(dt.deletion_vectors().read_all())
    return {
        "version": dt.version(),
        "protocol": [p.min_reader_version, p.min_writer_version],
        "metadata_id": md.id,
        "partition_columns": list(md.partition_columns),
        "configuration": dict(md.configuration),
        "files": sorted([unquote(r["path"]), int(r["size_bytes"])] for r in adds),
        "deletion_vectors": sorted([_relative(r["filepath"], table), r["selection_vector"]]
                                   for r in dvs.to_pylist()),
    }


def _hidden(rel: str) -> bool:
    """Whether VACUUM leaves a path alone: a name in it starts with '.' or '_' (_delta_log,
    Hadoop's .crc files)."""
    return any(part[0] in "._" for part in Path(rel).parts)


def _listed(table: Path) -> set[str]:
    """The files under the table that are not hidden, relative to it."""
    found = set()
    for dirpath, dirnames, filenames in os.walk(table):
        dirnames[:] = [d for d in dirnames if not _hidden(d)]
        found |= {os.path.relpath(os.path.join(dirpath, f), table)
                  for f in filenames if not _hidden(f)}
    return found


def _needed_dv_files(table: Path, scratch: Path) -> set[str]:
    """The deletion vector files the latest version needs: those without which delta-rs can no
    longer read its deletion vectors (each hidden in turn on a scratch copy)."""
    shutil.copytree(table, scratch)
    needed = set()
    for rel in sorted(f for f in _listed(scratch) if Path(f).name.startswith("deletion_vector_")):
        path = scratch / rel
        path.rename(path.with_name("." + path.name))
        try:
            DeltaTable(str(scratch)).deletion_vectors().read_all()
        except Exception:  # delta-rs: the file is not found
            needed.add(rel)
        path.with_name("." + path.name).rename(path)
    shutil.rmtree(scratch)
    return needed


def expected_vacuum(table: Path, scratch: Path) -> set[str]:
    """What a VACUUM dry run with the table's retention (7 days) lists once every data file
    is older than that: delta-rs's ``vacuum(dry_run=True, full=True)`` less the deletion
    vector files the latest version still needs (delta-rs 1.6 lists those too: it would delete
    them) and hidden files. The same set must come out of the files under the table less those
    the latest version names (its data files in delta-rs's state, the deletion vector files it
    cannot do without)."""
    needed = _needed_dv_files(table, scratch)
    rs = {p for p in DeltaTable(str(table)).vacuum(dry_run=True, full=True) if not _hidden(p)}
    live = {path for path, _ in rs_view(table)["files"]}
    unnamed = _listed(table) - live - needed
    assert rs - needed == unnamed, f"delta-rs's vacuum {sorted(rs)}, unnamed {sorted(unnamed)}"
    return unnamed


def checkpoint_only_copy(table: Path, version: int, dest: Path) -> Path:
    """A copy of the table whose log holds nothing but the checkpoint of ``version`` (with
    its sidecars) and _last_checkpoint: what delta-rs reads there comes from that checkpoint."""
    shutil.copytree(table, dest, ignore=lambda d, names: ["_delta_log"] if d == str(table)
                    else [])
    log = dest / "_delta_log"
    log.mkdir()
    for p in (table / "_delta_log").iterdir():
        if p.name == "_sidecars":
            shutil.copytree(p, log / p.name)
        elif p.name == "_last_checkpoint" or p.name.startswith(f"{version:020d}.checkpoint"):
            shutil.copy2(p, log / p.name)
    return dest


# One spark-submit per command, on the three tables at once, with the dry_run each document
# must state: the commands that only read run side by side, then checkpoint (it writes).
READS = [("describe", [], False), ("validate", [], False), ("vacuum", ["--dry-run"], True)]
CHECKPOINT = ("checkpoint", [], False)
PROGRESS = re.compile(r"^\[txlog\] (.+): (.+) \(\d+\.\d s\)$", re.MULTILINE)
EXECUTOR_TASK = re.compile(r"Finished task .* \(executor \d+\)")


def submit(cluster: standalone.StandaloneCluster, jar: str, command: str, args: list[str],
           dry_run: bool, tables: list[Path], tmp: Path, conf: dict[str, str]
           ) -> tuple[list[dict[str, Any]], float]:
    """``spark-submit --class txlog.cli.Main <jar> COMMAND --table ... --json``: its JSON
    documents, one per table in order, each naming table, command and dry run, and its wall
    time, after checking that the application ran on both workers and reported its progress
    on stderr for every table."""
    argv = [command, *(a for t in tables for a in ("--table", str(t))), "--json", *args]
    out, log = tmp / f"{command}.out", tmp / f"{command}.log"
    run = standalone.submit_class(cluster.url, jar, "txlog.cli.Main", argv, tmp, out, log,
                                  conf, timeout_s=600)
    stderr = log.read_text(errors="replace")
    assert run.returncode == 0, f"{command}: exit {run.returncode}\n{standalone.tail(log, 60)}"
    app_id = re.search(r"Connected to Spark cluster with app ID (app-\S+)", stderr)
    assert app_id, f"{command} did not connect to {cluster.url}"
    app = cluster.completed_app(app_id[1])
    assert app and (app["name"], app["state"]) == (f"txlog {command}", "FINISHED"), app
    assert cluster.workers_that_ran(app_id[1]) == list(range(cluster.workers)), command
    assert EXECUTOR_TASK.search(stderr), f"{command}: no task ran in an executor"
    steps = PROGRESS.findall(stderr)
    for t in tables:
        mine = [step for path, step in steps if path == str(t)]
        assert len(mine) >= 2 and mine[-1] == "done", f"{command} {t}: progress {mine}"
    docs = [json.loads(line) for line in out.read_text().splitlines()]
    assert [(d["table"], d["command"], d["dry_run"]) for d in docs] == [
        (str(t), command, dry_run) for t in tables], docs
    return docs, run.seconds


def run_commands(cluster: standalone.StandaloneCluster, jar: str, tables: dict[str, Path],
                 tmp: Path, conf: dict[str, str], reads: list[tuple[str, list[str], bool]]
                 ) -> tuple[dict[str, dict[str, dict[str, Any]]], dict[str, float]]:
    """Every command of ``reads`` (some of READS) side by side (an application waiting for the
    cluster's cores starts its driver meanwhile), then CHECKPOINT: each command's document per
    table name, and the seconds each spark-submit took, with the total."""
    # Small tables otherwise load on the driver (their checkpoints read with parquet-mr, no task
    # to check): read every checkpoint with Spark, so each command's replay runs on the workers.
    conf = {**conf, "spark.txlog.replay.maxDriverCheckpointBytes": "0"}
    paths = list(tables.values())

    def one(command: str, args: list[str], dry_run: bool) -> tuple[list[dict[str, Any]], float]:
        return submit(cluster, jar, command, args, dry_run, paths, tmp, conf)

    started = time.perf_counter()
    with ThreadPoolExecutor(len(reads)) as pool:
        runs = list(pool.map(lambda c: (c[0], one(*c)), reads))
    runs.append((CHECKPOINT[0], one(*CHECKPOINT)))
    docs = {command: dict(zip(tables, out)) for command, (out, _) in runs}
    seconds = {command: secs for command, (_, secs) in runs}
    seconds["total"] = round(time.perf_counter() - started, 1)
    return docs, seconds
