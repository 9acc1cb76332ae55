package txlog.repair

import org.apache.spark.sql.{DataFrame, Row, SparkSession}
import org.apache.spark.sql.types.{BooleanType, LongType, StringType, StructType}

/** One thing repair does (or would do, in a dry run), or a fault it cannot repair. */
private[txlog] final case class RepairAction(
    action: String,
    version: Option[Long],
    file: Option[String],
    rule: String,
    detail: String,
    done: Boolean
) {
  def toRow: Row =
    Row(action, version.map(Long.box).orNull, file.orNull, rule, detail, done)
}

private[txlog] object RepairAction {

  /** The action names (stable: scripts match on them). */
  val SetAsideCheckpoint = "set-aside-checkpoint"
  val WriteCheckpoint = "write-checkpoint"
  val SetAsideChecksum = "set-aside-checksum"
  val WriteChecksum = "write-checksum"
  val WriteLastCheckpoint = "write-last-checkpoint"
  val DeleteLastCheckpoint = "delete-last-checkpoint"
  val RemoveFile = "remove-file"
  val NotRepairable = "not-repairable"

  /** The columns of a repair's actions, in order. */
  val schema: StructType = new StructType()
    .add("action", StringType, nullable = false)
    .add("version", LongType)
    .add("file", StringType)
    .add("rule", StringType)
    .add("detail", StringType)
    .add("done", BooleanType, nullable = false)

  /** Actions held on the driver (at most a few per log file) as a DataFrame. */
  def toDF(spark: SparkSession, actions: Seq[RepairAction]): DataFrame = {
    import scala.jdk.CollectionConverters._
    spark.createDataFrame(actions.map(_.toRow).asJava, schema)
  }
}
