"""The demo: txlog replays the Delta table in examples/tables/demo through PySpark.

Prints the latest snapshot's summary, the table history and a time-travelled version; then,
on a scratch copy of the table, writes a checkpoint and a version checksum, validates the
checksum and shows what metadata cleanup would delete (a dry run). Last, txlog creates a table
of its own and commits to it: an append, a partition rewrite and an idempotent retry.
Run it with `make demo` (which sets everything up), or `.venv/bin/python examples/demo.py [table]`;
with `SPARK_REMOTE=sc://host:port`, the same from a Spark Connect session of that server.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

from pyspark.sql import SparkSession

import txlog

DEMO_TABLE = Path(__file__).resolve().parent / "tables" / "demo"


def describe(title: str, snap: txlog.Snapshot) -> None:
    p = snap.protocol
    features = sorted((p.reader_features or frozenset()) | (p.writer_features or frozenset()))
    print(f"== {title}")
    print(f"version            {snap.version} (committed {snap.timestamp:%Y-%m-%d %H:%M:%S} UTC)")
    print(f"checkpoint         {snap.checkpoint_version}")
    print(f"protocol           reader {p.min_reader_version}, writer {p.min_writer_version}; "
          f"features {', '.join(features) or 'none'}")
    print(f"schema             {snap.metadata.schema.simpleString()}")
    print(f"partition columns  {', '.join(snap.metadata.partition_columns) or 'none'}")
    print(f"files              {snap.num_files} live, {snap.size_in_bytes} bytes, "
          f"{snap.num_tombstones} tombstones")


def maintain(spark: SparkSession, table: Path) -> None:
    """Log maintenance on a scratch copy, so the demo table itself is never changed."""
    with tempfile.TemporaryDirectory(prefix="txlog-demo-") as scratch:
        copy = Path(scratch) / table.name
        shutil.copytree(table, copy)
        log = txlog.DeltaLog.for_table(spark, copy)
        result = log.checkpoint()
        print(f"\n== Maintenance on a copy ({copy})")
        print(f"checkpoint         {result.kind} of version {result.version}: "
              f"{result.num_add_files} adds, {result.num_remove_files} removes, "
              f"{result.size_in_bytes} bytes in {len(result.files)} file(s)")
        crc = f"{result.version:020d}.crc"
        if not (copy / "_delta_log" / crc).exists():
            log.write_checksum(result.version)
        mismatches = log.validate_checksum(result.version).count()
        print(f"version checksum   {crc}: {mismatches} mismatch(es) with the replayed state")
        print(f"after checkpoint   version {log.snapshot().version} replays from checkpoint "
              f"{log.snapshot().checkpoint_version}")
        print("cleanup (dry run, retention 0 days, below the table's 30: forced):")
        log.cleanup(retention="0 days", force=True).show(truncate=60)


def commits(spark: SparkSession) -> None:
    """A table txlog creates and commits to (the data files are a writer's own; listed here)."""
    with tempfile.TemporaryDirectory(prefix="txlog-demo-") as scratch:
        path = str(Path(scratch) / "events")
        log = txlog.create_table(spark, path, "id BIGINT, country STRING",
                                 partition_by=["country"])
        schema = ("path string, size long, partitionValues map<string,string>, "
                  "modificationTime long, dataChange boolean")
        files = spark.createDataFrame(
            [(f"country={c}/part-{i}.parquet", 1000 + i, {"country": c}, 1_700_000_000_000, True)
             for i, c in enumerate(["DE", "FR", "FR"])], schema)  # fmt: skip
        appended = log.start_transaction().add_files(files).set_app_transaction("job", 1).commit()
        txn = log.start_transaction()
        fr = txn.read_files("partitionValues_parsed.country = 'FR'")
        txn.remove_files(fr).add_files(spark.createDataFrame(
            [("country=FR/compacted.parquet", 2001, {"country": "FR"}, 1_700_000_000_000, True)],
            schema))  # fmt: skip
        rewritten = txn.commit("UPDATE", {"predicate": "country = 'FR'"})
        retried = log.start_transaction().add_files(files).set_app_transaction("job", 1).commit()
        snap = log.snapshot()
        print(f"\n== Commits by txlog to a new table ({path})")
        print(f"append             version {appended}; rewrite of FR: version {rewritten}; "
              f"the retried append (app id job, 1): {retried} (already committed)")
        print(f"latest             version {snap.version}: {snap.num_files} files, "
              f"{snap.size_in_bytes} bytes, checksum {txn.result.checksum is not None}")
        log.history().select("version", "operation", "operationParameters").show(truncate=False)


def session() -> SparkSession:
    """A local classic session; with SPARK_REMOTE set, a session of that Spark Connect server
    (started with txlog.connect_server_settings(): README, "Spark Connect")."""
    builder = SparkSession.builder.appName("txlog demo")
    if os.environ.get("SPARK_REMOTE"):
        return txlog.configure_spark(builder).getOrCreate()
    builder = (builder.master("local[2]").config("spark.sql.shuffle.partitions", "4")
               .config("spark.ui.showConsoleProgress", "false"))
    spark = txlog.configure_spark(builder).getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def main(table: str) -> None:
    spark = session()
    try:
        log = txlog.DeltaLog.for_table(spark, table)
        latest = log.snapshot()
        describe(f"Latest snapshot of {latest.table_path}", latest)
        print("\nLive files (deletion vectors shown by cardinality):")
        (latest.all_files()
         .selectExpr("path", "size", "partitionValues_parsed.country AS country",
                     "stats_parsed.numRecords AS records",
                     "deletionVector.cardinality AS deleted")
         .orderBy("path").show(truncate=70))

        print("== History (newest first)")
        (log.history()
         .select("version", "timestamp", "operation", "userMetadata")
         .show(truncate=False))

        older = log.snapshot(version=2)
        describe("Time travel to version 2", older)
        as_of = log.snapshot(timestamp=latest.timestamp)
        print(f"\n== As of {latest.timestamp.isoformat()}: version {as_of.version}")
        maintain(spark, Path(table))
        commits(spark)
    finally:
        spark.stop()


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else str(DEMO_TABLE))
