package txlog

import txlog.errors.TxlogErrors

/** Every error class txlog raises ([[TxlogException.errorClass]]): stable names that callers match
  * on (Python maps each to an exception class, the command line to an exit code), grouped by what
  * failed. Errors are built in `TxlogErrors`, `ScanErrors`, `TransactionErrors` and
  * `MaintenanceErrors` with these names only.
  *
  * {{{
  * catch { case e: TxlogException if e.errorClass == ErrorClasses.ConcurrentAppend => retry() }
  * }}}
  */
object ErrorClasses {
  // ---- Reading the log
  val DeltaTableNotFound = "DELTA_TABLE_NOT_FOUND"
  val VersionNotFound = "VERSION_NOT_FOUND"
  val TimestampOutOfRange = "TIMESTAMP_OUT_OF_RANGE"
  val LogVersionGap = "LOG_VERSION_GAP"
  val MissingLogFiles = "MISSING_LOG_FILES"
  val MalformedLogFile = "MALFORMED_LOG_FILE"
  val MissingProtocol = "MISSING_PROTOCOL"
  val MissingMetadata = "MISSING_METADATA"
  val InvalidProtocol = "INVALID_PROTOCOL"
  val LogReadFailed = "LOG_READ_FAILED"
  val ChecksumNotFound = "CHECKSUM_NOT_FOUND"

  // ---- Reading rows
  val DataFileNotFound = "DATA_FILE_NOT_FOUND"
  val DeletionVectorNotFound = "DELETION_VECTOR_NOT_FOUND"
  val DeletionVectorCorrupt = "DELETION_VECTOR_CORRUPT"
  val ChangeDataNotRecorded = "CHANGE_DATA_NOT_RECORDED"
  val ChangeDataSchemaIncompatible = "CHANGE_DATA_SCHEMA_INCOMPATIBLE"

  // ---- Features and the jar
  val UnsupportedReaderVersion = "UNSUPPORTED_READER_VERSION"
  val UnsupportedReaderFeatures = "UNSUPPORTED_READER_FEATURES"
  val UnsupportedWriterVersion = "UNSUPPORTED_WRITER_VERSION"
  val UnsupportedWriterFeatures = "UNSUPPORTED_WRITER_FEATURES"
  val JarSparkMismatch = "JAR_SPARK_MISMATCH"

  // ---- Arguments and settings
  val InvalidArgument = "INVALID_ARGUMENT"
  val InvalidSetting = "INVALID_SETTING"
  val CheckpointKindNotAllowed = "CHECKPOINT_KIND_NOT_ALLOWED"

  // ---- Writing log files
  val LogFileExists = "LOG_FILE_EXISTS"
  val LogWriteFailed = "LOG_WRITE_FAILED"
  val CheckpointVerificationFailed = "CHECKPOINT_VERIFICATION_FAILED"
  val StorageNotAtomic = "STORAGE_NOT_ATOMIC"
  val CommitOutcomeUnknown = "COMMIT_OUTCOME_UNKNOWN"

  // ---- Commits: writer rules
  val TableAlreadyExists = "TABLE_ALREADY_EXISTS"
  val InvalidCommitActions = "INVALID_COMMIT_ACTIONS"
  val InvalidMetadata = "INVALID_METADATA"
  val ProtocolDowngrade = "PROTOCOL_DOWNGRADE"
  val AppendOnlyViolation = "APPEND_ONLY_VIOLATION"
  val CommitRetriesExhausted = "COMMIT_RETRIES_EXHAUSTED"

  // Writing data
  val SchemaMismatch = "SCHEMA_MISMATCH"
  val ConstraintViolation = "CONSTRAINT_VIOLATION"
  val IdentityColumnViolation = "IDENTITY_COLUMN_VIOLATION"

  // ---- Commits: conflicts with a winning commit
  val ConcurrentAppend = "CONCURRENT_APPEND"
  val ConcurrentDeleteRead = "CONCURRENT_DELETE_READ"
  val ConcurrentDeleteDelete = "CONCURRENT_DELETE_DELETE"
  val ConcurrentTransaction = "CONCURRENT_TRANSACTION"
  val MetadataChanged = "METADATA_CHANGED"
  val ProtocolChanged = "PROTOCOL_CHANGED"

  // ---- Streaming
  val StreamingOffsetInvalid = "STREAMING_OFFSET_INVALID"
  val StreamingSourceDelete = "STREAMING_SOURCE_DELETE"
  val StreamingSourceUpdate = "STREAMING_SOURCE_UPDATE"
  val StreamingSourceSchemaChanged = "STREAMING_SOURCE_SCHEMA_CHANGED"

  // ---- Maintenance
  val VacuumRetentionTooShort = "VACUUM_RETENTION_TOO_SHORT"
  val CleanupRetentionTooShort = "CLEANUP_RETENTION_TOO_SHORT"
  val VacuumLiteNotPossible = "VACUUM_LITE_NOT_POSSIBLE"
  val VacuumUnrelatedPaths = "VACUUM_UNRELATED_PATHS"
  val RepairTooManyLostFiles = "REPAIR_TOO_MANY_LOST_FILES"
  val RestoreMissingFiles = "RESTORE_MISSING_FILES"

  /** Every class, in the order above. Example: `ErrorClasses.all.contains(e.errorClass)`. */
  val all: Seq[String] = Seq(
    DeltaTableNotFound,
    VersionNotFound,
    TimestampOutOfRange,
    LogVersionGap,
    MissingLogFiles,
    MalformedLogFile,
    MissingProtocol,
    MissingMetadata,
    InvalidProtocol,
    LogReadFailed,
    ChecksumNotFound,
    DataFileNotFound,
    DeletionVectorNotFound,
    DeletionVectorCorrupt,
    ChangeDataNotRecorded,
    ChangeDataSchemaIncompatible,
    UnsupportedReaderVersion,
    UnsupportedReaderFeatures,
    UnsupportedWriterVersion,
    UnsupportedWriterFeatures,
    JarSparkMismatch,
    InvalidArgument,
    InvalidSetting,
    CheckpointKindNotAllowed,
    LogFileExists,
    LogWriteFailed,
    CheckpointVerificationFailed,
    StorageNotAtomic,
    CommitOutcomeUnknown,
    TableAlreadyExists,
    InvalidCommitActions,
    InvalidMetadata,
    ProtocolDowngrade,
    AppendOnlyViolation,
    CommitRetriesExhausted,
    SchemaMismatch,
    ConstraintViolation,
    IdentityColumnViolation,
    ConcurrentAppend,
    ConcurrentDeleteRead,
    ConcurrentDeleteDelete,
    ConcurrentTransaction,
    MetadataChanged,
    ProtocolChanged,
    StreamingOffsetInvalid,
    StreamingSourceDelete,
    StreamingSourceUpdate,
    StreamingSourceSchemaChanged,
    VacuumRetentionTooShort,
    CleanupRetentionTooShort,
    VacuumLiteNotPossible,
    VacuumUnrelatedPaths,
    RepairTooManyLostFiles,
    RestoreMissingFiles
  )

  /** The SQLSTATE of each class ([[TxlogException.getSqlState]]), so Spark, SQL and Connect clients
    * report txlog's errors as Spark's own: the standard's classes where one fits (`42P01` no such
    * table, `23001` a constraint, `40001` a serialization failure, `0A000` not supported, `22023`
    * an invalid parameter value), `XX001` for a log that is corrupt, `58030` for a storage failure.
    * Example: `ErrorClasses.sqlState(ErrorClasses.ConcurrentAppend)` is `40001`.
    */
  val sqlState: Map[String, String] = Map(
    DeltaTableNotFound -> "42P01",
    VersionNotFound -> "22003",
    TimestampOutOfRange -> "22003",
    LogVersionGap -> "XX001",
    MissingLogFiles -> "XX001",
    MalformedLogFile -> "XX001",
    MissingProtocol -> "XX001",
    MissingMetadata -> "XX001",
    InvalidProtocol -> "XX001",
    LogReadFailed -> "58030",
    ChecksumNotFound -> "42K03",
    DataFileNotFound -> "42K03",
    DeletionVectorNotFound -> "42K03",
    DeletionVectorCorrupt -> "XX001",
    ChangeDataNotRecorded -> "55000",
    ChangeDataSchemaIncompatible -> "55000",
    UnsupportedReaderVersion -> "0A000",
    UnsupportedReaderFeatures -> "0A000",
    UnsupportedWriterVersion -> "0A000",
    UnsupportedWriterFeatures -> "0A000",
    JarSparkMismatch -> "0A000",
    InvalidArgument -> "22023",
    InvalidSetting -> "22023",
    CheckpointKindNotAllowed -> "22023",
    LogFileExists -> "42710",
    LogWriteFailed -> "58030",
    CheckpointVerificationFailed -> "XX001",
    StorageNotAtomic -> "0A000",
    CommitOutcomeUnknown -> "58030",
    TableAlreadyExists -> "42P07",
    InvalidCommitActions -> "42000",
    InvalidMetadata -> "42000",
    ProtocolDowngrade -> "0A000",
    AppendOnlyViolation -> "42000",
    CommitRetriesExhausted -> "40001",
    SchemaMismatch -> "42804",
    ConstraintViolation -> "23001",
    IdentityColumnViolation -> "42808",
    ConcurrentAppend -> "40001",
    ConcurrentDeleteRead -> "40001",
    ConcurrentDeleteDelete -> "40001",
    ConcurrentTransaction -> "40001",
    MetadataChanged -> "40001",
    ProtocolChanged -> "40001",
    StreamingOffsetInvalid -> "22023",
    StreamingSourceDelete -> "0A000",
    StreamingSourceUpdate -> "0A000",
    StreamingSourceSchemaChanged -> "55000",
    VacuumRetentionTooShort -> "22023",
    CleanupRetentionTooShort -> "22023",
    VacuumLiteNotPossible -> "55000",
    VacuumUnrelatedPaths -> "55000",
    RepairTooManyLostFiles -> "55000",
    RestoreMissingFiles -> "42K03"
  )
}
