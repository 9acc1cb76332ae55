package txlog.compaction

import org.apache.spark.sql.{DataFrame, SparkSession}
import org.apache.spark.sql.expressions.Window
import org.apache.spark.sql.functions._
import org.apache.spark.sql.types.{IntegerType, LongType, StringType, StructType}

import txlog.protocol.ActionSchemas
import txlog.replay.{FileReconciler, LogActions, NonFileState}

/** The content of a log compaction file ("Log Compaction Files", "Action Reconciliation") as a
  * DataFrame of (rank, version, idx, line): the newest add or remove per (path,
  * deletionVector.uniqueId) (removes are kept, since the file stands in for commits, not for a
  * checkpoint), and the latest protocol, metaData, txn per appId and domainMetadata per domain,
  * removed ones included so they still cancel older ones. commitInfo, cdc, checkpointMetadata and
  * sidecar actions are dropped.
  *
  * Each kept action is its original line, so fields txlog's schemas do not name (a future writer's)
  * are carried over. Lines holding no action txlog knows (an action type of a future protocol,
  * which readers ignore) are kept too, every one of them in commit order after the reconciled
  * actions: txlog cannot know how they reconcile, and dropping them would lose them.
  */
private[txlog] object CompactionActions {
  private val NonFile = Seq("protocol", "metaData", "txn", "domainMetadata")

  /** What a line of the range is parsed against: every action txlog knows, cdc included. */
  val lineSchema: StructType =
    ActionSchemas.commitLine.add("cdc", new StructType().add("path", StringType))

  /** Output schema: lines sort by (rank, version, idx, line): non-file actions (negative ranks),
    * file actions (1), unknown actions (2, in commit order).
    */
  val schema: StructType = new StructType()
    .add("rank", IntegerType)
    .add("version", LongType)
    .add("idx", LongType)
    .add("line", StringType)

  /** The reconciled lines of `tail` (rows of [[LogActions.tail]] over the range, parsed against
    * [[lineSchema]] with their lines kept), all reconciled by tasks. A corrupt line is looked for
    * first (one row at most reaches the driver): it raises MALFORMED_LOG_FILE before anything is
    * written.
    */
  def of(spark: SparkSession, tail: DataFrame, root: String): DataFrame = {
    NonFileState.failOnCorrupt(
      tail.where(col(LogActions.CorruptColumn).isNotNull).limit(1).collect().toSeq
    )
    val files = FileReconciler
      .newest(FileReconciler.keyed(tail, root, keep = Seq("line")))
      .select(lit(1).as("rank"), lit(0L).as("version"), lit(0L).as("idx"), col("line"))
    val known = lineSchema.fieldNames.toSeq :+ LogActions.CorruptColumn
    val unknown = tail
      .where(known.map(c => col(c).isNull).reduce(_ && _))
      .select(lit(2).as("rank"), col("version"), col("idx"), col("line"))
    nonFile(tail).unionByName(files).unionByName(unknown)
  }

  /** The latest protocol, metaData, txn per appId and domainMetadata per domain, by a window over
    * (kind, key); ranks -4 to -1 keep them first, in that order (each kind's lines sorted).
    */
  private def nonFile(tail: DataFrame): DataFrame = {
    val kind = coalesce(NonFile.zipWithIndex.map { case (n, i) =>
      when(col(n).isNotNull, lit(i))
    }: _*)
    val key = coalesce(col("txn.appId"), col("domainMetadata.domain"), lit(""))
    val latest = Window.partitionBy(col("kind"), col("key")).orderBy(col("v").desc, col("i").desc)
    tail
      .where(NonFile.map(c => col(c).isNotNull).reduce(_ || _))
      .select(
        kind.as("kind"),
        key.as("key"),
        col("version").as("v"),
        col("idx").as("i"),
        col("line")
      )
      .withColumn("_rank", row_number().over(latest))
      .where(col("_rank") === 1)
      .select(
        (col("kind") - NonFile.size).as("rank"),
        lit(0L).as("version"),
        lit(0L).as("idx"),
        col("line")
      )
  }
}
