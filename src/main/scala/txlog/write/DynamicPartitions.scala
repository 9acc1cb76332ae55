package txlog.write

import java.util.Locale

import org.apache.spark.sql.{Column, DataFrame, SparkSession}
import org.apache.spark.sql.functions.{col, lit}

import txlog.Metadata
import txlog.errors.TxlogErrors
import txlog.protocol.ColumnMapping

/** Dynamic partition overwrite (delta-spark's `partitionOverwriteMode = dynamic`): an overwrite of
  * a partitioned table removes the files of exactly the partitions the rows written fall in, and
  * keeps every other partition. The partitions are those of the files the write added, matched on
  * the add actions' `partitionValues` (null-safe, by the columns' physical names), so no partition
  * value is collected to the driver.
  *
  * {{{
  * val old = DynamicPartitions.replaced(txn.readFiles(), written.adds, md)
  * }}}
  */
private[txlog] object DynamicPartitions {

  val Option = "partitionOverwriteMode"
  val SessionKey = "spark.sql.sources.partitionOverwriteMode"

  /** Whether an overwrite is dynamic: the option `partitionOverwriteMode` when given, else the
    * session's `spark.sql.sources.partitionOverwriteMode` unless the write has its own condition
    * (`replaceWhere`) or replaces the schema (`overwriteSchema`). A value other than `static` or
    * `dynamic` (case-insensitively) is INVALID_ARGUMENT.
    */
  def dynamic(spark: SparkSession, option: scala.Option[String], ownCondition: Boolean): Boolean =
    option match {
      case Some(v) => parse(v)
      case None    => !ownCondition && spark.conf.getOption(SessionKey).exists(parse)
    }

  private def parse(v: String): Boolean = v.trim.toLowerCase(Locale.ROOT) match {
    case "dynamic" => true
    case "static"  => false
    case _ => throw TxlogErrors.invalidArgument(Option, s"'$v' is not 'static' or 'dynamic'")
  }

  /** The rows of `files` (the version read's) in a partition one of `added` (the write's adds) is
    * in; `md` names the partition columns.
    */
  def replaced(files: DataFrame, added: DataFrame, md: Metadata): DataFrame = {
    val keys = md.partitionColumns.map(c => ColumnMapping.physicalName(md.schema(c)))
    // one column per partition key (a map cannot be made distinct or compared)
    val names = keys.indices.map(i => s"__txlog_touched_$i")
    val touched = added
      .select(keys.zip(names).map { case (k, n) => col("partitionValues").getItem(k).as(n) }: _*)
      .distinct()
    val same: Column = keys
      .zip(names)
      .map { case (k, n) => col("partitionValues").getItem(k) <=> touched(n) }
      .foldLeft(lit(true))(_ && _)
    files.join(touched, same, "left_semi")
  }
}
