package txlog.protocol

import org.apache.spark.sql.catalyst.util.IntervalUtils
import org.apache.spark.unsafe.types.UTF8String

import txlog.errors.TxlogErrors

/** Table properties (metaData.configuration) with the defaults the spec and the reference
  * implementation give them, and how their values parse. Only [[TableConfiguration]] (and the
  * feature rules beside it) read them: the rest of txlog asks a table's configuration.
  */
private[protocol] object TableProperties {
  val Defaults: Map[String, String] = Map(
    "delta.appendOnly" -> "false",
    "delta.checkpointInterval" -> "10",
    "delta.checkpoint.writeStatsAsJson" -> "true",
    // The spec's default, which delta-rs follows; delta-spark (DeltaConfigs) defaults to true and
    // so writes stats_parsed for tables that do not set it. Set it to true for that behaviour.
    "delta.checkpoint.writeStatsAsStruct" -> "false",
    ColumnMapping.ModeProperty -> "none",
    "delta.deletedFileRetentionDuration" -> "interval 1 week",
    "delta.enableChangeDataFeed" -> "false",
    "delta.enableDeletionVectors" -> "false",
    "delta.enableInCommitTimestamps" -> "false",
    "delta.logRetentionDuration" -> "interval 30 days",
    "delta.enableExpiredLogCleanup" -> "true",
    "delta.checkpointPolicy" -> "classic",
    "delta.dataSkippingNumIndexedCols" -> "32",
    // what txlog's commits run as when the property is unset (ConflictChecker): blind appends by
    // others do not conflict. delta-spark's own default is Serializable, the only value it accepts.
    "delta.isolationLevel" -> "WriteSerializable"
  )

  /** The table properties that are retentions: durations that must not be negative. */
  val Retentions: Seq[String] = Seq(
    "delta.deletedFileRetentionDuration",
    "delta.logRetentionDuration",
    "delta.setTransactionRetentionDuration"
  )

  /** The retention property `key` in milliseconds; a negative or unparsable one is INVALID_ARGUMENT
    * naming it (a negative retention would put every cutoff in the future, and delta-spark refuses
    * to set one).
    */
  def retention(configuration: Map[String, String], key: String): Long = {
    val text = configuration(key)
    val millis =
      try durationMillis(text)
      catch {
        case e: txlog.TxlogException =>
          throw TxlogErrors.invalidArgument(key, s"'$text' is not a duration (${e.problem})")
      }
    if (millis < 0) {
      throw TxlogErrors.invalidArgument(key, s"'$text' is negative; a retention cannot be")
    }
    millis
  }

  /** Milliseconds of an interval property such as `interval 1 week`; months are refused. A text
    * parsed before is not parsed again (Spark's interval parser was about 2% of opening a small
    * table, for the default tombstone retention; W15 of issue #66).
    */
  def durationMillis(text: String): Long = {
    val known = Parsed.get(text)
    if (known != null) known.longValue
    else {
      val millis = parseDuration(text)
      if (Parsed.size >= MaxParsed) Parsed.clear()
      Parsed.put(text, millis)
      millis
    }
  }

  /** The durations parsed (a text that does not parse is not kept: it raises again). Bound:
    * [[MaxParsed]] texts, all dropped when full (this package stands below `txlog.util`'s Lru).
    */
  private val Parsed = new java.util.concurrent.ConcurrentHashMap[String, java.lang.Long]()
  private val MaxParsed = 64

  private def parseDuration(text: String): Long = {
    val t = text.trim
    val i = IntervalUtils.safeStringToInterval(
      UTF8String.fromString(if (t.toLowerCase.startsWith("interval")) t else s"interval $t")
    )
    if (i == null || i.months != 0) {
      throw TxlogErrors.invalidArgument(
        "table property",
        s"'$text' is not a duration in " +
          "weeks, days, hours, minutes or seconds"
      )
    }
    i.days * 86400000L + i.microseconds / 1000
  }

  /** Whether boolean property `key` of `configuration` is true (any case, spaces trimmed); the
    * defaults apply. The one reading of a flag: `TableProperties.flag(md.configuration,
    * "delta.appendOnly")`.
    */
  def flag(configuration: Map[String, String], key: String): Boolean =
    configuration.get(key).orElse(Defaults.get(key)).exists(_.trim.equalsIgnoreCase("true"))

  /** The configuration over the defaults. */
  def withDefaults(configuration: Map[String, String]): Map[String, String] =
    Defaults ++ configuration
}
