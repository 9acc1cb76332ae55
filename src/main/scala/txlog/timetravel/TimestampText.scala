package txlog.timetravel

import java.sql.Timestamp

import txlog.errors.TxlogErrors

/** Timestamps users give as text (time travel, restore). */
private[txlog] object TimestampText {

  /** A user-given timestamp string, read as Spark casts a string to a timestamp (as delta-spark
    * reads `timestampAsOf`): in `zone`, the session time zone (`spark.sql.session.timeZone`),
    * unless it names its own offset or zone.
    */
  def parse(text: String, zone: java.time.ZoneId): Timestamp = {
    import org.apache.spark.sql.catalyst.util.DateTimeUtils
    import org.apache.spark.unsafe.types.UTF8String
    val t = Option(text).map(_.trim).getOrElse("")
    DateTimeUtils
      .stringToTimestamp(UTF8String.fromString(t), zone)
      .map(DateTimeUtils.toJavaTimestamp)
      .getOrElse(
        throw TxlogErrors.invalidArgument(
          "timestamp",
          s"'$text' is not a timestamp (yyyy-MM-dd[ HH:mm:ss[.ffffff]][zone] or ISO-8601)"
        )
      )
  }
}
