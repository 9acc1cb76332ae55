"""The result classes of txlog's Python API, generated from the Scala results' summary
shapes (``Summary`` beside each result in src/main/scala/txlog) by ``make python-summaries``.
Do not edit: PythonSummariesSuite fails when this file is not what the shapes give.

Each class is built from the JVM result's summary (JSON, the same snake_case names) by
``_of``; those with DataFrames and JVM handles take them as keyword arguments.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, fields
from typing import Any

from pyspark.sql import DataFrame

from ._result_methods import RepairMethods, VacuumMethods

__all__ = [
    "WriteResult",
    "DeleteResult",
    "UpdateResult",
    "MergeResult",
    "OptimizeResult",
    "CommitResult",
    "CheckpointResult",
    "RestoreResult",
    "VacuumResult",
    "RepairResult",
]


def _from_summary(cls: Any, summary: str, extra: dict[str, Any]) -> Any:
    doc = json.loads(summary)
    names = [f.name for f in fields(cls) if f.init and f.name not in extra]
    return cls(**{n: doc[n] for n in names}, **extra)


@dataclass(frozen=True)
class WriteResult:
    """What :func:`txlog.write` did.

    ``version`` is the version committed, or the table's latest version when nothing was
    committed (``committed`` false: mode ``ignore`` on an existing table, or an application
    version the table already holds). ``num_files`` data files were written holding
    ``num_output_rows`` rows in ``num_output_bytes`` bytes; ``num_removed_files`` files were
    removed (overwrite); ``attempts`` counts the versions tried.
    """

    mode: str
    version: int
    committed: bool
    num_files: int
    num_output_rows: int
    num_output_bytes: int
    num_removed_files: int
    attempts: int

    @classmethod
    def _of(cls, summary: str, **extra: Any) -> WriteResult:
        return _from_summary(cls, summary, extra)  # type: ignore[no-any-return]


@dataclass(frozen=True)
class DeleteResult:
    """What :meth:`txlog.DeltaLog.delete` did: ``num_removed_files`` files of
    ``num_removed_bytes`` bytes removed in ``version`` (``committed`` false, and the latest
    version, when no file matched); ``num_deleted_rows`` is None when a removed file has no row
    count in its statistics.
    """

    version: int
    committed: bool
    num_removed_files: int
    num_removed_bytes: int
    num_deleted_rows: int | None

    @classmethod
    def _of(cls, summary: str, **extra: Any) -> DeleteResult:
        return _from_summary(cls, summary, extra)  # type: ignore[no-any-return]


@dataclass(frozen=True)
class UpdateResult:
    """What :meth:`txlog.DeltaLog.update` did with a ``set``: ``num_updated_rows`` rows updated
    in ``version`` (``committed`` false, and the version read, when no row matched), written
    into ``num_added_files`` new files; ``num_removed_files`` files were touched (given a
    deletion vector or removed).
    """

    version: int
    committed: bool
    num_updated_rows: int
    num_added_files: int
    num_removed_files: int

    @classmethod
    def _of(cls, summary: str, **extra: Any) -> UpdateResult:
        return _from_summary(cls, summary, extra)  # type: ignore[no-any-return]


@dataclass(frozen=True)
class MergeResult:
    """What :meth:`txlog.MergeBuilder.execute` did: ``num_affected_rows`` rows changed in
    ``version`` (``committed`` false, and the version read, when nothing changed), of them
    ``num_updated_rows`` updated, ``num_deleted_rows`` deleted and ``num_inserted_rows``
    inserted; ``num_added_files`` files written, ``num_removed_files`` removed
    whole.
    """

    version: int
    committed: bool
    num_affected_rows: int
    num_updated_rows: int
    num_deleted_rows: int
    num_inserted_rows: int
    num_added_files: int
    num_removed_files: int

    @classmethod
    def _of(cls, summary: str, **extra: Any) -> MergeResult:
        return _from_summary(cls, summary, extra)  # type: ignore[no-any-return]


@dataclass(frozen=True)
class OptimizeResult:
    """What :meth:`txlog.DeltaLog.optimize` did (or, with ``dry_run``, would do):
    ``num_removed_files`` files of ``num_removed_bytes`` bytes compacted in ``num_bins`` groups
    into ``num_added_files`` files of ``num_added_bytes`` bytes, committed as ``version``
    (``committed`` false in a dry run or when nothing was worth compacting).
    ``num_files_considered`` files were small enough; ``num_files_remaining`` of them are left
    for another run (one run compacts at most 100,000). ``num_conflicted_bins`` bins were left as
    they were because a concurrent commit removed one of their files (the others committed).
    """

    version: int
    committed: bool
    dry_run: bool
    num_bins: int
    num_removed_files: int
    num_removed_bytes: int
    num_added_files: int
    num_added_bytes: int
    num_files_considered: int
    num_files_remaining: int
    num_conflicted_bins: int

    @classmethod
    def _of(cls, summary: str, **extra: Any) -> OptimizeResult:
        return _from_summary(cls, summary, extra)  # type: ignore[no-any-return]


@dataclass(frozen=True)
class CommitResult:
    """What :meth:`Transaction.commit` did: the version, whether it committed (False when skipped
    as idempotent: the table already held the transaction's app id at or past its version), how
    many versions were tried, the checkpoint written after it (its version, or None), the version
    checksum file written after it (its path, or None) and the post-commit steps that failed (the
    commit stands).
    """

    version: int
    committed: bool
    attempts: int
    checkpoint_version: int | None
    checksum: str | None
    post_commit_problems: list[str]

    @classmethod
    def _of(cls, summary: str, **extra: Any) -> CommitResult:
        return _from_summary(cls, summary, extra)  # type: ignore[no-any-return]


@dataclass(frozen=True)
class CheckpointResult:
    """What :meth:`DeltaLog.checkpoint` wrote: the checkpoint's files in ``_delta_log`` (all
    parts of a multi-part one), the sidecars of a V2 one, and its action counts.
    ``already_existed`` is true when the checkpoint was already there and was left untouched
    (a checkpoint of the same version has the same content).
    """

    version: int
    kind: str
    files: list[str]
    sidecars: list[str]
    num_actions: int
    num_add_files: int
    num_remove_files: int
    size_in_bytes: int
    already_existed: bool

    @classmethod
    def _of(cls, summary: str, **extra: Any) -> CheckpointResult:
        return _from_summary(cls, summary, extra)  # type: ignore[no-any-return]


@dataclass(frozen=True)
class RestoreResult:
    """What a restore did, with delta-spark's RESTORE metrics.

    ``restored_version`` is the version the table was restored to (the one asked for, or the
    one the timestamp resolved to); ``read_version`` the latest version when it started;
    ``version`` the version of the ``RESTORE`` commit (None in a dry run, or when the table
    already was at ``restored_version``). ``num_restored_files`` / ``restored_files_size``
    count the files added back, ``num_removed_files`` / ``removed_files_size`` those removed;
    ``num_of_files_after_restore`` / ``table_size_after_restore`` describe the restored
    version.
    """

    table_path: str
    dry_run: bool
    restored_version: int
    read_version: int
    version: int | None
    table_size_after_restore: int
    num_of_files_after_restore: int
    num_removed_files: int
    num_restored_files: int
    removed_files_size: int
    restored_files_size: int

    @classmethod
    def _of(cls, summary: str, **extra: Any) -> RestoreResult:
        return _from_summary(cls, summary, extra)  # type: ignore[no-any-return]


@dataclass(frozen=True)
class VacuumResult(VacuumMethods):
    """What a vacuum found, and deleted unless it was a dry run.

    ``mode`` is ``"full"`` (the table directory was listed) or ``"lite"`` (the log's remove
    actions were read). ``num_files`` and ``size_in_bytes`` count the files and empty
    directories to delete; ``num_deleted_files`` those deleted (0 in a dry run) and
    ``num_failed_deletes`` those the storage refused to delete (their ``deleted`` is false).
    ``num_skipped_paths`` counts paths in the log vacuum left alone (outside the table root,
    unresolvable, or in a hidden directory), ``skipped_path_examples`` shows up to 10.
    ``start_commit`` and ``end_commit`` are the versions of the ``VACUUM START`` and
    ``VACUUM END`` commits (None in a dry run). ``files`` has one row per file or directory:
    ``path`` relative to the table root (unescaped), ``size``, ``isDirectory``, ``deleted``;
    it is persisted until :meth:`unpersist`.
    """

    table_path: str
    dry_run: bool
    mode: str
    retention_hours: float
    delete_before: int
    num_files: int
    size_in_bytes: int
    num_deleted_files: int
    num_failed_deletes: int
    num_vacuumed_directories: int
    num_skipped_paths: int
    skipped_path_examples: list[str]
    start_commit: int | None
    end_commit: int | None
    problems: list[str]
    files: DataFrame = field(repr=False, compare=False)
    _jresult: Any = field(repr=False, compare=False, default=None)
    _facade: Any = field(repr=False, compare=False, default=None)

    @classmethod
    def _of(cls, summary: str, **extra: Any) -> VacuumResult:
        return _from_summary(cls, summary, extra)  # type: ignore[no-any-return]


@dataclass(frozen=True)
class RepairResult(RepairMethods):
    """What a repair did, or would do in a dry run.

    ``num_checkpoints_rewritten`` and ``num_checksums_rewritten`` count the checkpoints and
    ``.crc`` files set aside and written again; ``last_checkpoint_rewritten`` says whether
    ``_last_checkpoint`` was rebuilt (or deleted, when no checkpoint is left);
    ``num_files_removed`` / ``size_of_files_removed`` count the files whose data or deletion
    vector file is missing, removed by the ``FSCK`` commit of version ``commit_version``
    (None in a dry run or when there were none); ``num_not_repairable`` counts the faults left
    as they are (version gaps, checkpoints no commits rebuild, size mismatches).
    ``set_aside_dir`` is where the replaced log files went. ``actions`` has one row per action
    (``action``, ``version``, ``file``, ``rule``, ``detail``, ``done``); it is persisted until
    :meth:`unpersist`.
    """

    table_path: str
    dry_run: bool
    num_checkpoints_rewritten: int
    num_checksums_rewritten: int
    last_checkpoint_rewritten: bool
    num_files_removed: int
    size_of_files_removed: int
    num_not_repairable: int
    commit_version: int | None
    set_aside_dir: str | None
    actions: DataFrame = field(repr=False, compare=False)
    _jresult: Any = field(repr=False, compare=False, default=None)
    _facade: Any = field(repr=False, compare=False, default=None)

    @classmethod
    def _of(cls, summary: str, **extra: Any) -> RepairResult:
        return _from_summary(cls, summary, extra)  # type: ignore[no-any-return]
