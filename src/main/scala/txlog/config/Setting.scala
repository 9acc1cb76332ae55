package txlog.config

import java.util.Locale

import scala.util.Try

import org.apache.spark.sql.SparkSession

import txlog.errors.TxlogErrors

/** One `spark.txlog.*` session setting: its key, default, what it does, and how a value is read.
  * Values are read when an operation starts, so a setting changed between operations takes effect
  * at the next one. A value that does not parse, or is out of range, is INVALID_SETTING naming the
  * key, before anything is read or written: never the default in its place.
  *
  * {{{
  * val attempts: Int = TxlogConf.CommitMaxAttempts.get(spark)
  * }}}
  */
private[txlog] sealed abstract class Setting[T](
    val key: String,
    val default: T,
    val doc: String,
    val formerKeys: Seq[String],
    val internal: Boolean
) {

  /** What a value must be, as the error says it. */
  def expected: String

  /** The default as the docs show it. */
  def defaultText: String = default.toString

  protected def parse(raw: String): Option[T]

  /** The session's value (under [[key]], or else a former key), or the default. */
  def get(spark: SparkSession): T =
    from((key +: formerKeys).iterator.flatMap(k => Setting.raw(spark, k)).toSeq.headOption)

  /** `raw` read as this setting's value; the default when it is absent. */
  def from(raw: Option[String]): T = raw match {
    case None => default
    case Some(r) =>
      parse(r.trim).getOrElse(throw TxlogErrors.invalidSetting(key, r, expected))
  }

  /** Whether the session sets it (under any of its keys). */
  def isSet(spark: SparkSession): Boolean =
    (key +: formerKeys).exists(k => Setting.raw(spark, k).isDefined)
}

private[txlog] object Setting {

  /** The session's text under `k`, if it sets one. Not `conf.getOption`: for a key that is not set,
    * it builds an error (with its message from the error classes) and catches it, about a twentieth
    * of a small table's load, which reads a dozen settings.
    */
  def raw(spark: SparkSession, k: String): Option[String] = Option(spark.conf.get(k, null))

  /** A whole number from `min` to `max`. */
  final class Whole(
      key: String,
      default: Long,
      doc: String,
      min: Long,
      max: Long = Long.MaxValue,
      bytes: Boolean = false,
      formerKeys: Seq[String] = Nil,
      internal: Boolean = false
  ) extends Setting[Long](key, default, doc, formerKeys, internal) {
    def expected: String =
      (if (max == Long.MaxValue) s"a whole number >= $min"
       else s"a whole number from $min to $max") +
        (if (bytes) " (bytes)" else "")
    override def defaultText: String =
      if (bytes && default >= 1024 && default % (1L << 20) == 0) s"$default (${default >> 20} MiB)"
      else default.toString
    protected def parse(raw: String): Option[Long] =
      Try(raw.toLong).toOption.filter(v => v >= min && v <= max)
  }

  /** A whole number of at least `min` whose default depends on the session (`None` here). */
  final class OptionalWhole(
      key: String,
      val defaultDoc: String,
      doc: String,
      min: Long,
      formerKeys: Seq[String] = Nil
  ) extends Setting[Option[Long]](key, None, doc, formerKeys, false) {
    def expected: String = s"a whole number >= $min"
    override def defaultText: String = defaultDoc
    protected def parse(raw: String): Option[Option[Long]] =
      Try(raw.toLong).toOption.filter(_ >= min).map(Some(_))
  }

  /** `true` or `false`, in any case. */
  final class Flag(key: String, default: Boolean, doc: String, internal: Boolean = false)
      extends Setting[Boolean](key, default, doc, Nil, internal) {
    def expected: String = "true or false"
    protected def parse(raw: String): Option[Boolean] =
      raw.toLowerCase(Locale.ROOT) match {
        case "true"  => Some(true)
        case "false" => Some(false)
        case _       => None
      }
  }

  /** A comma-separated list of names, lower-cased; empty entries are dropped. */
  final class Names(key: String, doc: String, default: Seq[String] = Nil)
      extends Setting[Seq[String]](key, default, doc, Nil, false) {
    def expected: String = "comma-separated names"
    override def defaultText: String = if (default.isEmpty) "(none)" else default.mkString(",")
    protected def parse(raw: String): Option[Seq[String]] =
      Some(raw.split(",").toSeq.map(_.trim.toLowerCase(Locale.ROOT)).filter(_.nonEmpty))
  }
}
