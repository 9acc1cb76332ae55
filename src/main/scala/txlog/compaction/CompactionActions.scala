package txlog.compaction

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.{Column, DataFrame, Row, SparkSession}
import org.apache.spark.sql.functions._
import org.apache.spark.sql.types.{IntegerType, StringType, StructType}

import txlog.replay.{FileReconciler, LogActions, NonFileState}

/** The content of a log compaction file ("Log Compaction Files", "Action Reconciliation") as a
  * DataFrame of (rank, line): the newest add or remove per (path, deletionVector.uniqueId) (removes
  * are kept, since the file stands in for commits, not for a checkpoint), and the latest protocol,
  * metaData, txn per appId and domainMetadata per domain, removed ones included so they still
  * cancel older ones. commitInfo, cdc, checkpointMetadata and sidecar actions are dropped. Each
  * line is `to_json` of one action, null fields omitted.
  */
private[txlog] object CompactionActions {
  private val NonFile = Seq("protocol", "metaData", "txn", "domainMetadata")

  /** Output schema: `rank` orders non-file actions first, `line` is the JSON text. */
  val schema: StructType = new StructType().add("rank", IntegerType).add("line", StringType)

  /** The reconciled lines of `tail` (rows of [[LogActions.tail]] over the range). Non-file actions
    * and corrupt lines are collected first: a corrupt line raises MALFORMED_LOG_FILE before
    * anything is written.
    */
  def of(spark: SparkSession, tail: DataFrame, root: String): DataFrame = {
    val nonFile = spark.createDataFrame(reconcileNonFile(collectNonFile(tail)).asJava, schema)
    val files = FileReconciler
      .reconcile(None, tail, root, broadcastTail = false)
      .select(
        lit(1).as("rank"),
        when(col("add").isNotNull, to_json(struct(col("add").as("add"))))
          .otherwise(to_json(struct(col("remove").as("remove"))))
          .as("line")
      )
    nonFile.unionByName(files)
  }

  private def json(name: String): Column =
    when(col(name).isNotNull, to_json(struct(col(name).as(name))))

  /** Non-file actions and corrupt lines of the range, with their keys, on the driver. */
  private def collectNonFile(tail: DataFrame): Seq[Row] =
    tail
      .where((NonFile :+ LogActions.CorruptColumn).map(c => col(c).isNotNull).reduce(_ || _))
      .select(
        col("version"),
        col("idx"),
        col("file"),
        col(LogActions.CorruptColumn),
        col("txn.appId").as("appId"),
        col("domainMetadata.domain").as("domain"),
        coalesce(NonFile.map(json): _*).as("line"),
        coalesce(NonFile.zipWithIndex.map { case (n, i) =>
          when(col(n).isNotNull, lit(i))
        }: _*).as("kind")
      )
      .collect()
      .toSeq

  /** The latest action per protocol, metaData, txn appId and domain, as (rank, line) rows. */
  private def reconcileNonFile(rows: Seq[Row]): Seq[Row] = {
    NonFileState.failOnCorrupt(rows)
    val ordered = rows.sortBy(r => (r.getAs[Long]("version"), r.getAs[Long]("idx")))
    val latest = ordered.foldLeft(Map.empty[(Int, String), String]) { (m, r) =>
      val kind = r.getAs[Int]("kind")
      val key = kind match {
        case 2 => r.getAs[String]("appId")
        case 3 => r.getAs[String]("domain")
        case _ => ""
      }
      m.updated(kind -> key, r.getAs[String]("line"))
    }
    // Negative ranks keep protocol, metaData, txns, domains first, in that order.
    latest.toSeq.sortBy(_._1).zipWithIndex.map { case ((_, line), i) =>
      Row(i - latest.size, line)
    }
  }
}
