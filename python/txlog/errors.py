"""Exceptions raised by txlog.

Errors raised by the JVM carry a stable error class (``txlog.TxlogException.getErrorClass()``);
they are mapped to the Python classes (defined in ``txlog._error_types``, re-exported here) by
that class, never by message text.

>>> try:
...     log.snapshot(version=99)
... except VersionNotFoundError as e:
...     print(e.error_class)  # VERSION_NOT_FOUND
"""

from __future__ import annotations

from ._error_types import *  # noqa: F403 - re-exported: the public classes
from ._error_types import __all__ as _classes

__all__ = [*_classes, "ERROR_CLASSES", "error_for"]


#: JVM error class -> Python exception class. Unknown classes map to :class:`TxlogError`.
ERROR_CLASSES: dict[str, type[TxlogError]] = {
    "DELTA_TABLE_NOT_FOUND": TableNotFoundError,
    "VERSION_NOT_FOUND": VersionNotFoundError,
    "TIMESTAMP_OUT_OF_RANGE": TimestampOutOfRangeError,
    "LOG_VERSION_GAP": CorruptLogError,
    "MISSING_LOG_FILES": CorruptLogError,
    "MALFORMED_LOG_FILE": CorruptLogError,
    "MISSING_PROTOCOL": CorruptLogError,
    "MISSING_METADATA": CorruptLogError,
    "INVALID_PROTOCOL": CorruptLogError,
    "UNSUPPORTED_READER_VERSION": UnsupportedFeatureError,
    "UNSUPPORTED_READER_FEATURES": UnsupportedFeatureError,
    "UNSUPPORTED_WRITER_VERSION": UnsupportedFeatureError,
    "UNSUPPORTED_WRITER_FEATURES": UnsupportedFeatureError,
    "CHECKPOINT_KIND_NOT_ALLOWED": InvalidArgumentError,
    "LOG_FILE_EXISTS": LogFileExistsError,
    "LOG_WRITE_FAILED": LogWriteError,
    "LOG_READ_FAILED": LogReadError,
    "CHECKPOINT_VERIFICATION_FAILED": LogWriteError,
    "STORAGE_NOT_ATOMIC": LogWriteError,
    "COMMIT_OUTCOME_UNKNOWN": LogWriteError,
    "INVALID_ARGUMENT": InvalidArgumentError,
    "INVALID_SETTING": InvalidSettingError,
    "CHECKSUM_NOT_FOUND": ChecksumNotFoundError,
    # ---- Reading rows
    "DATA_FILE_NOT_FOUND": DataFileNotFoundError,
    "DELETION_VECTOR_NOT_FOUND": DeletionVectorError,
    "DELETION_VECTOR_CORRUPT": DeletionVectorError,
    "CHANGE_DATA_NOT_RECORDED": ChangeDataNotRecordedError,
    "CHANGE_DATA_SCHEMA_INCOMPATIBLE": ChangeDataSchemaError,
    # ---- Writer rules
    "PROTOCOL_DOWNGRADE": ProtocolDowngradeError,
    "INVALID_METADATA": InvalidMetadataError,
    "APPEND_ONLY_VIOLATION": AppendOnlyViolationError,
    # ---- Transactions: conflicts
    "CONCURRENT_APPEND": ConcurrentAppendError,
    "CONCURRENT_DELETE_READ": ConcurrentDeleteReadError,
    "CONCURRENT_DELETE_DELETE": ConcurrentDeleteDeleteError,
    "METADATA_CHANGED": MetadataChangedError,
    "PROTOCOL_CHANGED": ProtocolChangedError,
    "CONCURRENT_TRANSACTION": ConcurrentTransactionError,
    # ---- Transactions: commit ----
    "TABLE_ALREADY_EXISTS": TableExistsError,
    "INVALID_COMMIT_ACTIONS": InvalidCommitError,
    "COMMIT_RETRIES_EXHAUSTED": CommitRetriesExhaustedError,
    # ---- Writing data ----
    "SCHEMA_MISMATCH": SchemaMismatchError,
    "CONSTRAINT_VIOLATION": ConstraintViolationError,
    "IDENTITY_COLUMN_VIOLATION": IdentityColumnError,
    # ---- Streaming ----
    "STREAMING_OFFSET_INVALID": StreamOffsetError,
    "STREAMING_SOURCE_DELETE": StreamSourceChangedError,
    "STREAMING_SOURCE_UPDATE": StreamSourceChangedError,
    "STREAMING_SOURCE_SCHEMA_CHANGED": StreamSchemaChangedError,
    # ---- VACUUM ----
    "VACUUM_RETENTION_TOO_SHORT": RetentionTooShortError,
    "CLEANUP_RETENTION_TOO_SHORT": RetentionTooShortError,
    "VACUUM_LITE_NOT_POSSIBLE": VacuumLiteNotPossibleError,
    "VACUUM_UNRELATED_PATHS": VacuumUnrelatedPathsError,
    "REPAIR_TOO_MANY_LOST_FILES": RepairTooManyLostFilesError,
    # ---- RESTORE ----
    "RESTORE_MISSING_FILES": RestoreMissingFilesError,
    # ---- The jar ----
    "JAR_SPARK_MISMATCH": JarSparkMismatchError,
}


def error_for(error_class: str | None, message: str, file: str | None = None,
              version: int | None = None) -> TxlogError:
    """The Python exception for a JVM error class. Example:
    ``error_for("LOG_VERSION_GAP", "...")`` is a :class:`CorruptLogError`."""
    cls = ERROR_CLASSES.get(error_class or "", TxlogError)
    if cls is JarSparkMismatchError:
        return JarSparkMismatchError(message, None, None)
    err = cls(message, error_class, file, version)
    if error_class == "LOG_WRITE_FAILED":
        err.retryable = True
    return err
