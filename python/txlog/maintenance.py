"""Maintenance of a Delta table's log and files, the second half of :class:`txlog.DeltaLog`
(as ``TableMaintenance`` is of the Scala ``DeltaLog``): log compaction, metadata cleanup,
VACUUM, RESTORE, REPAIR, describe and validate.

>>> log = txlog.DeltaLog.for_table(spark, "/data/events")
>>> log.vacuum().files.show()        # dry run
>>> log.validate().where("severity = 'error'").count()
"""

from __future__ import annotations

import json
from datetime import date, datetime
from typing import Any

from pyspark.sql import DataFrame, SparkSession

from ._args import _timestamp_text, _version_text, _whole_number
from ._gateway import call, call_text, frame
from .repair import RepairResult
from .restore import RestoreResult, restore_flags
from .vacuum import VacuumResult, vacuum_options

__all__ = ["TableMaintenance"]


class TableMaintenance:
    """The maintenance operations of :class:`txlog.DeltaLog` (which this is a base of): each
    works on the table's latest version; every operation that deletes is a dry run unless
    told otherwise."""

    _jlog: Any
    _spark: SparkSession
    _facade: Any

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
        return frame(call(self._facade.cleanup, self._jlog, options), self._spark)

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
        return VacuumResult._from_jvm(jresult, self._spark, self._facade)

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
        return RepairResult._from_jvm(jresult, self._spark, self._facade)

    # ---- Maintenance: describe and validate ----

    def describe(self) -> dict[str, Any]:
        """DESCRIBE DETAIL's fields of the latest version (format, id, name, description,
        location, created_at and last_modified in ms since the epoch, partition_columns,
        num_files, size_in_bytes, properties, min_reader_version, min_writer_version,
        table_features, version) and ``health``: the log's newest checkpoint (version, kind,
        age), commits since it, log files and bytes, whether the latest version has a ``.crc``;
        and ``publishing``: how the storage publishes log files (scheme, method, and whether
        ``concurrent_writers`` are safe). Keys are snake_case, as in
        ``python -m txlog describe --json``.

        >>> d = log.describe()
        >>> d["num_files"], d["health"]["commits_since_checkpoint"]
        """
        return dict(json.loads(call_text(self._facade.describeTable, self._jlog)))

    def validate(self) -> DataFrame:
        """Audits the whole history as Spark jobs; returns the findings (version, file, rule,
        severity, detail). An intact table has none of severity ``error``.

        >>> log.validate().where("severity = 'error'").show(truncate=False)
        """
        return frame(call(self._facade.validate, self._jlog), self._spark)
