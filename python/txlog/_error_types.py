"""The exception classes of :mod:`txlog.errors` (which re-exports them, with the map from the
JVM's error classes to them): one class per kind of failure a user handles differently."""

from __future__ import annotations

__all__ = [
    "TxlogError",
    "TableNotFoundError",
    "VersionNotFoundError",
    "TimestampOutOfRangeError",
    "CorruptLogError",
    "UnsupportedFeatureError",
    "LogReadError",
    "LogWriteError",
    "LogFileExistsError",
    "InvalidArgumentError",
    "InvalidSettingError",
    "JarNotFoundError",
    "JarVersionMismatchError",
    "JarSparkMismatchError",
    "UnsupportedSparkVersionError",
    "SparkNotConfiguredError",
    "ChecksumNotFoundError",
    "DataFileNotFoundError",
    "DeletionVectorError",
    "ChangeDataNotRecordedError",
    "ChangeDataSchemaError",
    "ProtocolDowngradeError",
    "InvalidMetadataError",
    "AppendOnlyViolationError",
    "ConcurrentModificationError",
    "ConcurrentAppendError",
    "ConcurrentDeleteReadError",
    "ConcurrentDeleteDeleteError",
    "MetadataChangedError",
    "ProtocolChangedError",
    "ConcurrentTransactionError",
    "TableExistsError",
    "InvalidCommitError",
    "CommitRetriesExhaustedError",
    "SchemaMismatchError",
    "ConstraintViolationError",
    "IdentityColumnError",
    "RetentionTooShortError",
    "VacuumLiteNotPossibleError",
    "VacuumUnrelatedPathsError",
    "RepairTooManyLostFilesError",
    "RestoreMissingFilesError",
    "StreamOffsetError",
    "StreamSourceChangedError",
    "StreamSchemaChangedError",
]


class TxlogError(Exception):
    """Base class of every txlog error.

    ``error_class`` is the JVM's stable error class (for example ``VERSION_NOT_FOUND``), or a
    Python-side class for errors raised before reaching the JVM; ``message`` is the full text.
    """

    #: Whether retrying the same call may succeed (a storage failure, not a broken log).
    retryable: bool = False

    def __init__(self, message: str, error_class: str | None = None,
                 file: str | None = None, version: int | None = None) -> None:
        super().__init__(message)
        self.message: str = message
        self.error_class: str | None = error_class
        #: The log file the error is about, when it is about one.
        self.file: str | None = file
        #: The table version of ``file``, when it has one.
        self.version: int | None = version

    def __str__(self) -> str:
        return self.message


class TableNotFoundError(TxlogError):
    """The path is not a Delta table (``DELTA_TABLE_NOT_FOUND``)."""


class VersionNotFoundError(TxlogError):
    """The asked version cannot be reconstructed from the log (``VERSION_NOT_FOUND``)."""


class TimestampOutOfRangeError(VersionNotFoundError):
    """No version is at or before the asked timestamp, or it is after the latest commit
    (``TIMESTAMP_OUT_OF_RANGE``)."""


class CorruptLogError(TxlogError):
    """The log breaks the protocol; ``error_class`` tells how (``LOG_VERSION_GAP``,
    ``MISSING_LOG_FILES``, ``MALFORMED_LOG_FILE``, ``MISSING_PROTOCOL``, ``MISSING_METADATA``,
    ``INVALID_PROTOCOL``)."""


class UnsupportedFeatureError(TxlogError):
    """The table needs a reader or writer version, or features, txlog does not implement
    (``UNSUPPORTED_READER_VERSION``, ``UNSUPPORTED_READER_FEATURES``,
    ``UNSUPPORTED_WRITER_VERSION``, ``UNSUPPORTED_WRITER_FEATURES``)."""


class LogReadError(TxlogError, OSError):
    """A storage failure while reading the log: permission denied, throttling, a network
    error, a file removed between listing and reading (``LOG_READ_FAILED``). Not corruption:
    retrying may succeed. ``file`` names the file."""

    retryable = True


class LogWriteError(TxlogError, OSError):
    """A log file could not be written or failed verification; nothing partial was
    published (``LOG_WRITE_FAILED``, ``CHECKPOINT_VERIFICATION_FAILED``), or the storage
    cannot publish log files safely (``STORAGE_NOT_ATOMIC``: no atomic put-if-absent; see the
    docs/storage.md for ``spark.txlog.storage.*``), or a commit's outcome could not be
    read back (``COMMIT_OUTCOME_UNKNOWN``: ``version`` may or may not be this transaction's)."""


class LogFileExistsError(LogWriteError, FileExistsError):
    """A log file to be written already exists, and log files are never overwritten
    (``LOG_FILE_EXISTS``)."""


class InvalidArgumentError(TxlogError, ValueError):
    """An argument was rejected by the JVM (``INVALID_ARGUMENT``)."""


class InvalidSettingError(TxlogError, ValueError):
    """A ``spark.txlog.*`` session setting has a value that does not parse or is out of range
    (``INVALID_SETTING``); the message names the key and what it must be. Nothing was read or
    written. The settings are listed in ``docs/configuration.md``."""


class JarNotFoundError(TxlogError, FileNotFoundError):
    """The txlog jar could not be found (``JAR_NOT_FOUND``)."""

    def __init__(self, message: str) -> None:
        super().__init__(message, "JAR_NOT_FOUND")


class JarVersionMismatchError(TxlogError):
    """The txlog jar's version differs from the Python package's (``JAR_VERSION_MISMATCH``)."""

    def __init__(self, message: str, python_version: str, jar_version: str) -> None:
        super().__init__(message, "JAR_VERSION_MISMATCH")
        self.python_version: str = python_version
        self.jar_version: str = jar_version


class JarSparkMismatchError(TxlogError):
    """The txlog jar is built for another Spark line or Scala version than the running Spark's
    (``JAR_SPARK_MISMATCH``). ``jar_line`` and ``spark_line`` read like ``"4.2_2.13"``; raised
    by Python before the JVM is used, or by the JVM (the lines then are None and the message
    names them) when a session was built without :func:`txlog.configure_spark`."""

    def __init__(self, message: str, jar_line: str | None, spark_line: str | None) -> None:
        super().__init__(message, "JAR_SPARK_MISMATCH")
        self.jar_line: str | None = jar_line
        self.spark_line: str | None = spark_line


class UnsupportedSparkVersionError(TxlogError):
    """txlog is not built for the running Spark release (``UNSUPPORTED_SPARK_VERSION``); the
    message names the supported Spark lines."""

    def __init__(self, message: str, spark_version: str) -> None:
        super().__init__(message, "UNSUPPORTED_SPARK_VERSION")
        self.spark_version: str = spark_version


class SparkNotConfiguredError(TxlogError):
    """The Spark session has no txlog classes: it was not built with
    :func:`txlog.configure_spark`, or its Spark Connect server runs without the settings of
    :func:`txlog.connect_server_settings` (``SPARK_NOT_CONFIGURED``)."""

    def __init__(self, message: str) -> None:
        super().__init__(message, "SPARK_NOT_CONFIGURED")


class ChecksumNotFoundError(TxlogError):
    """The version has no version checksum file ``_delta_log/<version>.crc``
    (``CHECKSUM_NOT_FOUND``); writers may skip them, so this is not corruption."""


# ---- Writer rules


class DataFileNotFoundError(TxlogError, FileNotFoundError):
    """A data file the log lists as live does not exist (``DATA_FILE_NOT_FOUND``); ``file`` is
    its path, ``version`` the table version read."""


class DeletionVectorError(TxlogError):
    """The deletion vector of a data file is missing (``DELETION_VECTOR_NOT_FOUND``) or cannot
    be read (``DELETION_VECTOR_CORRUPT``: wrong checksum, size or format); ``file`` is the data
    file, whose rows cannot be read without it."""


class ChangeDataNotRecordedError(TxlogError):
    """The change data feed was asked for over versions where it was not recorded
    (``CHANGE_DATA_NOT_RECORDED``); ``version`` is the first such version."""


class ChangeDataSchemaError(TxlogError):
    """The change data feed cannot read the range with the end version's schema
    (``CHANGE_DATA_SCHEMA_INCOMPATIBLE``): a column renamed, dropped or retyped inside it
    (``version`` is the schema change from which the range can be read), or a table column
    named as one the feed adds (``_change_type``, ``_commit_version``, ``_commit_timestamp``)."""


class ProtocolDowngradeError(TxlogError):
    """A commit would lower the protocol or drop a feature (``PROTOCOL_DOWNGRADE``)."""


class InvalidMetadataError(TxlogError, ValueError):
    """Staged metadata breaks the spec or changes what may not change (``INVALID_METADATA``)."""


class AppendOnlyViolationError(TxlogError):
    """A commit removes data from an append-only table (``APPEND_ONLY_VIOLATION``)."""


# ---- Transactions: conflicts


class ConcurrentModificationError(TxlogError):
    """A commit conflicts with one another writer published after the transaction started.

    ``winning_version`` is that commit's version; ``file`` is the first conflicting data file
    for conflicts about files (None otherwise). Start a new transaction and redo the work.
    """

    @property
    def winning_version(self) -> int | None:
        """The version of the winning commit. Example: ``e.winning_version``."""
        return self.version


class ConcurrentAppendError(ConcurrentModificationError):
    """The winner added files matching what the transaction read (``CONCURRENT_APPEND``)."""


class ConcurrentDeleteReadError(ConcurrentModificationError):
    """The winner removed files the transaction read (``CONCURRENT_DELETE_READ``)."""


class ConcurrentDeleteDeleteError(ConcurrentModificationError):
    """The winner removed files the transaction removes too (``CONCURRENT_DELETE_DELETE``)."""


class MetadataChangedError(ConcurrentModificationError):
    """The winner changed the table's metadata (``METADATA_CHANGED``)."""


class ProtocolChangedError(ConcurrentModificationError):
    """The winner changed the table's protocol (``PROTOCOL_CHANGED``)."""


class ConcurrentTransactionError(ConcurrentModificationError):
    """The winner wrote a ``txn`` application id or a domain the transaction read or wrote
    (``CONCURRENT_TRANSACTION``)."""


# ---- Transactions: commit ----


class TableExistsError(TxlogError):
    """A table already exists where one was to be created (``TABLE_ALREADY_EXISTS``)."""


class InvalidCommitError(TxlogError, ValueError):
    """The actions staged for a commit break the protocol; nothing was written
    (``INVALID_COMMIT_ACTIONS``)."""


class CommitRetriesExhaustedError(TxlogError):
    """Other writers kept winning the race for the next version until the retry limit
    (``spark.txlog.commit.maxAttempts``) was reached (``COMMIT_RETRIES_EXHAUSTED``)."""


# ---- Writing data ----


class SchemaMismatchError(TxlogError, ValueError):
    """The data written does not match the table's schema or partitioning; nothing was written
    (``SCHEMA_MISMATCH``)."""


class ConstraintViolationError(TxlogError, ValueError):
    """A row written breaks a constraint of the table (a null in a NOT NULL column); no commit
    was made (``CONSTRAINT_VIOLATION``)."""


class IdentityColumnError(TxlogError, ValueError):
    """A write gives values for a ``GENERATED ALWAYS AS IDENTITY`` column, or a statement updates
    an identity column; nothing was written (``IDENTITY_COLUMN_VIOLATION``)."""


# ---- VACUUM ----


class RetentionTooShortError(InvalidArgumentError):
    """A vacuum's retention is shorter than the table's ``delta.deletedFileRetentionDuration``
    and was not forced (``VACUUM_RETENTION_TOO_SHORT``)."""


class VacuumLiteNotPossibleError(TxlogError):
    """A lite vacuum needs the remove actions of commits that were cleaned up and no earlier
    vacuum covered; run a full vacuum once (``VACUUM_LITE_NOT_POSSIBLE``)."""


# ---- RESTORE ----


class VacuumUnrelatedPathsError(TxlogError):
    """The log names paths on another store than the table root's (another scheme or
    authority); vacuum cannot prove they are not live files below the root under another name,
    so it deleted nothing (``VACUUM_UNRELATED_PATHS``). Pass ``allow_unrelated_paths=True``
    once you know they lie elsewhere."""


class RepairTooManyLostFilesError(TxlogError):
    """A repair would remove more than 10% of the live files, which usually means an unmounted
    path or a wrong root rather than lost data; nothing was removed
    (``REPAIR_TOO_MANY_LOST_FILES``). Pass ``force=True`` once the files are known gone."""


class RestoreMissingFilesError(TxlogError):
    """Data files of the version to restore no longer exist (deleted by hand or by VACUUM); the
    message names some of them, ``file`` the first; pass ``force=True`` to restore anyway
    (``RESTORE_MISSING_FILES``)."""


class StreamOffsetError(TxlogError):
    """A stream's checkpoint holds an offset txlog cannot resume from: another table's, or of a
    format it does not know (``STREAMING_OFFSET_INVALID``)."""


class StreamSourceChangedError(TxlogError):
    """A stream of a table met a commit that deletes (``STREAMING_SOURCE_DELETE``) or rewrites
    (``STREAMING_SOURCE_UPDATE``) rows; ``version`` is that commit. The options ``ignoreDeletes``,
    ``ignoreChanges`` and ``skipChangeCommits`` say what to do with them instead."""


class StreamSchemaChangedError(TxlogError):
    """A stream of a table met a commit that changes its schema
    (``STREAMING_SOURCE_SCHEMA_CHANGED``); ``version`` is that commit. Restarting the query reads
    with the new schema."""


# Shown, pickled and documented as txlog.errors' classes, where users import them from.
for _name in __all__:
    globals()[_name].__module__ = "txlog.errors"
