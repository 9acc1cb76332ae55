package txlog.protocol

import java.util.Locale

/** The `delta.` table properties a user may set on an existing table (`ALTER TABLE ... SET
  * TBLPROPERTIES`), as delta-spark knows them: any other `delta.`-prefixed key is refused there
  * (delta-spark: DELTA_UNKNOWN_CONFIGURATION), so a misspelt key is not stored and silently
  * ignored. `delta.feature.<name>` asks for a protocol feature; `delta.constraints.<name>` is a
  * CHECK constraint, added and dropped by its own statements, never set as a property.
  *
  * {{{
  * KnownProperties.known("delta.appendOnly")   // true
  * KnownProperties.known("delta.apendOnly")    // false
  * }}}
  */
private[txlog] object KnownProperties {

  /** The properties whose value is `true` or `false` (case-insensitive). */
  val Flags: Set[String] = Set(
    "delta.appendOnly",
    "delta.autoOptimize.autoCompact",
    "delta.autoOptimize.optimizeWrite",
    "delta.checkpoint.writeStatsAsJson",
    "delta.checkpoint.writeStatsAsStruct",
    "delta.compatibility.symlinkFormatManifest.enabled",
    "delta.enableChangeDataFeed",
    "delta.enableDeletionVectors",
    "delta.enableExpiredLogCleanup",
    "delta.enableFullRetentionRollback",
    "delta.enableIcebergCompatV1",
    "delta.enableIcebergCompatV2",
    "delta.enableInCommitTimestamps",
    "delta.enableRowTracking",
    "delta.enableTypeWidening",
    "delta.randomizeFilePrefixes",
    "delta.tuneFileSizesForRewrites"
  )

  private val Others: Set[String] = Set(
    "delta.checkpointInterval",
    "delta.checkpointPolicy",
    "delta.checkpointRetentionDuration",
    "delta.columnMapping.maxColumnId",
    "delta.columnMapping.mode",
    "delta.dataSkippingNumIndexedCols",
    "delta.dataSkippingStatsColumns",
    "delta.dataSkippingStringPrefixLength",
    "delta.deletedFileRetentionDuration",
    "delta.inCommitTimestampEnablementTimestamp",
    "delta.inCommitTimestampEnablementVersion",
    "delta.isolationLevel",
    "delta.logRetentionDuration",
    "delta.minReaderVersion",
    "delta.minWriterVersion",
    "delta.randomPrefixLength",
    "delta.setTransactionRetentionDuration",
    "delta.targetFileSize",
    "delta.universalFormat.enabledFormats"
  )

  private val lower: Map[String, String] =
    (Flags ++ Others).map(k => k.toLowerCase(Locale.ROOT) -> k).toMap

  /** Whether `key` (a `delta.` key) is one a user may set. */
  def known(key: String): Boolean = canonical(key).isDefined

  /** The key as delta-spark spells it (`delta.appendonly` is `delta.appendOnly`), when known. */
  def canonical(key: String): Option[String] = lower.get(key.toLowerCase(Locale.ROOT))

  /** Whether `key` is a `delta.`-prefixed key (case-insensitive). */
  def isDelta(key: String): Boolean = key.toLowerCase(Locale.ROOT).startsWith("delta.")

  /** Whether `key` names a CHECK constraint (`delta.constraints.<name>`). */
  def isConstraint(key: String): Boolean =
    key.toLowerCase(Locale.ROOT).startsWith(Constraints.CheckKey)

  /** Whether `key` asks for a protocol feature (`delta.feature.<name>`). */
  def isFeature(key: String): Boolean = key.toLowerCase(Locale.ROOT).startsWith("delta.feature.")
}
