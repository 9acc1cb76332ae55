package txlog

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

  // ---- Commits: conflicts with a winning commit
  val ConcurrentAppend = "CONCURRENT_APPEND"
  val ConcurrentDeleteRead = "CONCURRENT_DELETE_READ"
  val ConcurrentDeleteDelete = "CONCURRENT_DELETE_DELETE"
  val ConcurrentTransaction = "CONCURRENT_TRANSACTION"
  val MetadataChanged = "METADATA_CHANGED"
  val ProtocolChanged = "PROTOCOL_CHANGED"

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
    ConcurrentAppend,
    ConcurrentDeleteRead,
    ConcurrentDeleteDelete,
    ConcurrentTransaction,
    MetadataChanged,
    ProtocolChanged,
    VacuumRetentionTooShort,
    CleanupRetentionTooShort,
    VacuumLiteNotPossible,
    VacuumUnrelatedPaths,
    RepairTooManyLostFiles,
    RestoreMissingFiles
  )
}
