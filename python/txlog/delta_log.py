"""The transaction log of one Delta table.

>>> log = txlog.DeltaLog.for_table(spark, "/data/events")
>>> log.snapshot().version
3
>>> log.snapshot(version=1).num_files
2
>>> log.snapshot(timestamp="2024-06-01 12:00:00")
>>> log.history().select("version", "operation").show()
"""

from __future__ import annotations

import json
import os
from datetime import date, datetime
from typing import Any, overload

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql.types import StructType

from ._args import (
    _path_text, _schema_text, _str_map, _timestamp_text, _version_text, _whole_number,
)
from ._gateway import call, call_text, frame, java_session, jvm_facade
from ._summaries import CheckpointResult
from . import merge as _merge
from .maintenance import TableMaintenance
from .merge import UpdateResult
from .snapshot import Snapshot
from .transaction import Transaction
from .write import DeleteResult, OptimizeResult

__all__ = ["DeltaLog", "CheckpointResult", "create_table"]


def _timestamp_arg(name: str, value: Any) -> str:
    """A timestamp argument as text (see ``_timestamp_text``); TypeError naming ``name``."""
    if not isinstance(value, (str, datetime, date)):
        raise TypeError(
            f"{name} must be a str, datetime or date, got {type(value).__name__}"
        )
    if isinstance(value, str) and not value.strip():
        raise ValueError(f"{name} must be a non-empty timestamp string")
    return _timestamp_text(value)




def _version_options(version: Any, timestamp: Any) -> dict[str, str] | None:
    """The JVM options naming a snapshot: ``version`` or ``timestamp`` (at most one), or None
    for the latest. py4j (auto_convert, as PySpark sets it up) passes the dict as a
    java.util.Map; no options go as null, which saves building an empty map in the JVM."""
    if version is not None and timestamp is not None:
        raise ValueError("give either version or timestamp, not both")
    options: dict[str, str] = {}
    if version is not None:
        options["version"] = _version_text(version)
    if timestamp is not None:
        options["timestamp"] = _timestamp_text(timestamp)
    return options or None


class DeltaLog(TableMaintenance):
    """The transaction log of a Delta table: snapshots, time travel and history.

    Create it with :meth:`for_table`; nothing is read until a snapshot is asked for.
    """

    def __init__(self, jlog: Any, spark: SparkSession, facade: Any) -> None:
        self._jlog: Any = jlog
        self._spark: SparkSession = spark
        self._facade: Any = facade

    @classmethod
    def for_table(cls, spark: SparkSession, path: str | os.PathLike[str]) -> DeltaLog:
        """The log of the table at ``path`` (a local path or any Hadoop file system URI).

        The session must have been built with :func:`txlog.configure_spark`.

        >>> log = DeltaLog.for_table(spark, "s3a://bucket/events")
        """
        text = _path_text(path)
        jspark = java_session(spark)
        facade = jvm_facade(spark)
        return cls(call(facade.forTable, jspark, text), spark, facade)

    def start_transaction(self) -> Transaction:
        """A :class:`txlog.Transaction` on the latest snapshot.

        >>> txn = log.start_transaction()
        >>> txn.add_files(new_files).commit()
        """
        return Transaction(call(self._facade.startTransaction, self._jlog), self._spark,
                           self._facade)

    @property
    def table_path(self) -> str:
        """The table's qualified root path, e.g. ``file:/data/events``."""
        return str(call(self._facade.tablePath, self._jlog))

    def snapshot(
        self,
        version: int | None = None,
        timestamp: str | datetime | date | None = None,
    ) -> Snapshot:
        """The latest snapshot, or the one at ``version``, or the latest one committed at or
        before ``timestamp`` (give at most one of them).

        A ``str`` timestamp (or a ``datetime`` without tzinfo, or a ``date``) is read in the
        Spark session time zone (``spark.sql.session.timeZone``), as Spark casts strings to
        timestamps: ``yyyy-MM-dd[ HH:mm:ss[.ffffff]]``, or with its own zone such as
        ``2024-06-01T00:00:00Z``.

        >>> log.snapshot()                                   # latest
        >>> log.snapshot(version=3)
        >>> log.snapshot(timestamp="2024-06-01 00:00:00")
        >>> log.snapshot(timestamp=datetime(2024, 6, 1, tzinfo=timezone.utc))
        """
        return self._wrap(call(self._facade.snapshot, self._jlog,
                               _version_options(version, timestamp)))

    def read(
        self,
        version: int | None = None,
        timestamp: str | datetime | date | None = None,
    ) -> DataFrame:
        """The table's rows at the latest version, or at ``version``, or as of ``timestamp``
        (read as :meth:`snapshot` reads them; give at most one), as a DataFrame with the
        table's logical schema: deletion vectors applied, columns mapped from their physical
        names, files skipped by partition values and statistics when the query filters.

        >>> log.read().where("date = '2024-06-01'").show()
        >>> log.read(version=3).count()
        """
        return frame(call(self._facade.read, self._jlog, _version_options(version, timestamp)),
                         self._spark)

    def changes(
        self,
        start: int | None = None,
        end: int | None = None,
        start_timestamp: str | datetime | date | None = None,
        end_timestamp: str | datetime | date | None = None,
    ) -> DataFrame:
        """The change data feed from ``start`` (a version) or ``start_timestamp`` (the first
        commit at or after it) to ``end`` or ``end_timestamp`` (the last commit at or before
        it; default: the latest version), as delta-spark's ``table_changes``: the table's
        columns and ``_change_type``, ``_commit_version``, ``_commit_timestamp``.
        ChangeDataNotRecordedError names the first version at which
        ``delta.enableChangeDataFeed`` was not true; ChangeDataSchemaError refuses a range
        holding a column rename, drop or type change, or a table with a column named as one
        the feed adds.

        >>> log.changes(start=2, end=5).where("_change_type = 'delete'").show()
        >>> log.changes(start_timestamp="2024-06-01", end_timestamp="2024-06-02").count()
        """
        if start is not None and start_timestamp is not None:
            raise ValueError("give either start or start_timestamp, not both")
        if start is None and start_timestamp is None:
            raise ValueError("give start or start_timestamp")
        if end is not None and end_timestamp is not None:
            raise ValueError("give either end or end_timestamp, not both")
        options: dict[str, str] = {}
        if start is not None:
            options["start"] = _whole_number("start", start)
        if start_timestamp is not None:
            options["startTimestamp"] = _timestamp_arg("start_timestamp", start_timestamp)
        if end is not None:
            options["end"] = _whole_number("end", end)
        if end_timestamp is not None:
            options["endTimestamp"] = _timestamp_arg("end_timestamp", end_timestamp)
        if start is not None and end is not None and int(options["end"]) < int(options["start"]):
            raise ValueError(f"end ({end}) must not be before start ({start})")
        return frame(call(self._facade.changes, self._jlog, options), self._spark)

    @overload
    def update(self) -> Snapshot: ...
    @overload
    def update(self, condition: str | None = None, *, set: dict[str, str]) -> UpdateResult: ...

    def update(self, condition: Any = None, set: Any = None) -> Any:
        """Without ``set``: the latest snapshot, reading only the commits added since the last
        snapshot this log returned (and reusing its cached files when it was cached).

        With ``set`` (column, or ``a.b`` for a nested field, to SQL expression): updates the rows
        ``condition`` matches (every row without it) as SQL's ``UPDATE`` does, in one ``UPDATE``
        commit (none when no row matches), by deletion vectors where the table enables them.
        :class:`txlog.errors.InvalidArgumentError` for an expression that does not parse or
        resolve; :class:`txlog.errors.ConstraintViolationError` when a new value breaks a
        constraint, nothing committed.

        >>> log.update("id = 7", set={"status": "'closed'"}).num_updated_rows
        1
        """
        if set is None:
            if condition is not None:
                raise ValueError("set must be given with condition: the columns to update")
            return self._wrap(call(self._facade.update, self._jlog))
        return _merge.update(self, condition, set)

    def merge(self, source: DataFrame, condition: str,
              target_alias: str = "target") -> _merge.MergeBuilder:
        """Starts a MERGE of ``source`` into the table on ``condition`` (SQL over the target,
        named ``target_alias``, and the source by its own alias), with the builder of
        delta-spark's ``DeltaTable.merge``; see :class:`txlog.merge.MergeBuilder`.

        >>> (log.merge(df.alias("s"), "target.id = s.id").when_matched_update_all()
        ...     .when_not_matched_insert_all().execute().num_affected_rows)
        """
        return _merge.MergeBuilder(self, source, condition, target_alias)

    def delete(self, predicate: str) -> DeleteResult:
        """Deletes the rows ``predicate`` (a SQL condition on the table's columns) matches, in one
        ``DELETE`` commit; nothing is committed when no row matches. A condition naming only
        partition columns removes the files of the partitions it selects whole, reading no data;
        any other deletes rows as SQL's ``DELETE FROM`` does: by deletion vectors where the
        table enables them (``delta.enableDeletionVectors``), else by rewriting the files that
        hold matching rows (on a table recording the change data feed, the deleted rows are
        written as change data files, as delta-spark writes them).
        :class:`txlog.errors.InvalidArgumentError` for a predicate that does not parse or names
        no column of the table.

        >>> log.delete("date < '2024-01-01'").num_removed_files
        12
        >>> log.delete("user_id = 42").num_deleted_rows
        3
        """
        if not isinstance(predicate, str):
            raise TypeError(f"predicate must be a str, got {type(predicate).__name__}")
        if not predicate.strip():
            raise ValueError("predicate must be a non-empty SQL condition")
        return DeleteResult._of(call_text(self._facade.delete, self._jlog, predicate))

    def optimize(
        self,
        where: str | None = None,
        target_size: int | None = None,
        min_file_size: int | None = None,
        dry_run: bool = False,
    ) -> OptimizeResult:
        """OPTIMIZE: compacts the small files of the partitions ``where`` selects (a SQL
        condition on partition columns; every partition without it) into files of about
        ``target_size`` bytes, applying deletion vectors, in one commit whose adds and removes
        change no data (delta-spark's bin-packing; both sizes default to its 1 GiB). With
        ``dry_run`` nothing is written.

        >>> log.optimize(dry_run=True).num_removed_files
        120
        """
        options: dict[str, str] = {}
        if where is not None:
            if not isinstance(where, str):
                raise TypeError(f"where must be a str, got {type(where).__name__}")
            options["where"] = where
        for name, key, value in (("target_size", "targetSize", target_size),
                                 ("min_file_size", "minFileSize", min_file_size)):
            if value is not None:
                options[key] = _whole_number(name, value)
        if not isinstance(dry_run, bool):
            raise TypeError(f"dry_run must be a bool, got {type(dry_run).__name__}")
        options["dryRun"] = "true" if dry_run else "false"
        return OptimizeResult._of(call_text(self._facade.optimize, self._jlog, options))

    def purge_deletion_vectors(
        self, where: str | None = None, dry_run: bool = False
    ) -> OptimizeResult:
        """Purges deletion vectors (delta-spark's ``REORG TABLE ... APPLY (PURGE)``): every file
        of the partitions ``where`` selects (a SQL condition on partition columns; every
        partition without it) whose deletion vector deletes rows is rewritten without those
        rows, in one ``REORG`` commit whose adds and removes change no data. With ``dry_run``
        nothing is written.

        >>> log.purge_deletion_vectors(dry_run=True).num_removed_files
        4
        """
        options: dict[str, str] = {}
        if where is not None:
            if not isinstance(where, str):
                raise TypeError(f"where must be a str, got {type(where).__name__}")
            options["where"] = where
        if not isinstance(dry_run, bool):
            raise TypeError(f"dry_run must be a bool, got {type(dry_run).__name__}")
        options["dryRun"] = "true" if dry_run else "false"
        return OptimizeResult._of(
            call_text(self._facade.purgeDeletionVectors, self._jlog, options)
        )

    def history(self) -> DataFrame:
        """The commit history, newest first: version, timestamp, operation,
        operationParameters and the other commitInfo fields."""
        return frame(call(self._facade.history, self._jlog), self._spark)

    def checkpoint(
        self,
        version: int | None = None,
        kind: str | None = None,
        parts: int | None = None,
        format: str | None = None,
        sidecars: bool | None = None,
    ) -> CheckpointResult:
        """Writes a checkpoint of ``version`` (default: the latest) with Spark jobs, verifies
        it against the snapshot, publishes it and updates ``_last_checkpoint``.

        ``kind`` is ``"classic"``, ``"multipart"`` (with ``parts`` >= 2) or ``"v2"`` (with
        ``format`` ``"parquet"`` or ``"json"`` and ``sidecars``); by default the table's
        ``delta.checkpointPolicy``.

        >>> log.checkpoint()
        >>> log.checkpoint(kind="multipart", parts=4)
        >>> log.checkpoint(version=10, kind="v2", format="json", sidecars=False)
        """
        options: dict[str, str] = {}
        if version is not None:
            options["version"] = _version_text(version)
        if kind is not None:
            if not isinstance(kind, str):
                raise TypeError(f"kind must be a str, got {type(kind).__name__}")
            options["kind"] = kind  # its values are the JVM's to check (INVALID_ARGUMENT)
        if parts is not None:
            if isinstance(parts, bool) or not isinstance(parts, int):
                raise TypeError(f"parts must be an int, got {type(parts).__name__}")
            options["parts"] = str(parts)
        if format is not None:
            if not isinstance(format, str):
                raise TypeError(f"format must be a str, got {type(format).__name__}")
            options["format"] = format
        if sidecars is not None:
            if not isinstance(sidecars, bool):
                raise TypeError(f"sidecars must be a bool, got {type(sidecars).__name__}")
            options["sidecars"] = "true" if sidecars else "false"
        return CheckpointResult._of(call_text(self._facade.checkpoint, self._jlog, options))

    def _wrap(self, jsnapshot: Any) -> Snapshot:
        return Snapshot(jsnapshot, self._spark, self._facade)

    def __repr__(self) -> str:
        return f"DeltaLog({self.table_path!r})"

    # Version checksums.

    def write_checksum(self, version: int | None = None) -> str:
        """Writes the version checksum file ``_delta_log/<version>.crc`` of ``version`` (the
        latest when None), computed by replaying the log, and returns its path.

        Checksum files are never overwritten: an existing one that agrees with the replay is
        kept and its path returned (so this is idempotent); one that disagrees raises
        :class:`LogFileExistsError` (``LOG_FILE_EXISTS``).

        >>> log.write_checksum(3)
        'file:/data/events/_delta_log/00000000000000000003.crc'
        """
        text = None if version is None else _version_text(version)
        return str(call(self._facade.writeChecksum, self._jlog, text))

    def validate_checksum(self, version: int | None = None) -> DataFrame:
        """Validates the version checksum file of ``version`` (the latest when None) against
        a replay of the log; returns the mismatches (version, field, expected, actual), an
        empty DataFrame when the file is valid.

        Raises :class:`ChecksumNotFoundError` when the version has no checksum file and
        :class:`CorruptLogError` (``MALFORMED_LOG_FILE``) when it cannot be parsed.

        >>> log.validate_checksum(3).count() == 0
        True
        """
        text = None if version is None else _version_text(version)
        jdf = call(self._facade.validateChecksum, java_session(self._spark), self._jlog, text)
        return frame(jdf, self._spark)


def create_table(
    spark: SparkSession,
    path: str | os.PathLike[str],
    schema: StructType | str,
    partition_by: list[str] | None = None,
    properties: dict[str, str] | None = None,
) -> DeltaLog:
    """Creates a Delta table at ``path`` (version 0: protocol and metadata) and returns its log.

    ``schema`` is a :class:`pyspark.sql.types.StructType` or a DDL string; ``properties`` are
    table properties (``delta.*`` keys enable features, which choose the protocol). Raises
    :class:`txlog.errors.TableExistsError` when a table exists there.

    >>> log = txlog.create_table(spark, "/data/t", "id BIGINT, d DATE", partition_by=["d"],
    ...                          properties={"delta.enableChangeDataFeed": "true"})
    """
    text = _path_text(path)
    schema_text = _schema_text("schema", schema)
    parts = partition_by or []
    if not isinstance(parts, (list, tuple)) or not all(isinstance(c, str) for c in parts):
        raise TypeError("partition_by must be a list of column names")
    facade = jvm_facade(spark)
    jlog = call(
        facade.createTable, java_session(spark), text, schema_text, json.dumps(list(parts)),
        _str_map("properties", properties),
    )  # fmt: skip
    return DeltaLog(jlog, spark, facade)
