package txlog.write

import java.time.{Instant, LocalDate, LocalDateTime, ZoneOffset}
import java.time.format.DateTimeFormatter

import org.apache.spark.sql.catalyst.catalog.ExternalCatalogUtils
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

/** Partition values as the log stores them ("Partition Value Serialization"), from Spark's internal
  * values, and the directory a partition's files go to.
  */
private[txlog] object PartitionValueText {

  /** Types a partition column may have here: those whose serialization the spec gives as text. */
  def supported(t: DataType): Boolean = t match {
    case StringType | BooleanType | DateType | TimestampType | TimestampNTZType => true
    case ByteType | ShortType | IntegerType | LongType | FloatType | DoubleType => true
    case _: DecimalType                                                         => true
    case _                                                                      => false
  }

  private val Micros = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSSSS'Z'")
  private val NtzMicros = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSSSSS")

  /** The text of internal value `v` of type `t`; None for null (and for an empty string, which
    * Delta reads as null).
    */
  def of(v: Any, t: DataType): Option[String] =
    if (v == null) None
    else
      t match {
        case StringType =>
          val s = v.asInstanceOf[UTF8String].toString
          if (s.isEmpty) None else Some(s)
        case DateType      => Some(LocalDate.ofEpochDay(v.asInstanceOf[Int].toLong).toString)
        case TimestampType =>
          // adjusted to UTC, ISO 8601: what the spec recommends and delta-spark writes
          val us = v.asInstanceOf[Long]
          val instant = Instant
            .ofEpochSecond(Math.floorDiv(us, 1000000L))
            .plusNanos(Math.floorMod(us, 1000000L) * 1000L)
          Some(Micros.format(instant.atOffset(ZoneOffset.UTC)))
        case TimestampNTZType =>
          val us = v.asInstanceOf[Long]
          val t = LocalDateTime.ofEpochSecond(
            Math.floorDiv(us, 1000000L),
            (Math.floorMod(us, 1000000L) * 1000L).toInt,
            ZoneOffset.UTC
          )
          Some(NtzMicros.format(t))
        case _: DecimalType => Some(v.asInstanceOf[Decimal].toJavaBigDecimal.toPlainString)
        case _              => Some(v.toString)
      }

  /** `col=value` directory names, escaped as Hive escapes them (null: the Hive default name). */
  def directory(columns: Seq[String], values: Seq[Option[String]]): String =
    columns
      .zip(values)
      .map { case (c, v) =>
        ExternalCatalogUtils.escapePathName(c) + "=" +
          v.map(ExternalCatalogUtils.escapePathName)
            .getOrElse(ExternalCatalogUtils.DEFAULT_PARTITION_NAME)
      }
      .mkString("/")
}
