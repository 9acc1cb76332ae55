package txlog

import org.apache.spark.SparkThrowable
import org.apache.spark.sql.txlog.SparkErrors

/** Why a reader refused a table, in categories both txlog and delta-spark can be mapped to, so that
  * "both refuse" is only agreement when both refuse for the same reason.
  *
  * txlog's error classes and delta-spark's error classes (DeltaErrors) are each listed here as
  * literals; an error class not listed maps to [[Refusal.Unmapped]], which never agrees.
  */
object Refusal {
  sealed trait Category
  case object NotATable extends Category
  case object MissingLog extends Category // a version gap, missing files, no such version
  case object Corrupt extends Category // malformed files, no protocol or metadata
  case object Unsupported extends Category // a protocol version or feature not implemented
  final case class Unmapped(what: String) extends Category

  def ofTxlog(e: TxlogException): Category = e.errorClass match {
    case "DELTA_TABLE_NOT_FOUND"                                        => NotATable
    case "LOG_VERSION_GAP" | "MISSING_LOG_FILES" | "VERSION_NOT_FOUND"  => MissingLog
    case "TIMESTAMP_OUT_OF_RANGE"                                       => MissingLog
    case "MALFORMED_LOG_FILE" | "MISSING_PROTOCOL" | "MISSING_METADATA" => Corrupt
    case "INVALID_PROTOCOL" | "UNSUPPORTED_READER_VERSION"              => Unsupported
    case "UNSUPPORTED_READER_FEATURES" | "UNSUPPORTED_WRITER_VERSION"   => Unsupported
    case "UNSUPPORTED_WRITER_FEATURES"                                  => Unsupported
    case other                                                          => Unmapped(other)
  }

  /** delta-spark's error classes, from DeltaErrors (first one found on the cause chain). */
  private val deltaSpark: Map[String, Category] = Map(
    "DELTA_TABLE_NOT_FOUND" -> NotATable,
    "DELTA_MISSING_DELTA_TABLE" -> NotATable,
    "DELTA_PATH_DOES_NOT_EXIST" -> NotATable,
    "DELTA_EMPTY_DIRECTORY" -> NotATable,
    "DELTA_MISSING_TRANSACTION_LOG" -> NotATable,
    "DELTA_VERSIONS_NOT_CONTIGUOUS" -> MissingLog,
    "DELTA_LOG_FILE_NOT_FOUND" -> MissingLog,
    "DELTA_FILE_NOT_FOUND_DETAILED" -> MissingLog,
    "DELTA_MISSING_PART_FILES" -> MissingLog,
    "DELTA_NO_COMMITS_FOUND" -> MissingLog,
    "DELTA_NO_RECREATABLE_HISTORY_FOUND" -> MissingLog,
    "DELTA_VERSION_NOT_FOUND" -> MissingLog,
    "DELTA_CANNOT_TIME_TRAVEL_VIEWS" -> MissingLog,
    "DELTA_TIMESTAMP_GREATER_THAN_COMMIT" -> MissingLog,
    "DELTA_TIMESTAMP_EARLIER_THAN_COMMIT_RETENTION" -> MissingLog,
    "DELTA_STATE_RECOVER_ERROR" -> Corrupt,
    "DELTA_STATE_RECOVER_ERRORS" -> Corrupt,
    "DELTA_ACTION_NOT_FOUND" -> Corrupt,
    "DELTA_INVALID_PROTOCOL_VERSION" -> Unsupported,
    // Features enabled in metadata that the protocol does not list: a protocol the table's
    // writer left inconsistent, in the category of txlog's INVALID_PROTOCOL.
    "DELTA_FEATURES_PROTOCOL_METADATA_MISMATCH" -> Unsupported,
    "DELTA_UNSUPPORTED_FEATURES_FOR_READ" -> Unsupported,
    "DELTA_UNSUPPORTED_FEATURES_FOR_WRITE" -> Unsupported
  )

  /** delta-spark 3.3 (the oracle of Spark 3.5) raises some refusals as exception classes without an
    * error class; their simple names.
    */
  private val deltaSparkExceptions: Map[String, Category] = Map(
    "TimestampEarlierThanCommitRetentionException" -> MissingLog,
    "TemporallyUnstableInputException" -> MissingLog
  )

  /** Spark 3.5 has no variant type: delta-spark 3.3 fails to parse such a schema, Spark's message
    * naming the type. A refusal for a feature that this Spark line cannot support.
    */
  private def noVariantType(e: Throwable): Boolean =
    e.isInstanceOf[IllegalArgumentException] &&
      String.valueOf(e.getMessage).contains("Failed to convert the JSON string 'variant'")

  private def chain(t: Throwable): Seq[Throwable] =
    Iterator.iterate(t)(_.getCause).takeWhile(_ != null).take(20).toSeq

  def ofDeltaSpark(t: Throwable): Category = t match {
    case r: txlog.oracle.RecordedRefusal => r.category
    case _                               => ofDeltaSparkError(t)
  }

  private def ofDeltaSparkError(t: Throwable): Category = {
    val classes = chain(t).collect {
      case s: SparkThrowable if SparkErrors.condition(s) != null => SparkErrors.condition(s)
    }
    classes
      .collectFirst(Function.unlift(deltaSpark.get))
      .orElse(chain(t).collectFirst { case _: java.io.FileNotFoundException => MissingLog })
      .orElse(chain(t).map(_.getClass.getSimpleName).collectFirst(deltaSparkExceptions))
      .orElse(chain(t).collectFirst { case e if noVariantType(e) => Unsupported })
      .getOrElse(Unmapped(classes.headOption.getOrElse(t.toString.take(300))))
  }

  /** Fails unless both refusals fall in one known category; returns it. */
  def assertSame(ours: Throwable, theirs: Throwable, what: String): Category = {
    val o = ours match {
      case e: TxlogException => ofTxlog(e)
      case e                 => Unmapped(s"untyped: $e")
    }
    val t = ofDeltaSpark(theirs)
    assert(
      o == t && !o.isInstanceOf[Unmapped],
      s"$what: txlog refuses as $o ($ours), delta-spark as $t ($theirs)"
    )
    o
  }
}
