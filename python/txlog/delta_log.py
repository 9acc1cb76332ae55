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
import operator
import os
from dataclasses import dataclass
from datetime import date, datetime, timezone
from typing import Any

from pyspark.sql import DataFrame, SparkSession

from ._gateway import call, call_text, java_session, jvm_facade
from .snapshot import Snapshot
from .repair import RepairResult
from .restore import RestoreResult, restore_flags
from .vacuum import VacuumResult, vacuum_options

__all__ = ["DeltaLog", "CheckpointResult"]


@dataclass(frozen=True)
class CheckpointResult:
    """What :meth:`DeltaLog.checkpoint` wrote: the checkpoint's files in ``_delta_log`` (all
    parts of a multi-part one), the sidecars of a V2 one, and its action counts.
    ``already_existed`` is true when the checkpoint was already there and was left untouched
    (a checkpoint of the same version has the same content)."""

    version: int
    kind: str
    files: list[str]
    sidecars: list[str]
    num_actions: int
    num_add_files: int
    num_remove_files: int
    size_in_bytes: int
    already_existed: bool = False


def _path_text(path: str | os.PathLike[str]) -> str:
    if isinstance(path, (str, os.PathLike)):
        text = os.fspath(path)
        if isinstance(text, str):
            if not text.strip():
                raise ValueError("path must be a non-empty table path")
            return text
    raise TypeError(f"path must be a str or os.PathLike[str], got {type(path).__name__}")


def _whole_number(name: str, value: Any) -> str:
    """``value`` as the text of a non-negative int; TypeError/ValueError naming ``name``."""
    if isinstance(value, bool):
        raise TypeError(f"{name} must be an int, got bool")
    try:
        v = operator.index(value)
    except TypeError:
        raise TypeError(f"{name} must be an int, got {type(value).__name__}") from None
    if v < 0:
        raise ValueError(f"{name} must be a non-negative int, got {v}")
    return str(v)


def _version_text(version: Any) -> str:
    return _whole_number("version", version)


def _timestamp_text(timestamp: Any) -> str:
    """Text the JVM parses (see ``txlog.DeltaLog.snapshotAsOf(String)``).

    Naive datetimes are sent as ``yyyy-MM-dd HH:mm:ss.ffffff``, which is read in the Spark
    session time zone (``spark.sql.session.timeZone``), like a string; aware datetimes are
    converted to UTC and sent as ISO-8601 ``...Z``; dates mean midnight in the session time
    zone; strings are passed through unchanged.
    """
    if isinstance(timestamp, datetime):
        if timestamp.tzinfo is not None and timestamp.utcoffset() is not None:
            u = timestamp.astimezone(timezone.utc)
            return (f"{u.year:04d}-{u.month:02d}-{u.day:02d}T{u.hour:02d}:{u.minute:02d}:"
                    f"{u.second:02d}.{u.microsecond:06d}Z")
        t = timestamp
        return (f"{t.year:04d}-{t.month:02d}-{t.day:02d} {t.hour:02d}:{t.minute:02d}:"
                f"{t.second:02d}.{t.microsecond:06d}")
    if isinstance(timestamp, date):
        return f"{timestamp.year:04d}-{timestamp.month:02d}-{timestamp.day:02d}"
    if isinstance(timestamp, str):
        if not timestamp.strip():
            raise ValueError("timestamp must be a non-empty timestamp string")
        return timestamp
    raise TypeError(
        f"timestamp must be a str, datetime or date, got {type(timestamp).__name__}"
    )


class DeltaLog:
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

    def start_transaction(self) -> Any:
        """A :class:`txlog.Transaction` on the latest snapshot.

        >>> txn = log.start_transaction()
        >>> txn.add_files(new_files).commit()
        """
        from .transaction import Transaction

        return Transaction(call(self._facade.startTransaction, self._jlog), self._spark,
                           self._facade)

    @property
    def table_path(self) -> str:
        """The table's qualified root path, e.g. ``file:/data/events``."""
        return str(call(self._jlog.tablePath))

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
        if version is not None and timestamp is not None:
            raise ValueError("give either version or timestamp, not both")
        options: dict[str, str] = {}
        if version is not None:
            options["version"] = _version_text(version)
        if timestamp is not None:
            options["timestamp"] = _timestamp_text(timestamp)
        # py4j (auto_convert, as PySpark sets it up) passes the dict as a java.util.Map; no
        # options go as null, which saves building an empty map in the JVM.
        return self._wrap(call(self._facade.snapshot, self._jlog, options or None))

    def update(self) -> Snapshot:
        """The latest snapshot, reading only the commits added since the last snapshot this
        log returned (and reusing its cached files when it was cached)."""
        return self._wrap(call(self._facade.update, self._jlog))

    def history(self) -> DataFrame:
        """The commit history, newest first: version, timestamp, operation,
        operationParameters and the other commitInfo fields."""
        return DataFrame(call(self._facade.history, self._jlog), self._spark)

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
            if kind not in ("classic", "multipart", "v2"):
                raise ValueError(f"kind must be 'classic', 'multipart' or 'v2', got {kind!r}")
            options["kind"] = kind
        if parts is not None:
            if isinstance(parts, bool) or not isinstance(parts, int):
                raise TypeError(f"parts must be an int, got {type(parts).__name__}")
            if parts < 2:
                raise ValueError(f"parts must be at least 2, got {parts}")
            options["parts"] = str(parts)
        if format is not None:
            if format not in ("parquet", "json"):
                raise ValueError(f"format must be 'parquet' or 'json', got {format!r}")
            options["format"] = format
        if sidecars is not None:
            if not isinstance(sidecars, bool):
                raise TypeError(f"sidecars must be a bool, got {type(sidecars).__name__}")
            options["sidecars"] = "true" if sidecars else "false"
        doc = json.loads(call_text(self._facade.checkpoint, self._jlog, options))
        return CheckpointResult(
            version=int(doc["version"]),
            kind=str(doc["kind"]),
            files=[str(f) for f in doc["files"]],
            sidecars=[str(f) for f in doc["sidecars"]],
            num_actions=int(doc["num_actions"]),
            num_add_files=int(doc["num_add_files"]),
            num_remove_files=int(doc["num_remove_files"]),
            size_in_bytes=int(doc["size_in_bytes"]),
            already_existed=bool(doc.get("already_existed", False)),
        )

    def _wrap(self, jsnapshot: Any) -> Snapshot:
        return Snapshot(jsnapshot, self._spark, self._facade)

    def __repr__(self) -> str:
        return f"DeltaLog({self.table_path!r})"

    # Version checksums.

    def write_checksum(self, version: int | None = None) -> str:
        """Writes the version checksum file ``_delta_log/<version>.crc`` of ``version`` (the
        latest when None), computed by replaying the log, and returns its path.

        Checksum files are never overwritten: an existing one raises a :class:`TxlogError`
        with error class ``LOG_FILE_EXISTS``.

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
        return DataFrame(jdf, self._spark)

    # ---- Log hygiene: log compaction and metadata cleanup ----

    def compact(self, start: int, end: int) -> str:
        """Writes the log compaction file of commits ``start`` to ``end`` (the reconciled
        actions of those commits, which readers then use instead of them) and returns its
        path. Nothing changes if the same compaction exists already.

        Raises :class:`~txlog.errors.InvalidArgumentError` unless ``start <= end <=`` the
        latest version and every commit in between exists, and
        :class:`~txlog.errors.LogFileExistsError` if a different file of that name exists.

        >>> log.compact(0, 9)
        'file:/data/events/_delta_log/00000000000000000000.00000000000000000009.compacted.json'
        """
        start_text = _whole_number("start", start)
        end_text = _whole_number("end", end)
        if int(start_text) > int(end_text):
            raise ValueError(f"start ({start_text}) must not be after end ({end_text})")
        return str(call(self._facade.compact, self._jlog, start_text, end_text))

    def cleanup(self, retention: str | None = None, dry_run: bool = True,
                force: bool = False) -> DataFrame:
        """Metadata cleanup: finds (and unless ``dry_run``, deletes) the log files no version
        from the newest commit older than midnight UTC of (now - ``retention``) on needs.

        ``retention`` is a duration such as ``"30 days"`` or ``"interval 2 days"`` (default:
        the table's ``delta.logRetentionDuration``, 30 days unless set). Returns one row per
        candidate file (path, kind, version, sizeInBytes, modificationTime, deleted,
        reason), with a row of kind ``"none"`` saying why when no log file may go. Temporary
        files and staging directories of txlog writers that died, over a day old, go whatever
        the retention (kind ``"leftover"``). A retention shorter than the table's raises
        :class:`~txlog.errors.RetentionTooShortError` unless ``force``; with
        ``delta.enableExpiredLogCleanup`` false no log file goes; a cutoff checkpoint that
        cannot be read blocks the cleanup; a failed delete stops the log files' deletes after
        it (``deleted`` false, ``reason`` says why).

        >>> log.cleanup().show()                          # dry run: what would be deleted
        >>> log.cleanup("7 days", dry_run=False, force=True)  # delete it, below the default
        """
        options: dict[str, str] = {}
        if retention is not None:
            if not isinstance(retention, str):
                raise TypeError(f"retention must be a str, got {type(retention).__name__}")
            if not retention.strip():
                raise ValueError("retention must be a non-empty duration such as '30 days'")
            options["retention"] = retention
        for name, value in (("dry_run", dry_run), ("force", force)):
            if not isinstance(value, bool):
                raise TypeError(f"{name} must be a bool, got {type(value).__name__}")
        options["dryRun"] = "true" if dry_run else "false"
        options["force"] = "true" if force else "false"
        return DataFrame(call(self._facade.cleanup, self._jlog, options), self._spark)

    # ---- VACUUM ----

    def vacuum(
        self,
        retention_hours: float | None = None,
        dry_run: bool = True,
        lite: bool = False,
        force: bool = False,
        allow_unrelated_paths: bool = False,
    ) -> VacuumResult:
        """Deletes the data files (and empty directories) no version within the retention
        needs; a dry run (the default) deletes nothing and says what would go.

        ``retention_hours`` defaults to the table's ``delta.deletedFileRetentionDuration``
        (7 days) and is rounded to whole hours; a shorter one raises
        :class:`~txlog.errors.RetentionTooShortError` unless ``force``. ``lite`` reads only
        the remove actions of commits older than the cutoff instead of listing the table
        (:class:`~txlog.errors.VacuumLiteNotPossibleError` when those commits were cleaned
        up). Hidden files, ``_delta_log`` and anything outside the table root are never
        touched. A path in the log on another store than the root's (another scheme or
        authority, which may be a live file under another name) raises
        :class:`~txlog.errors.VacuumUnrelatedPathsError` before anything is deleted, unless
        ``allow_unrelated_paths``. Unless a dry run, ``VACUUM START`` and ``VACUUM END``
        commits record it.

        >>> log.vacuum().files.show()                      # dry run, 7 days
        >>> r = log.vacuum(retention_hours=24, dry_run=False, force=True)
        >>> r.num_deleted_files, r.size_in_bytes
        >>> r.unpersist()
        """
        options = vacuum_options(retention_hours, dry_run, lite, force, allow_unrelated_paths)
        jresult = call(self._facade.vacuum, self._jlog, options)
        return VacuumResult._of(jresult, self._spark, self._facade)

    # ---- RESTORE ----

    def restore(
        self,
        version: int | None = None,
        timestamp: str | datetime | date | None = None,
        force: bool = False,
        dry_run: bool = False,
    ) -> RestoreResult:
        """Restores the table to an older version, given as ``version`` or ``timestamp``
        (exactly one; the latest commit at or before the timestamp, read as
        :meth:`snapshot` reads a timestamp), with one ``RESTORE`` commit, by delta-spark's rules:
        files live then but not now are added back, files live now but not then removed, the
        old metadata restored; the protocol is never downgraded. No data file is deleted.

        Raises :class:`~txlog.errors.RestoreMissingFilesError` when files to add back are gone
        from storage (unless ``force``), :class:`~txlog.errors.VersionNotFoundError` /
        :class:`~txlog.errors.TimestampOutOfRangeError` as time travel does, and the
        transaction's conflict errors when another writer changed the files meanwhile. A dry
        run computes the metrics and commits nothing.

        >>> r = log.restore(version=3)
        >>> r.version, r.num_restored_files, r.num_removed_files
        >>> log.restore(timestamp="2024-06-01 00:00:00", dry_run=True).num_removed_files
        """
        if (version is None) == (timestamp is None):
            raise ValueError("give exactly one of version and timestamp")
        options = restore_flags(force, dry_run)
        if version is not None:
            options["version"] = _version_text(version)
        else:
            options["timestamp"] = _timestamp_text(timestamp)
        return RestoreResult._of(call(self._facade.restore, self._jlog, options))

    # ---- REPAIR ----

    def repair(self, dry_run: bool = True, force: bool = False,
               remove_files_with_missing_dv: bool = False) -> RepairResult:
        """Fixes what :meth:`validate` finds and can be fixed without rewriting a commit: a
        checkpoint that cannot be read or disagrees with its commits is moved aside (to
        ``_txlog_set_aside/<time>/`` under the table root) and written again from the commits;
        a ``.crc`` that disagrees with its replay likewise; ``_last_checkpoint`` is rebuilt;
        files whose data file is missing are removed by one ``FSCK`` commit, those whose
        deletion vector file is missing only with ``remove_files_with_missing_dv`` (their
        surviving rows go too). More than 10% of the live files raises
        :class:`~txlog.errors.RepairTooManyLostFilesError` unless ``force``. Version gaps and
        other faults it cannot fix are reported as ``not-repairable``. A dry run (the default)
        only lists the actions.

        >>> log.repair().actions.show(truncate=False)
        >>> r = log.repair(dry_run=False)
        >>> r.num_files_removed, r.commit_version
        """
        flags = {"dryRun": ("dry_run", dry_run), "force": ("force", force),
                 "removeFilesWithMissingDv": (
                     "remove_files_with_missing_dv", remove_files_with_missing_dv)}
        for name, value in flags.values():
            if not isinstance(value, bool):
                raise TypeError(f"{name} must be a bool, got {type(value).__name__}")
        options = {key: "true" if value else "false" for key, (_, value) in flags.items()}
        jresult = call(self._facade.repair, self._jlog, options)
        return RepairResult._of(jresult, self._spark, self._facade)

    # ---- Maintenance: describe and validate ----

    def describe(self) -> dict[str, Any]:
        """DESCRIBE DETAIL's fields of the latest version (format, id, name, description,
        location, created_at and last_modified in ms since the epoch, partition_columns,
        num_files, size_in_bytes, properties, min_reader_version, min_writer_version,
        table_features, version) and ``health``: the log's newest checkpoint (version, kind,
        age), commits since it, log files and bytes, whether the latest version has a ``.crc``.
        Keys are snake_case, as in ``python -m txlog describe --json``.

        >>> d = log.describe()
        >>> d["num_files"], d["health"]["commits_since_checkpoint"]
        """
        return dict(json.loads(call_text(self._facade.describeTable, self._jlog)))

    def validate(self) -> DataFrame:
        """Audits the whole history as Spark jobs; returns the findings (version, file, rule,
        severity, detail). An intact table has none of severity ``error``.

        >>> log.validate().where("severity = 'error'").show(truncate=False)
        """
        return DataFrame(call(self._facade.validate, self._jlog), self._spark)
