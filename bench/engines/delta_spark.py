"""delta-spark (the reference implementation), driven through py4j in a local[2] session."""

from __future__ import annotations

import json

from engines.base import Commit, Counts, Optimized, Vacuumed
from engines.spark import SHUFFLE_PARTITIONS, SparkEngine, aggregate_row, builder, selected_files

DELTA_SPARK_PACKAGE = "io.delta:delta-spark_4.2_2.13:4.4.0"


def _counts(snapshot) -> Counts:
    # numOfFiles and sizeInBytes come from one aggregate job over the reconciled state.
    return Counts(snapshot.version(), snapshot.numOfFiles(), snapshot.sizeInBytes())


def latest_snapshot(spark, path: str):
    """delta-spark's latest snapshot of the table at `path`, its DeltaLog cache dropped first (a
    generator checking the table it just wrote)."""
    log = spark._jvm.org.apache.spark.sql.delta.DeltaLog
    log.clearCache()
    none = spark._jvm.scala.Option.empty()
    return log.forTable(spark._jsparkSession, path).update(False, none, none)


class DeltaSpark(SparkEngine):
    name = "delta-spark"
    stream_format = "delta"

    def session(self, driver_memory: str):
        return (
            builder("bench-delta-spark", driver_memory)
            .config("spark.jars.packages", DELTA_SPARK_PACKAGE)
            .config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
            .config(
                "spark.sql.catalog.spark_catalog",
                "org.apache.spark.sql.delta.catalog.DeltaCatalog",
            )
            # State reconstruction shuffles into snapshotPartitions (default 50), not
            # spark.sql.shuffle.partitions: give it the same small count on 2 cores.
            .config("spark.databricks.delta.snapshotPartitions", str(SHUFFLE_PARTITIONS))
            # The synthetic commits are dated 2024, beyond the default 7-day
            # deletedFileRetentionDuration within which delta-spark allows time travel.
            .config(
                "spark.databricks.delta.vacuum.enforceTimeTravelWithinDeletedFileRetentionDuration",
                "false",
            )
            # VACUUM lists the table in this many tasks (default 10,000: minutes of task
            # overhead on 2 cores); the same count as the shuffles.
            .config(
                "spark.sql.sources.parallelPartitionDiscovery.parallelism", str(SHUFFLE_PARTITIONS)
            )
        )

    @property
    def _jvm_delta(self):
        return self.spark._jvm.org.apache.spark.sql.delta

    @property
    def _delta_log(self):
        return self._jvm_delta.DeltaLog

    def _fresh_log(self, path: str):
        self._delta_log.clearCache()  # drop cached DeltaLogs (and their cached states)
        return self._delta_log.forTable(self.spark._jsparkSession, path)

    def _latest(self, log):
        none = self.spark._jvm.scala.Option.empty()
        return log.update(False, none, none)

    def load(self, path: str) -> Counts:
        return _counts(self._latest(self._fresh_log(path)))

    def load_files(self, path: str) -> Counts:
        from pyspark.sql import DataFrame, functions as F

        snapshot = self._latest(self._fresh_log(path))
        files = DataFrame(snapshot.allFiles().toDF(), self.spark)  # Dataset[AddFile]
        row = files.agg(F.count("*"), F.sum("size")).collect()[0]
        return Counts(snapshot.version(), row[0], row[1] or 0)

    def collect_files(self, path: str) -> Counts:
        from pyspark.sql import DataFrame

        snapshot = self._latest(self._fresh_log(path))
        rows = DataFrame(snapshot.allFiles().toDF(), self.spark).collect()  # Dataset[AddFile]
        return Counts(snapshot.version(), len(rows), sum(r["size"] for r in rows))

    def open(self, path: str):
        log = self._fresh_log(path)
        _counts(self._latest(log))
        return log

    def update(self, handle) -> Counts:
        return _counts(self._latest(handle))

    def release(self, handle) -> None:
        self._delta_log.clearCache()

    def prepare_add(self, handle, add: dict):
        action = self._jvm_delta.actions.Action.fromJson(json.dumps({"add": add}))
        return self.spark._jvm.PythonUtils.toSeq([action])  # a Scala Seq of the AddFile

    def commit(self, handle, action) -> Commit:
        txn = handle.startTransaction()  # on update(): the cached snapshot brought up to date
        read_version = txn.readVersion()
        # The commit retries internally; the number of attempts is not returned.
        return Commit(read_version, txn.commit(action, self._manual_update), None)

    @property
    def _manual_update(self):
        """The operation the commits are recorded as: the Scala object
        DeltaOperations.ManualUpdate."""
        return getattr(getattr(self._jvm_delta, "DeltaOperations$ManualUpdate$"), "MODULE$")

    def checkpoint(self, path: str) -> None:
        self._fresh_log(path).checkpoint()

    def time_travel(self, path: str, timestamp: str) -> Counts:
        self._delta_log.clearCache()
        df = self.spark.read.format("delta").option("timestampAsOf", timestamp).load(path)
        # The relation's file index holds the time-travelled snapshot.
        index = df._jdf.queryExecution().analyzed().relation().location()
        return _counts(index.getSnapshot())

    def _read(self, path: str):
        self._delta_log.clearCache()  # no cached snapshot of an earlier run
        return self.spark.read.format("delta").load(path)

    def plan(self, path: str, scan: dict):
        # Data skipping happens while optimizing (PrepareDeltaScan); the scan's file index then
        # holds the selected files.
        return selected_files(self._read(path).where(scan["where"]))

    def read_rows(self, path: str, aggregate: list[str]) -> dict:
        return aggregate_row(self._read(path), aggregate)

    def write(self, path: str, data, mode: str, partition_by: list[str]) -> None:
        data.write.format("delta").mode(mode).partitionBy(*partition_by).save(path)

    def vacuum(self, path: str, retention_hours: int, dry_run: bool) -> Vacuumed:
        self._delta_log.clearCache()
        sql = f"VACUUM delta.`{path}` RETAIN {retention_hours} HOURS"
        df = self.spark.sql(sql + (" DRY RUN" if dry_run else ""))  # a command: runs here
        if not dry_run:  # its result is the table's path only
            return Vacuumed(None, None)
        return Vacuumed(df.count(), lambda: [r[0] for r in df.collect()])

    def _delta_table(self, path: str):
        """io.delta.tables.DeltaTable.forPath (through py4j), no cached DeltaLog reused."""
        self._delta_log.clearCache()
        return self.spark._jvm.io.delta.tables.DeltaTable.forPath(self.spark._jsparkSession, path)

    def optimize(self, path: str) -> Optimized:
        from pyspark.sql import DataFrame

        table = self._delta_table(path)
        # executeCompaction runs the OPTIMIZE and returns one row: (path, metrics).
        metrics = DataFrame(table.optimize().executeCompaction(), self.spark).collect()[0][1]
        return Optimized(metrics["numFilesRemoved"], metrics["numFilesAdded"])

    def delete_rows(self, path: str, predicate: str) -> None:
        self._delta_table(path).delete(predicate)

    def update_rows(self, path: str, predicate: str, assignments: dict[str, str]) -> None:
        set_ = self.spark._jvm.java.util.HashMap()
        for column, expression in assignments.items():
            set_.put(column, expression)
        self._delta_table(path).updateExpr(predicate, set_)

    def merge_upsert(
        self, path: str, source, condition: str, source_alias: str, target_alias: str
    ) -> None:
        table = self._delta_table(path).alias(target_alias)
        merge = table.merge(source.alias(source_alias)._jdf, condition)
        # execute() runs the MERGE (and returns its one-row metrics, not needed here).
        merge.whenMatched().updateAll().whenNotMatched().insertAll().execute()
