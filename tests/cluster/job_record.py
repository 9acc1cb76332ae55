"""What the cluster job (cluster_job.py) records for a table: the Table that runs and times each
step, and snapshots, file lists and errors turned into values that compare equal between two
runs on two copies of a table (the root and UUIDs replaced, file lists reduced to counts, sizes
and an order-independent hash)."""

from __future__ import annotations

import re
import sys
import time
import traceback
from typing import Any, Callable

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

import txlog

UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


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
