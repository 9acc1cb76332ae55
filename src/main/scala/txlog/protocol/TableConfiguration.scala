package txlog.protocol

import txlog.{Metadata, Protocol}
import txlog.errors.TxlogErrors

/** A table's protocol and metadata with its properties read once: the one place that answers "is
  * feature X supported", "is X enabled" and "what is setting X" (as Delta Kernel's `TableConfig`
  * and delta-kernel-rs's `TableConfiguration`). A snapshot holds one for its version
  * ([[txlog.Snapshot.config]]); a commit builds one for the protocol and metadata it will leave in
  * force. Every rule reads its settings here; [[TableProperties]] only knows the keys' defaults and
  * how durations parse (LayeringSuite keeps the rest of txlog from reading it).
  *
  * Each value is parsed on first use and kept, so a rule that asks twice pays once; a value that
  * cannot be used (a negative retention, a count that is not a number) raises its typed error when
  * asked for, naming the key.
  *
  * {{{
  * val config = TableConfiguration(snap.protocol, snap.metadata)
  * if (config.appendOnly) ...
  * val every = config.checkpointInterval
  * }}}
  */
private[txlog] final case class TableConfiguration(protocol: Protocol, metadata: Metadata) {
  private def conf: Map[String, String] = metadata.configuration

  /** The table properties over their defaults (spec and reference implementation). */
  lazy val properties: Map[String, String] = TableProperties.withDefaults(conf)

  /** The features the protocol supports: those listed, or those its legacy versions imply. */
  lazy val features: Set[String] = TableFeatures.supported(protocol)

  /** Whether the protocol supports `feature` (reader or writer). */
  def supports(feature: String): Boolean = features.contains(feature)

  private def flag(key: String): Boolean = TableProperties.flag(conf, key)

  /** `delta.appendOnly`: no commit may remove data. */
  lazy val appendOnly: Boolean = flag("delta.appendOnly")

  /** `delta.enableChangeDataFeed`: data-changing commits write the change feed. */
  lazy val changeDataFeed: Boolean = TableConfiguration.changeDataFeed(conf)

  /** `delta.enableDeletionVectors`: writers may add deletion vectors (the property alone; a
    * protocol without the feature refuses them anyway, see [[deletionVectorsSupported]]).
    */
  lazy val deletionVectorsEnabled: Boolean = flag("delta.enableDeletionVectors")

  /** Whether the protocol supports deletion vectors. */
  lazy val deletionVectorsSupported: Boolean = supports("deletionVectors")

  /** Row tracking is enabled: the writer feature is supported and `delta.enableRowTracking` true.
    */
  lazy val rowTracking: Boolean =
    protocol.hasWriterFeature("rowTracking") && flag("delta.enableRowTracking")

  /** In-commit timestamps are enabled: the writer feature is supported and
    * `delta.enableInCommitTimestamps` is true.
    */
  lazy val inCommitTimestamps: Boolean =
    protocol.hasWriterFeature(InCommitTimestamps.Feature) && flag(InCommitTimestamps.EnabledKey)

  /** (version, timestamp) at which in-commit timestamps were enabled, when both are set. */
  lazy val inCommitTimestampEnablement: Option[(Long, Long)] =
    for {
      v <- conf.get(InCommitTimestamps.VersionKey)
      t <- conf.get(InCommitTimestamps.TimestampKey)
    } yield (v.trim.toLong, t.trim.toLong)

  /** `delta.enableExpiredLogCleanup`: a checkpoint is followed by cleanup of expired log files. */
  lazy val expiredLogCleanup: Boolean = flag("delta.enableExpiredLogCleanup")

  /** `delta.randomizeFilePrefixes`: new data files go under random directories. */
  lazy val randomizeFilePrefixes: Boolean = flag("delta.randomizeFilePrefixes")

  /** `delta.randomPrefixLength`: those directories' length (2); INVALID_SETTING if not positive. */
  lazy val randomPrefixLength: Int = positiveInt("delta.randomPrefixLength", 2)

  /** `delta.checkpoint.writeStatsAsJson`: checkpoints carry `add.stats`. */
  lazy val writeStatsAsJson: Boolean = flag("delta.checkpoint.writeStatsAsJson")

  /** `delta.checkpoint.writeStatsAsStruct`: parquet checkpoints carry `add.stats_parsed`. */
  lazy val writeStatsAsStruct: Boolean = flag("delta.checkpoint.writeStatsAsStruct")

  /** `delta.columnMapping.mode`, lower case: `none`, `name` or `id`. */
  lazy val columnMappingMode: String = ColumnMapping.mode(conf)

  /** Whether column mapping is on (a mode other than `none`). */
  def columnMapping: Boolean = columnMappingMode != "none"

  /** `delta.checkpointInterval`: a checkpoint every this many commits. A value that is not a
    * positive whole number (which delta-spark refuses to set) counts as the default, so a commit
    * that landed is never failed by its post-commit checkpoint.
    */
  lazy val checkpointInterval: Long = {
    val key = "delta.checkpointInterval"
    scala.util
      .Try(properties(key).trim.toLong)
      .toOption
      .filter(_ > 0)
      .getOrElse(TableProperties.Defaults(key).toLong)
  }

  /** Whether `delta.checkpointPolicy` asks for V2 checkpoints and the protocol supports them. */
  lazy val v2Checkpoints: Boolean =
    protocol.hasWriterFeature("v2Checkpoint") &&
      properties("delta.checkpointPolicy").trim.equalsIgnoreCase("v2")

  /** `delta.isolationLevel`: true for `Serializable`, false for `WriteSerializable` (txlog's
    * default; any other value counts as it).
    */
  lazy val serializable: Boolean =
    properties("delta.isolationLevel").trim.equalsIgnoreCase("Serializable")

  /** `delta.deletedFileRetentionDuration` in ms: how long tombstones are kept. */
  lazy val deletedFileRetentionMillis: Long =
    TableProperties.retention(properties, "delta.deletedFileRetentionDuration")

  /** `delta.logRetentionDuration` in ms: how long log entries are kept. */
  lazy val logRetentionMillis: Long =
    TableProperties.retention(properties, "delta.logRetentionDuration")

  /** `delta.logRetentionDuration` as written (or its default), for messages. */
  def logRetentionText: String = properties("delta.logRetentionDuration")

  /** `delta.setTransactionRetentionDuration` in ms, when set: transactions last updated longer ago
    * than this (or never stamped) are expired, as delta-spark expires them.
    */
  lazy val setTransactionRetentionMillis: Option[Long] =
    conf
      .get("delta.setTransactionRetentionDuration")
      .map(_ => TableProperties.retention(conf, "delta.setTransactionRetentionDuration"))

  /** `delta.dataSkippingStatsColumns`, when set to a non-empty list (the columns to keep stats of,
    * as written).
    */
  lazy val statsColumns: Option[String] =
    conf.get("delta.dataSkippingStatsColumns").map(_.trim).filter(_.nonEmpty)

  /** `delta.dataSkippingNumIndexedCols` (32; negative: every column). */
  lazy val numIndexedCols: Int = int("delta.dataSkippingNumIndexedCols", 32)

  /** `delta.dataSkippingStringPrefixLength` (32): string min/max are cut to this length. */
  lazy val statsStringPrefixLength: Int = int("delta.dataSkippingStringPrefixLength", 32)

  /** Integer property `key`, `default` when unset; INVALID_SETTING naming it when not a number. */
  private def int(key: String, default: Int): Int = conf.get(key).map(_.trim) match {
    case None => default
    case Some(v) =>
      scala.util.Try(v.toInt).getOrElse(throw TxlogErrors.invalidSetting(key, v, "an integer"))
  }

  private def positiveInt(key: String, default: Int): Int = {
    val n = int(key, default)
    if (n <= 0) throw TxlogErrors.invalidSetting(key, n.toString, "a positive integer")
    n
  }

  override def toString: String =
    s"TableConfiguration(features=${features.toSeq.sorted.mkString(",")}, " +
      s"columnMapping=$columnMappingMode)"
}

private[txlog] object TableConfiguration {

  /** The checkpoint interval of a table that does not set `delta.checkpointInterval` (10). */
  val DefaultCheckpointInterval: Long =
    TableProperties.Defaults("delta.checkpointInterval").toLong

  /** Milliseconds of a duration such as `interval 1 week` or `30 days` (months are refused:
    * INVALID_ARGUMENT), as retention properties and retention arguments are written. Example:
    * `TableConfiguration.durationMillis("interval 2 days")` is 172800000.
    */
  def durationMillis(text: String): Long = TableProperties.durationMillis(text)

  /** `delta.enableChangeDataFeed` of a metaData action's configuration: the property alone, as the
    * change feed reads it for each version of its range (delta-spark does the same).
    */
  def changeDataFeed(configuration: Map[String, String]): Boolean =
    TableProperties.flag(configuration, "delta.enableChangeDataFeed")

  /** `delta.columnMapping.mode` of a metaData action's configuration, lower case (`none` when
    * unset): the property alone, as the change feed reads each version's schema.
    */
  def columnMappingMode(configuration: Map[String, String]): String =
    ColumnMapping.mode(configuration)

  /** Each retention property `configuration` sets, checked: INVALID_ARGUMENT naming the first that
    * is negative or not a duration. Example: `TableConfiguration.checkRetentions(conf)`.
    */
  def checkRetentions(configuration: Map[String, String]): Unit =
    TableProperties.Retentions
      .filter(configuration.contains)
      .foreach(TableProperties.retention(configuration, _))
}
