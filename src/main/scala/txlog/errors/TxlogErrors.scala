package txlog.errors

import txlog.{BuildInfo, ErrorClasses, TxlogException}

/** Builds every user-facing error in one place, with a stable error class each. The Python package
  * maps these classes (never the messages) to typed exceptions. Those of transactions
  * ([[TransactionErrors]]), of reading rows ([[ScanErrors]]), of maintenance
  * ([[MaintenanceErrors]]) and of streams ([[StreamErrors]]) are written in files of their own; all
  * are called as `TxlogErrors.x`.
  */
private[txlog] object TxlogErrors
    extends ScanErrors
    with TransactionErrors
    with MaintenanceErrors
    with WriteErrors
    with StreamErrors {

  /** Error classes of storage failures: retrying the same call may succeed. */
  val Retryable: Set[String] = Set(ErrorClasses.LogReadFailed, ErrorClasses.LogWriteFailed)

  def tableNotFound(table: String): TxlogException = new TxlogException(
    ErrorClasses.DeltaTableNotFound,
    s"$table is not a Delta table.",
    "It has no _delta_log directory, or the directory holds no commit or checkpoint.",
    "Check the path; create the table with a Delta writer first."
  )

  def versionNotFound(table: String, version: Long, earliest: Long, latest: Long): TxlogException =
    new TxlogException(
      ErrorClasses.VersionNotFound,
      s"Cannot load version $version of $table.",
      s"Versions $earliest to $latest can be reconstructed from the log.",
      "Ask for a version in that range."
    )

  def timestampOutOfRange(table: String, ts: String, reason: String): TxlogException =
    new TxlogException(
      ErrorClasses.TimestampOutOfRange,
      s"No version of $table is at or before timestamp $ts.",
      reason,
      "Ask for a timestamp between the earliest and the latest commit timestamps."
    )

  def versionGap(table: String, after: Long, next: Long): TxlogException = new TxlogException(
    ErrorClasses.LogVersionGap,
    s"The log of $table is missing versions ${after + 1} to ${next - 1}.",
    s"Commit $after is followed by commit $next; Delta versions must be contiguous.",
    "Restore the missing commit files from a backup; the table cannot be read past the gap."
  )

  def missingLogFiles(table: String, firstCommit: Long, target: Long): TxlogException =
    new TxlogException(
      ErrorClasses.MissingLogFiles,
      s"Cannot reconstruct version $target of $table.",
      s"The log starts at commit $firstCommit and no complete checkpoint covers the versions " +
        "before it.",
      "Restore the missing commits or a checkpoint; metadata cleanup may have removed them."
    )

  def malformedLogFile(
      file: String,
      version: Long,
      detail: String,
      e: Throwable = null
  ): TxlogException = new TxlogException(
    ErrorClasses.MalformedLogFile,
    s"Log file $file (version $version) cannot be read.",
    detail,
    "The file is corrupt or truncated; restore it from a backup.",
    e,
    Some(file),
    Some(version)
  )

  /** A storage failure while reading the log (listing included): permission denied, throttling, a
    * network error, a file removed between listing and reading. Not corruption: retryable.
    * `version` is None for files without one (`_last_checkpoint`, the listing); a sidecar has the
    * version of the checkpoint that names it.
    */
  def logReadFailed(
      file: String,
      version: Option[Long],
      detail: String,
      e: Throwable = null
  ): TxlogException = new TxlogException(
    ErrorClasses.LogReadFailed,
    s"Could not read $file${version.fold("")(v => s" (version $v)")}.",
    detail,
    "This is a storage failure, not a corrupt log: check access to the path and retry.",
    e,
    Some(file),
    version
  )

  /** Listing a table's `_delta_log` failed: [[logReadFailed]] of the directory. */
  def logListingFailed(logDir: String, e: Throwable): TxlogException =
    logReadFailed(
      logDir,
      None,
      s"Listing the log failed: ${e.getClass.getSimpleName}: ${e.getMessage}",
      e
    )

  def missingProtocol(table: String, version: Long): TxlogException = new TxlogException(
    ErrorClasses.MissingProtocol,
    s"Version $version of $table has no protocol action.",
    "Every snapshot needs exactly one protocol; the log or checkpoint is incomplete.",
    "Restore the missing log files."
  )

  def missingMetadata(table: String, version: Long): TxlogException = new TxlogException(
    ErrorClasses.MissingMetadata,
    s"Version $version of $table has no metaData action.",
    "Every snapshot needs exactly one metaData; the log or checkpoint is incomplete.",
    "Restore the missing log files."
  )

  def invalidProtocol(table: String, version: Long, detail: String): TxlogException =
    new TxlogException(
      ErrorClasses.InvalidProtocol,
      s"The protocol of $table at version $version is invalid.",
      detail,
      "The table was written by a non-compliant writer; repair its protocol action."
    )

  def unsupportedReaderVersion(table: String, readerVersion: Int): TxlogException =
    new TxlogException(
      ErrorClasses.UnsupportedReaderVersion,
      s"$table needs reader version $readerVersion.",
      "txlog reads tables with minReaderVersion 1 to 3.",
      "Use a Delta reader that supports this protocol version."
    )

  def unsupportedReaderFeatures(table: String, features: Seq[String]): TxlogException =
    new TxlogException(
      ErrorClasses.UnsupportedReaderFeatures,
      s"$table uses reader features txlog does not support: ${features.mkString(", ")}.",
      "A reader must implement every feature in the protocol's readerFeatures.",
      "Use a Delta reader that supports these features."
    )

  def unsupportedWriterVersion(
      table: String,
      writerVersion: Int,
      operation: String
  ): TxlogException = new TxlogException(
    ErrorClasses.UnsupportedWriterVersion,
    s"Cannot $operation: $table needs writer version $writerVersion.",
    "txlog writes the log of tables with minWriterVersion 1 to 7.",
    "Use a Delta writer that supports this protocol version."
  )

  def unsupportedWriterFeatures(
      table: String,
      features: Seq[String],
      operation: String
  ): TxlogException = new TxlogException(
    ErrorClasses.UnsupportedWriterFeatures,
    s"Cannot $operation: $table uses writer features txlog does not support: " +
      s"${features.mkString(", ")}.",
    "A writer must implement every feature in the protocol's writerFeatures; txlog refuses " +
      "rather than risk writing a log those features forbid.",
    "Use a Delta writer that supports these features."
  )

  def logFileExists(file: String): TxlogException = new TxlogException(
    ErrorClasses.LogFileExists,
    s"$file already exists.",
    "Log files are never overwritten.",
    "Nothing to do if it is the file you meant to write; otherwise delete it first."
  )

  def checksumFileDiffers(file: String, detail: String): TxlogException = new TxlogException(
    ErrorClasses.LogFileExists,
    s"$file already exists and does not match the log.",
    s"Log files are never overwritten, and $detail.",
    "See validate_checksum for every difference; delete the file to write the log's own."
  )

  def writeFailed(file: String, detail: String, e: Throwable = null): TxlogException =
    new TxlogException(
      ErrorClasses.LogWriteFailed,
      s"Could not write $file.",
      detail,
      "Nothing was published; check permissions and free space, then retry.",
      e
    )

  /** The store answered a commit's write with an error and the outcome could not be read back:
    * whether `version` is this writer's commit is unknown, so it is neither reported committed nor
    * tried again at a later version (which could commit it twice).
    */
  def commitOutcomeUnknown(
      file: String,
      version: Long,
      txnId: String,
      e: Throwable
  ): TxlogException = new TxlogException(
    ErrorClasses.CommitOutcomeUnknown,
    s"Cannot tell whether commit $version ($file) is this transaction's.",
    s"The file exists, but reading its commitInfo back failed: $e",
    s"Read version $version's commitInfo: a txnId of $txnId means this transaction committed; " +
      "otherwise commit it again.",
    e,
    Some(file),
    Some(version)
  )

  def storageNotAtomic(
      dir: String,
      scheme: String,
      detail: Option[String] = None
  ): TxlogException = new TxlogException(
    ErrorClasses.StorageNotAtomic,
    s"Cannot publish log files under $dir: $scheme: storage offers no atomic put-if-absent.",
    "txlog found no atomic rename that refuses an existing target and no conditional create " +
      "here (S3 has one through S3A or the AWS SDK, GCS through the connector's exclusive " +
      "create, ADLS Gen2 a rename on accounts with a hierarchical namespace; see " +
      "docs/storage.md)" + detail.map(d => s"; $d").getOrElse("") + ", so two writers could " +
      "replace each other's log files.",
    "Use storage with one of those (with the AWS SDK on the class path for S3); or set " +
      "spark.txlog.storage." + scheme +
      ".kind=rename and add " + scheme + " to spark.txlog.storage.atomicRenameSchemes if this " +
      "file system's rename is atomic (HDFS-like); or, if only one writer ever writes this " +
      "table at a time, set spark.txlog.storage.singleWriter=true."
  )

  /** The `rename` kind on storage whose rename is not known to refuse an existing target. */
  def renameNotAtomic(dir: String, scheme: String): TxlogException = new TxlogException(
    ErrorClasses.StorageNotAtomic,
    s"Cannot publish log files under $dir by rename: $scheme: rename is not known to be atomic.",
    "Publishing by rename needs one that refuses an existing target atomically (HDFS); on " +
      "other storage it checks first and renames after, so two writers could both publish " +
      "the same version.",
    "Leave spark.txlog.storage." + scheme + ".kind unset to use the storage's own way; add " +
      scheme + " to spark.txlog.storage.atomicRenameSchemes if its rename is atomic (HDFS-like); " +
      "or, if only one writer ever writes this table at a time, set " +
      "spark.txlog.storage.singleWriter=true."
  )

  def checkpointKindNotAllowed(table: String, kind: String, why: String): TxlogException =
    new TxlogException(
      ErrorClasses.CheckpointKindNotAllowed,
      s"Cannot write a $kind checkpoint of $table.",
      why,
      "Choose another kind (classic, multipart or v2), or leave it out to use the table's."
    )

  def checkpointVerificationFailed(table: String, version: Long, detail: String): TxlogException =
    new TxlogException(
      ErrorClasses.CheckpointVerificationFailed,
      s"The checkpoint written for version $version of $table does not match the snapshot.",
      detail,
      "Nothing was published; retry, and report the problem if it persists."
    )

  def jarSparkMismatch(detail: String): TxlogException =
    new TxlogException(
      ErrorClasses.JarSparkMismatch,
      "txlog cannot run on this Spark.",
      detail,
      s"Use txlog-spark_<line>_<scala>-${BuildInfo.version}.jar of the running Spark line and " +
        "Scala version (Python: txlog.configure_spark picks it)."
    )

  /** A `spark.txlog.*` setting (txlog.config.TxlogConf) whose value does not parse or is out of
    * range: raised when an operation reads it, before anything is read or written.
    */
  def invalidSetting(key: String, value: String, expected: String): TxlogException =
    new TxlogException(
      ErrorClasses.InvalidSetting,
      s"Invalid value '$value' for the setting $key.",
      s"$key must be $expected.",
      s"Set $key to $expected, or unset it for its default (docs/configuration.md)."
    )

  /** A `spark.txlog.*` key the session sets that is not one of txlog's settings. */
  def unknownSetting(key: String, closest: String, listed: String): TxlogException =
    new TxlogException(
      ErrorClasses.InvalidSetting,
      s"The session sets $key, which is not a txlog setting.",
      s"txlog reads only the settings listed in $listed; a misspelt key would be ignored.",
      s"Unset $key, or correct it (did you mean $closest?)."
    )

  def invalidArgument(name: String, detail: String): TxlogException =
    new TxlogException(ErrorClasses.InvalidArgument, s"Invalid argument '$name': $detail", "", "")

  // ---- Writer rules (txlog.txn.WriterRules): protocol and metadata a commit writes.

  def protocolDowngrade(
      table: String,
      from: String,
      to: String,
      lostFeatures: Seq[String]
  ): TxlogException = new TxlogException(
    ErrorClasses.ProtocolDowngrade,
    s"Cannot change the protocol of $table from $from to $to.",
    if (lostFeatures.isEmpty) "The new protocol versions are lower than the current ones."
    else s"The new protocol drops features ${lostFeatures.mkString(", ")}.",
    "A protocol can only be upgraded; stage a protocol that keeps every current feature."
  )

  def invalidMetadata(table: String, detail: String): TxlogException = new TxlogException(
    ErrorClasses.InvalidMetadata,
    s"Cannot commit this metadata to $table.",
    detail,
    "Fix the staged metadata (schema, partition columns, properties) and commit again."
  )

  def appendOnlyViolation(table: String): TxlogException = new TxlogException(
    ErrorClasses.AppendOnlyViolation,
    s"Cannot remove data from $table: it is append-only.",
    "The table property delta.appendOnly is true, so data-changing removes are not allowed.",
    "Set delta.appendOnly to false first, or commit only adds."
  )

  // Version checksums (txlog.checksum).

  def checksumNotFound(table: String, version: Long, file: String): TxlogException =
    new TxlogException(
      ErrorClasses.ChecksumNotFound,
      s"Version $version of $table has no version checksum file.",
      s"$file does not exist; writers may skip checksums, so this is not corruption.",
      "Write one with DeltaLog.writeChecksum(version), or validate a version that has one."
    )
}
