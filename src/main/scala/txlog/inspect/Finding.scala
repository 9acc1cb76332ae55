package txlog.inspect

import org.apache.spark.sql.{DataFrame, Row, SparkSession}
import org.apache.spark.sql.types.{LongType, StringType, StructType}

/** One problem `validate` found: the version and file it is about (when it is about one), the rule
  * that found it, its severity (`error`: the log breaks the spec or a table file is missing;
  * `warning`: legal but suspicious) and a sentence saying what is wrong.
  */
private[txlog] final case class Finding(
    version: Option[Long],
    file: Option[String],
    rule: String,
    severity: String,
    detail: String
) {
  def toRow: Row = Row(version.map(Long.box).orNull, file.orNull, rule, severity, detail)
}

private[txlog] object Finding {
  val Error = "error"
  val Warning = "warning"

  /** The columns of validate's result, in order. */
  val schema: StructType = new StructType()
    .add("version", LongType)
    .add("file", StringType)
    .add("rule", StringType)
    .add("severity", StringType)
    .add("detail", StringType)

  def error(version: Long, file: String, rule: String, detail: String): Finding =
    Finding(Some(version), Option(file), rule, Error, detail)

  def warning(version: Long, file: String, rule: String, detail: String): Finding =
    Finding(Some(version), Option(file), rule, Warning, detail)

  /** Findings held on the driver (at most a few per log file) as a DataFrame. */
  def toDF(spark: SparkSession, findings: Seq[Finding]): DataFrame = {
    import scala.jdk.CollectionConverters._
    spark.createDataFrame(findings.map(_.toRow).asJava, schema)
  }
}
