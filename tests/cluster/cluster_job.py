"""The job of the cluster test (tests/test_cluster.py), run with spark-submit as a user would.

For each table of a spec it runs txlog's operations in order -- replay, history, time travel by
version and by timestamp, describe and validate, checkpoints, version checksums, log
compaction, a cached snapshot updated across a small and a large commit, metadata cleanup (a
dry run, then for real) -- and writes what each step returned, normalized so that two runs on
two copies of a table compare equal (the table's root and UUIDs replaced, file lists reduced
to counts, sizes and an order-independent hash), plus each step's time in seconds.

    spark-submit --master spark://127.0.0.1:7077 --jars txlog.jar --py-files txlog.zip \\
        tests/cluster/cluster_job.py --spec spec.json --out result.json

The spec (JSON): ``{"tables": [{"name", "path", "kind": "fixture" | "w1", "full": bool,
"conf": {...}}], "hadoop": {...}}``. ``hadoop`` settings are set at run time on the driver's
Hadoop configuration only (as a notebook sets credentials), so executors see them only if txlog
ships them; a table's ``conf`` is set on the session while it runs (e.g. budgets that force
txlog's distributed paths); ``full`` adds describe, validate and a checkpoint of another kind.
A step that raises records the error instead of a value; the job goes on with the next step.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sys
import time
import traceback
from datetime import datetime, timezone
from typing import Any, Callable

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

import txlog
from txlog.errors import TxlogError

UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
# Files added by the job's commits: a fixed modification time, so both runs write the same.
ADDED_MTIME = 1_700_000_000_000
LARGE_COMMIT_FILES = 10_500  # past the 10,000 actions a commit checks and writes on the driver
# W1's large commit also removes this partition's files (read through the transaction).
W1_REMOVED = "partitionValues_parsed.date = '2024-01-05' AND partitionValues_parsed.part = 1"


class Table:
    """One table of the spec and what the job recorded for it."""

    def __init__(self, spark: SparkSession, spec: dict[str, Any]) -> None:
        self.spark = spark
        self.name: str = spec["name"]
        self.path: str = spec["path"]
        self.local_dir: str | None = spec.get("local_dir")  # the copy on disk, to break it
        self.kind: str = spec["kind"]
        self.full: bool = bool(spec.get("full", False))
        self.conf: dict[str, str] = dict(spec.get("conf", {}))
        self.results: dict[str, Any] = {}
        self.timings: dict[str, float] = {}
        self.root = ""  # the qualified root, known after the first DeltaLog

    def step(self, name: str, fn: Callable[[], Any]) -> Any:
        """Runs one step, timing it; records its value, or the error it raised."""
        started = time.perf_counter()
        try:
            value = fn()
            self.results[name] = self.normalize(value)
        except Exception as e:  # noqa: BLE001 -- every failure is a finding to compare
            value = None
            self.results[name] = {"error": self.normalize(error_of(e))}
            print(f"[cluster_job] {self.name}/{name} failed:\n{traceback.format_exc()}",
                  file=sys.stderr, flush=True)
        self.timings[name] = round(time.perf_counter() - started, 3)
        print(f"[cluster_job] {self.name}/{name}: {self.timings[name]} s", file=sys.stderr,
              flush=True)
        return value

    def normalize(self, value: Any) -> Any:
        """The value with the table's root and UUIDs replaced in every string."""
        if isinstance(value, str):
            for root in self.roots():
                value = value.replace(root, "<root>")
            return UUID.sub("<uuid>", value)
        if isinstance(value, dict):
            return {str(k): self.normalize(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [self.normalize(v) for v in value]
        return value

    def roots(self) -> list[str]:
        forms = [self.root, self.path.rstrip("/")]
        if self.root.startswith("file:/"):
            bare = self.root[len("file:"):]
            forms += ["file://" + bare, bare]
        return sorted({f for f in forms if f}, key=len, reverse=True)

    def log(self) -> txlog.DeltaLog:
        log = txlog.DeltaLog.for_table(self.spark, self.path)
        self.root = log.table_path
        return log


def error_of(e: BaseException) -> dict[str, Any]:
    """The error's type, class, file and version, and its message up to the cause (whose text
    names where the run's temporary files are and how the parquet reader failed)."""
    first = (str(e).strip().splitlines() or [""])[0].split(" Cause: ")[0]
    file = getattr(e, "file", None)
    return {"type": type(e).__name__, "error_class": getattr(e, "error_class", None),
            "file": None if file is None else file.rsplit("/", 1)[-1],
            "version": getattr(e, "version", None), "message": first}


# ---- What a snapshot is, as comparable values -------------------------------------------


def files_digest(df: DataFrame, root: str) -> dict[str, Any]:
    """Count, total size and an order-independent hash of a file list (paths relative to the
    table, partition values, deletion vector, stats), by one aggregation on the executors."""
    rel = F.replace(F.col("path"), F.lit(root + "/"), F.lit(""))
    pv = F.to_json(F.array_sort(F.map_entries(F.col("partitionValues"))))
    cols = set(df.columns)
    dv = F.to_json(F.col("deletionVector")) if "deletionVector" in cols else F.lit("")
    stats = F.col("stats") if "stats" in cols else F.lit("")
    key = F.concat_ws("\u0001", rel, F.col("size").cast("string"), F.coalesce(pv, F.lit("")),
                      F.coalesce(dv, F.lit("")), F.coalesce(stats, F.lit("")))
    row = df.agg(
        F.count(F.lit(1)).alias("n"),
        F.sum("size").alias("bytes"),
        F.sum(F.xxhash64(key).cast("decimal(38,0)")).alias("hash"),
    ).collect()[0]
    return {"count": row.n, "bytes": row.bytes, "hash": str(row.hash)}


def file_list(df: DataFrame, root: str) -> list[list[Any]]:
    """The file list itself (path relative to the table, size, deletion vector id), sorted:
    for the small fixture tables only."""
    rel = F.replace(F.col("path"), F.lit(root + "/"), F.lit(""))
    dv = F.concat_ws("", F.col("deletionVector.storageType"),
                     F.col("deletionVector.pathOrInlineDv"),
                     F.col("deletionVector.offset").cast("string"))
    rows = df.select(rel.alias("p"), "size", dv.alias("dv")).collect()
    return sorted([r.p, r.size, r.dv] for r in rows)


def snapshot_summary(snap: txlog.Snapshot, root: str, detail: bool,
                     with_time: bool = True) -> dict[str, Any]:
    p, md = snap.protocol, snap.metadata
    out: dict[str, Any] = {
        "version": snap.version,
        "checkpoint_version": snap.checkpoint_version,
        "num_files": snap.num_files,
        "size_in_bytes": snap.size_in_bytes,
        "num_tombstones": snap.num_tombstones,
        "protocol": [p.min_reader_version, p.min_writer_version,
                     sorted(p.reader_features or []), sorted(p.writer_features or [])],
        "metadata": {"id": md.id, "partition_columns": list(md.partition_columns),
                     "schema": md.schema.json(), "configuration": dict(sorted(
                         snap.table_properties.items()))},
        "set_transactions": dict(sorted(snap.set_transactions.items())),
        "domain_metadata": dict(sorted(snap.domain_metadata.items())),
        "files": files_digest(snap.all_files(), root),
        "tombstones": files_digest(snap.tombstones(), root),
    }
    if with_time:
        out["timestamp_ms"] = int(snap.timestamp.timestamp() * 1000)
    if detail:
        out["file_list"] = file_list(snap.all_files(), root)
    return out


def short_digest(snap: txlog.Snapshot, root: str) -> dict[str, Any]:
    return {"version": snap.version, "num_files": snap.num_files,
            "size_in_bytes": snap.size_in_bytes, "files": files_digest(snap.all_files(), root)}


def rows_of(df: DataFrame) -> list[list[Any]]:
    return sorted([[None if v is None else str(v) for v in r] for r in df.collect()])


# ---- The steps ---------------------------------------------------------------------------


def run_table(t: Table) -> None:
    fixture = t.kind == "fixture"
    log = t.step("open", t.log)
    if log is None:
        return
    t.results["open"] = t.normalize(log.table_path)
    t.step("replay", lambda: snapshot_summary(log.snapshot(), t.root, detail=fixture))
    history = t.step("history", lambda: [
        [r.version, r.ms, r.operation] for r in log.history().select(
            "version", F.unix_millis("timestamp").alias("ms"), "operation").orderBy(
            "version").collect()])
    history = history or []
    latest = history[-1][0] if history else 0
    if fixture:
        n = 6 if t.full else 3  # evenly spread over the history, the first and last included
        picked = [history[i * (len(history) - 1) // (n - 1)] for i in range(n)] if history \
            else []
        picked = [h for i, h in enumerate(picked) if h not in picked[:i]]
    else:
        picked = [h for h in history if h[0] in (1001, 1050, latest)]
    travel_versions = sorted({h[0] for h in picked} | ({1000} if not fixture else set()))

    def by_version() -> dict[str, Any]:
        out = {}
        for v in travel_versions:
            try:
                out[str(v)] = short_digest(log.snapshot(version=v), t.root)
            except TxlogError as e:
                out[str(v)] = {"error": error_of(e)}
        return out

    def by_timestamp() -> dict[str, Any]:
        out = {}
        for version, ms, _ in picked:
            for label, at in (("at", ms), ("before", ms - 1)):
                when = datetime.fromtimestamp(at / 1000, timezone.utc)
                try:
                    s = log.snapshot(timestamp=when)
                    out[f"{version}-{label}"] = [s.version, s.num_files, s.size_in_bytes]
                except TxlogError as e:
                    out[f"{version}-{label}"] = {"error": error_of(e)}
        return out

    t.step("time_travel_version", by_version)
    t.step("time_travel_timestamp", by_timestamp)
    if t.full:
        t.step("describe", lambda: describe(log))
        t.step("validate", lambda: [
            [r.version, (r.file or "").rsplit("/", 1)[-1], r.rule, r.severity]
            for r in log.validate().orderBy("version", "file", "rule").collect()])
    checkpoints(t, latest, history)
    checksums(t, latest)
    compaction(t, latest, history)
    commits(t)
    cleanup(t)
    if fixture and t.local_dir:
        broken_logs(t)


def describe(log: txlog.DeltaLog) -> dict[str, Any]:
    d = log.describe()
    # Where the table is and when it was last written differ between the runs' copies.
    for key in ("location", "lastModified"):
        d.pop(key, None)
    d.get("health", {}).pop("checkpointAgeMillis", None)
    return d


def checkpoint_result(r: Any) -> dict[str, Any]:
    return {"version": r.version, "kind": r.kind, "files": sorted(f.rsplit("/", 1)[-1]
                                                                  for f in r.files),
            "sidecars": len(r.sidecars), "num_actions": r.num_actions,
            "num_add_files": r.num_add_files, "num_remove_files": r.num_remove_files,
            "already_existed": r.already_existed}


def checkpoints(t: Table, latest: int, history: list[list[Any]]) -> None:
    def latest_checkpoint() -> dict[str, Any]:
        r = t.log().checkpoint()
        fresh = t.log().snapshot()
        return {"result": checkpoint_result(r), "after": short_digest(fresh, t.root),
                "checkpoint_version": fresh.checkpoint_version}

    t.step("checkpoint", latest_checkpoint)
    earlier = [h[0] for h in history if h[0] < latest]
    if not t.full or not earlier:
        return
    previous = earlier[-1]
    v2 = "v2Checkpoint" in (t.log().snapshot().protocol.writer_features or ())

    def other_kind() -> dict[str, Any]:
        log = t.log()
        if v2:
            r = log.checkpoint(version=previous, kind="v2", format="json", sidecars=False)
        else:
            r = log.checkpoint(version=previous, kind="multipart", parts=2)
        return {"result": checkpoint_result(r),
                "after": short_digest(t.log().snapshot(version=previous), t.root)}

    t.step("checkpoint_other_kind", other_kind)


def checksums(t: Table, latest: int) -> None:
    def write_and_validate() -> dict[str, Any]:
        log = t.log()
        out: dict[str, Any] = {}
        for v in sorted({latest, max(latest - 1, 0)}):
            try:
                out[f"write-{v}"] = log.write_checksum(v).rsplit("/", 1)[-1]
            except TxlogError as e:
                out[f"write-{v}"] = {"error": error_of(e)}
            out[f"validate-{v}"] = rows_of(log.validate_checksum(v))
        return out

    t.step("checksum", write_and_validate)


def compaction(t: Table, latest: int, history: list[list[Any]]) -> None:
    versions = [h[0] for h in history]
    start = 1001 if t.kind == "w1" else max([v for v in versions if v >= latest - 2] or [0])
    if start >= latest:
        return

    def compact() -> dict[str, Any]:
        name = t.log().compact(start, latest).rsplit("/", 1)[-1]
        return {"file": name, "after": short_digest(t.log().snapshot(), t.root)}

    t.step("compaction", compact)


def commit_result(txn: Any, version: int | None) -> dict[str, Any]:
    r = txn.result
    return {"version": version, "committed": r.committed, "attempts": r.attempts,
            "checkpoint_version": r.checkpoint_version,
            "post_commit_problems": r.post_commit_problems,
            "checksum": None if r.checksum is None else r.checksum.rsplit("/", 1)[-1]}


def commits(t: Table) -> None:
    """A cached snapshot, then a small and a large commit through the same log, each followed
    by update() (which reuses the cache) and a fresh replay to compare it with."""
    state: dict[str, Any] = {}

    def cache() -> dict[str, Any]:
        state["log"] = log = t.log()
        snap = log.snapshot().cache()
        return {"version": snap.version, "num_files": snap.num_files,
                "size_in_bytes": snap.size_in_bytes}

    if t.step("cache", cache) is None:
        return
    log: txlog.DeltaLog = state["log"]
    spark = t.spark

    def updated() -> dict[str, Any]:
        u = short_digest(log.update(), t.root)
        fresh = short_digest(t.log().snapshot(), t.root)
        return {"update": u, "fresh": fresh, "agree": u == fresh}

    def small() -> dict[str, Any]:
        txn = log.start_transaction()
        existing = txn.read_files().orderBy("path").limit(2)
        first = existing.select("partitionValues").collect()
        pv = first[0].partitionValues if first else {}
        adds = spark.createDataFrame(
            [(f"cluster-job/small-{i}.parquet", 1000 + i, pv, ADDED_MTIME, True,
              '{"numRecords":10}') for i in range(3)],
            "path string, size long, partitionValues map<string,string>, "
            "modificationTime long, dataChange boolean, stats string")
        txn.add_files(adds).remove_files(existing).set_app_transaction("cluster-job", 1)
        return commit_result(txn, txn.commit("WRITE", {"mode": "Append"}))

    def large() -> dict[str, Any]:
        txn = log.start_transaction()
        pv_rows = txn.read_files().orderBy("path").limit(1).select("partitionValues").collect()
        pv = pv_rows[0].partitionValues if pv_rows else {}
        pv_col = F.create_map(*[F.lit(x) for kv in sorted(pv.items()) for x in kv]) if pv \
            else F.create_map().cast("map<string,string>")
        adds = spark.range(LARGE_COMMIT_FILES).select(
            F.format_string("cluster-job/large-%05d.parquet", "id").alias("path"),
            (F.col("id") + 100).alias("size"),
            pv_col.alias("partitionValues"),
            F.lit(ADDED_MTIME).alias("modificationTime"),
            F.lit(True).alias("dataChange"))
        txn.add_files(adds)
        if t.kind == "w1":
            txn.remove_files(txn.read_files(W1_REMOVED))
        return commit_result(txn, txn.commit("WRITE", {"mode": "Append"}))

    t.step("commit_small", small)
    t.step("update_after_small", updated)
    t.step("commit_large", large)
    t.step("update_after_large", updated)
    t.step("history_after_commits", lambda: [
        [r.version, r.operation, r.isBlindAppend] for r in log.history().select(
            "version", "operation", "isBlindAppend").orderBy("version").collect()][-3:])


def cleanup(t: Table) -> None:
    def candidates(dry_run: bool) -> list[list[Any]]:
        df = t.log().cleanup(retention="0 days", dry_run=dry_run)
        return sorted([(r.path or "").rsplit("/", 1)[-1], r.kind, r.version, r.deleted]
                      for r in df.select("path", "kind", "version", "deleted").collect())

    t.step("cleanup_dry_run", lambda: candidates(True))
    t.step("cleanup", lambda: candidates(False))
    t.step("replay_after_cleanup", lambda: snapshot_summary(
        t.log().snapshot(), t.root, detail=t.kind == "fixture", with_time=False))


def broken_logs(t: Table) -> None:
    """Errors raised where the log is read -- by tasks on executors when the table's settings
    send reads there -- must reach the driver as the same typed errors, naming the file and
    version: a malformed commit after the latest version, then a checkpoint overwritten with
    bytes that are not parquet. On a copy of the table (read by its local path), so that the
    table itself stays as the job left it."""
    broken = f"{t.local_dir.rstrip('/')}-broken"
    shutil.copytree(t.local_dir, broken)  # keeps modification times
    t.path = broken
    log_dir = os.path.join(broken, "_delta_log")
    bad: list[str] = []

    def malformed_commit() -> Any:
        latest = t.log().snapshot().version
        bad.append(os.path.join(log_dir, f"{latest + 1:020d}.json"))
        with open(bad[0], "w") as f:
            f.write('{"commitInfo":{}}\n{"add": {"path": "x", oops}\n')
        return short_digest(t.log().snapshot(), t.root)

    def corrupt_checkpoint() -> Any:
        for path in bad:
            os.remove(path)
        # The newest classic checkpoint, else the newest V2 checkpoint's newest sidecar.
        names = sorted(n for n in os.listdir(log_dir) if n.endswith(".checkpoint.parquet"))
        if names:
            target, version = os.path.join(log_dir, names[-1]), int(names[-1][:20])
        else:
            sidecars = os.path.join(log_dir, "_sidecars")
            names = sorted((n for n in os.listdir(sidecars) if n.endswith(".parquet") and
                            not n.startswith(".")),
                           key=lambda n: os.path.getmtime(os.path.join(sidecars, n)))
            target, version = os.path.join(sidecars, names[-1]), t.log().snapshot().version
        with open(target, "r+b") as f:
            f.write(b"not parquet at all" * 64)
        return short_digest(t.log().snapshot(version=version), t.root)

    t.step("error_malformed_commit", malformed_commit)
    t.step("error_corrupt_checkpoint", corrupt_checkpoint)


# ---- Entry point --------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--spec", required=True)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    with open(args.spec) as f:
        spec = json.load(f)
    started = time.perf_counter()
    spark = SparkSession.builder.appName("txlog-cluster-job").getOrCreate()
    spark.sparkContext.setLogLevel("WARN")
    hadoop = spark.sparkContext._jsc.hadoopConfiguration()
    for k, v in spec.get("hadoop", {}).items():
        hadoop.set(k, v)
    sc = spark.sparkContext
    # Where txlog's Python code came from, on the driver and in the executors' Python workers.
    workers = sorted(set(sc.parallelize(range(4), 2).map(
        lambda _: __import__("txlog").__file__).collect()))
    out: dict[str, Any] = {
        "master": sc.master,
        "default_parallelism": sc.defaultParallelism,
        "txlog_driver_file": txlog.__file__,
        "txlog_worker_files": workers,
        "startup_s": round(time.perf_counter() - started, 3),
        "tables": {},
    }
    for table_spec in spec["tables"]:
        t = Table(spark, table_spec)
        began = time.perf_counter()
        for k, v in t.conf.items():
            spark.conf.set(k, v)
        try:
            run_table(t)
        finally:
            for k in t.conf:
                spark.conf.unset(k)
        out["tables"][t.name] = {"results": t.results, "timings": t.timings,
                                 "total_s": round(time.perf_counter() - began, 3)}
    out["total_s"] = round(time.perf_counter() - started, 3)
    with open(args.out, "w") as f:
        json.dump(out, f, indent=1, default=str)
    spark.stop()


if __name__ == "__main__":
    main()
