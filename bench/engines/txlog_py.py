"""txlog through its Python API (python/txlog). Unavailable until the package and its jar
exist; operations the API does not offer yet are recorded as unavailable too."""

from __future__ import annotations

import inspect
import os
import sys
from datetime import datetime
from pathlib import Path

from engines.base import Commit, Counts, GaveUp, Optimized, Unavailable, Vacuumed
from engines.spark import SparkEngine, aggregate_row, builder, selected_files

# The working tree's package, used when txlog is not installed in the environment.
REPO_PYTHON = Path(__file__).resolve().parents[2] / "python"
#: Environment variable naming another txlog checkout (its jar built) for `txlog-baseline`.
BASELINE_ENV = "TXLOG_BENCH_BASELINE"
#: Environment variable naming the class data sharing archive `txlog-cds` starts its driver
#: with; by default the one `make cds` writes for the running pyspark's Spark line.
CDS_ENV = "TXLOG_BENCH_CDS"
#: The columns of the one-row DataFrame a commit adds (the shape of Snapshot.all_files).
ADD_SCHEMA = (
    "path string, size long, partitionValues map<string,string>, modificationTime long, "
    "dataChange boolean, stats string"
)
ADD_FIELDS = ["path", "size", "partitionValues", "modificationTime", "dataChange", "stats"]


def _counts(snapshot) -> Counts:
    return Counts(snapshot.version, snapshot.num_files, snapshot.size_in_bytes)


class Txlog(SparkEngine):
    name = "txlog"
    stream_format = "txlog"

    def session(self, driver_memory: str):
        self._import_path()
        try:
            import txlog

            self.txlog = txlog
            return txlog.configure_spark(builder("bench-txlog", driver_memory))
        except Exception as e:  # not built yet, jar missing, API incomplete: all "unavailable"
            raise Unavailable(f"txlog: {type(e).__name__}: {e}") from e

    def _import_path(self) -> None:
        sys.path.append(str(REPO_PYTHON))

    def _log(self, path: str):
        return self.txlog.DeltaLog.for_table(self.spark, path)

    def load(self, path: str) -> Counts:
        return _counts(self._log(path).snapshot())

    def load_files(self, path: str) -> Counts:
        from pyspark.sql import functions as F

        snapshot = self._log(path).snapshot()
        row = snapshot.all_files().agg(F.count("*"), F.sum("size")).collect()[0]
        return Counts(snapshot.version, row[0], row[1] or 0)

    def collect_files(self, path: str) -> Counts:
        snapshot = self._log(path).snapshot()
        rows = snapshot.all_files().collect()
        return Counts(snapshot.version, len(rows), sum(r["size"] for r in rows))

    def open(self, path: str):
        log = self._log(path)
        snapshot = log.snapshot().cache()  # update() then builds on the cached files
        _counts(snapshot)
        return log, [snapshot]

    def update(self, handle) -> Counts:
        log, snapshots = handle
        snapshots.append(log.update())
        return _counts(snapshots[-1])

    def release(self, handle) -> None:
        for snapshot in handle[1]:
            snapshot.unpersist()

    def prepare_add(self, handle, add: dict):
        if not hasattr(handle[0], "start_transaction"):
            raise Unavailable("txlog.DeltaLog.start_transaction does not exist yet")
        if "list" in str(inspect.signature(self.txlog.Transaction.add_files)):
            # a list of dicts: staged on the driver, without a Spark job (the API's fast path
            # for a few files, as delta-rs takes AddAction objects)
            return [{f: add[f] for f in ADD_FIELDS}]
        # a checkout from before add_files took a list (txlog-baseline)
        return self.spark.createDataFrame([tuple(add[f] for f in ADD_FIELDS)], ADD_SCHEMA)

    def commit(self, handle, action) -> Commit:
        txn = handle[0].start_transaction()  # on log.update(): the cached state brought up to date
        read_version = txn.read_version
        try:
            txn.add_files(action).commit()
        except self.txlog.errors.CommitRetriesExhaustedError as e:
            raise GaveUp(str(e)) from e
        return Commit(read_version, txn.result.version, txn.result.attempts)

    def checkpoint(self, path: str) -> None:
        log = self._log(path)
        if not hasattr(log, "checkpoint"):
            raise Unavailable("txlog.DeltaLog.checkpoint does not exist yet")
        try:
            log.checkpoint()
        except NotImplementedError as e:
            raise Unavailable(f"txlog.DeltaLog.checkpoint: {e}") from e

    def time_travel(self, path: str, timestamp: str) -> Counts:
        return _counts(self._log(path).snapshot(timestamp=datetime.fromisoformat(timestamp)))

    def plan(self, path: str, scan: dict):
        return selected_files(self._read(path).where(scan["where"]))

    def read_rows(self, path: str, aggregate: list[str]) -> dict:
        return aggregate_row(self._read(path), aggregate)

    def _read(self, path: str):
        log = self._log(path)
        if not hasattr(log, "read"):
            raise Unavailable("txlog.DeltaLog.read does not exist yet")
        return log.read()

    def write(self, path: str, data, mode: str, partition_by: list[str]) -> None:
        if not hasattr(self.txlog, "write"):
            raise Unavailable("txlog.write does not exist yet")
        self.txlog.write(data, path, mode=mode, partition_by=partition_by)

    def vacuum(self, path: str, retention_hours: int, dry_run: bool) -> Vacuumed:
        log = self._log(path)
        if not hasattr(log, "vacuum"):
            raise Unavailable("txlog.DeltaLog.vacuum does not exist yet")
        r = log.vacuum(retention_hours=retention_hours, dry_run=dry_run)
        files = r.files if dry_run else r.files.where("deleted")
        return Vacuumed(
            r.num_files if dry_run else r.num_deleted_files,
            lambda: [row.path for row in files.select("path").collect()],
            r.unpersist,
        )

    def optimize(self, path: str) -> Optimized:
        log = self._log(path)
        if not hasattr(log, "optimize"):
            raise Unavailable("txlog.DeltaLog.optimize does not exist yet")
        r = log.optimize()
        return Optimized(r.num_removed_files, r.num_added_files)

    def delete_rows(self, path: str, predicate: str) -> None:
        log = self._log(path)
        if not hasattr(log, "delete"):
            raise Unavailable("txlog.DeltaLog.delete does not exist yet")
        log.delete(predicate)

    def update_rows(self, path: str, predicate: str, assignments: dict[str, str]) -> None:
        log = self._log(path)
        if "set" not in inspect.signature(log.update).parameters:
            raise Unavailable("txlog.DeltaLog.update(condition, set=...) does not exist yet")
        log.update(predicate, set=assignments)

    def merge_upsert(
        self, path: str, source, condition: str, source_alias: str, target_alias: str
    ) -> None:
        log = self._log(path)
        if not hasattr(log, "merge"):
            raise Unavailable("txlog.DeltaLog.merge does not exist yet")
        merge = log.merge(source.alias(source_alias), condition, target_alias=target_alias)
        merge.when_matched_update_all().when_not_matched_insert_all().execute()


class TxlogBaseline(Txlog):
    """txlog as built in another checkout (`run.py --baseline DIR`, e.g. a git worktree of an
    earlier commit with `make jar` run in it): its Python package, which finds that checkout's
    own jar, so before and after are timed in one run."""

    name = "txlog-baseline"

    def _import_path(self) -> None:
        checkout = os.environ.get(BASELINE_ENV)
        if not checkout:
            raise Unavailable(f"txlog-baseline: {BASELINE_ENV} is not set (run.py --baseline)")
        # First on the path: ahead of this checkout's package (an editable install's finder
        # comes after the path entries).
        sys.path.insert(0, str(Path(checkout) / "python"))
        os.environ.pop("TXLOG_JAR", None)


class TxlogSql(Txlog):
    """txlog read as a Spark table (DataSource V2, `txlog.sql.TxlogCatalog` as the session catalog
    that `txlog.configure_spark` sets): W12's and W13's scans through `spark.table` of the path
    identifier instead of `DeltaLog.read()`'s DataFrame, so that both ways of reading are timed
    in one run (issue #62: the DSv2 scan no slower than the other). Other jobs are txlog's."""

    name = "txlog-sql"

    def _read(self, path: str):
        quoted = path.replace("`", "``")
        return self.spark.table(f"txlog.`{quoted}`")

    def plan(self, path: str, scan: dict):
        """The table's scan planned by Spark: the DSv2 scan with its pushed filters, whose V1
        relation Spark asks for its rows while planning (the reader's own plan, files pruned and
        skipped, as `DeltaLog.read()`'s). The files it selected are counted after the timed part,
        from the relation (`SnapshotRows.rows`): counting them within it would plan the reader's
        scan a second time."""
        plan = self._read(path).where(scan["where"])._jdf.queryExecution().sparkPlan()
        leaves = plan.collectLeaves()
        found = [leaves.apply(i) for i in range(leaves.length())]
        found = [s for s in found if s.getClass().getSimpleName() == "RowDataSourceScanExec"]
        if len(found) != 1:
            raise RuntimeError(f"expected one txlog scan in the plan, found {len(found)}")
        return _Counted(found[0].relation())


class _Counted:
    """The files a txlog scan's relation selects, counted when first asked."""

    def __init__(self, relation) -> None:
        self._relation = relation
        self._selected = None

    def _get(self):
        if self._selected is None:
            self._selected = selected_files(_Jdf(self._relation.rows()))
        return self._selected

    @property
    def num_files(self) -> int:
        return self._get().num_files

    @property
    def size_in_bytes(self) -> int | None:
        return self._get().size_in_bytes

    def __repr__(self) -> str:
        return repr(self._get())


class _Jdf:
    """A JVM DataFrame where `selected_files` takes a PySpark one (it reads `_jdf` only)."""

    def __init__(self, jdf) -> None:
        self._jdf = jdf


class TxlogCds(Txlog):
    """txlog with the opt-in class data sharing archive of `make cds` (docs/platforms.md, "Cold
    start"): the driver JVM maps Spark's and txlog's archived classes instead of loading
    them, which a cold run (the first operation in a fresh process) measures."""

    name = "txlog-cds"

    def session(self, driver_memory: str):
        import pyspark

        line = ".".join(pyspark.__version__.split(".")[:2])
        default = REPO_PYTHON.parent / "target" / "cds" / f"txlog-spark_{line}_2.13.jsa"
        archive = Path(os.environ.get(CDS_ENV, default))
        if not archive.is_file():
            raise Unavailable(f"txlog-cds: no archive at {archive} (make cds writes it)")
        return super().session(driver_memory).config(
            "spark.driver.extraJavaOptions", f"-XX:SharedArchiveFile={archive}"
        )
