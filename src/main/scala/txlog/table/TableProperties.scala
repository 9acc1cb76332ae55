package txlog.table

/**
 * Table properties (metaData.configuration) with the defaults the spec and the reference
 * implementation give them, so callers need not know which keys were written.
 */
private[txlog] object TableProperties {
  val Defaults: Map[String, String] = Map(
    "delta.appendOnly" -> "false",
    "delta.checkpointInterval" -> "10",
    "delta.checkpoint.writeStatsAsJson" -> "true",
    "delta.checkpoint.writeStatsAsStruct" -> "false",
    "delta.columnMapping.mode" -> "none",
    "delta.deletedFileRetentionDuration" -> "interval 1 week",
    "delta.enableChangeDataFeed" -> "false",
    "delta.enableDeletionVectors" -> "false",
    "delta.enableInCommitTimestamps" -> "false",
    "delta.logRetentionDuration" -> "interval 30 days",
    "delta.enableExpiredLogCleanup" -> "true",
    "delta.checkpointPolicy" -> "classic",
    "delta.dataSkippingNumIndexedCols" -> "32",
    "delta.isolationLevel" -> "Serializable")

  /** The configuration over the defaults. */
  def withDefaults(configuration: Map[String, String]): Map[String, String] =
    Defaults ++ configuration
}
