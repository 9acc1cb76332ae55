package txlog.txn

import java.util.UUID

import org.apache.hadoop.fs.Path
import org.apache.spark.sql.{DataFrame, SparkSession}
import org.apache.spark.sql.functions._

import txlog.TxlogErrors
import txlog.checkpoint.StagedFiles
import txlog.log.TablePath
import txlog.util.Jobs

/** The file-action lines of a commit, checked and sized by one Spark job, then either held on the
  * driver (`lines`, when they fit `spark.txlog.commit.maxDriverBytes`) or written by a Spark job
  * into a hidden staging directory of `_delta_log` (`parts`, in order). [[delete]] removes the
  * staging directory.
  */
private[txlog] final case class CommitBody(
    count: Long,
    bytes: Long,
    lines: Option[Array[String]],
    staging: Option[Path],
    parts: Seq[Path]
) {
  def delete(table: TablePath): Unit =
    staging.foreach(d => txlog.log.LogWrites.deleteQuietly(table.fs, d))
}

private[txlog] object CommitBody {
  val MaxDriverBytesKey = "spark.txlog.commit.maxDriverBytes"
  val DefaultMaxDriverBytes: Long = 64L << 20

  val empty: CommitBody = CommitBody(0, 0, Some(Array.empty), None, Seq.empty)

  def maxDriverBytes(spark: SparkSession): Long =
    spark.conf.getOption(MaxDriverBytesKey).map(_.trim.toLong).getOrElse(DefaultMaxDriverBytes)

  /** Checks `lines` (rows of [[FileActionLines]]) and builds the body: INVALID_COMMIT_ACTIONS,
    * before anything is written, for an action missing a required field or a file added (or
    * removed) twice.
    */
  def build(spark: SparkSession, table: TablePath, lines: DataFrame): CommitBody = {
    val keyed = lines
      .groupBy("kind", "path", "dvId")
      .agg(
        count(lit(1)).as("n"),
        sum(octet_length(col("line")) + 1).as("bytes"),
        min(col("problem")).as("problem")
      )
    val dup = when(
      col("n") > 1 && col("kind").isin("add", "remove") && col("path").isNotNull,
      concat(col("kind"), lit(" of the same file twice: "), col("path"), lit(" "), col("dvId"))
    )
    val row = Jobs.named(spark, s"check the commit actions for ${table.root}") {
      keyed
        .agg(
          coalesce(sum(col("n")), lit(0L)),
          coalesce(sum(col("bytes")), lit(0L)),
          min(col("problem")),
          min(dup)
        )
        .head()
    }
    Option(row.getString(2)).orElse(Option(row.getString(3))).foreach { p =>
      throw TxlogErrors.invalidCommitActions(table.root, p)
    }
    val (n, bytes) = (row.getLong(0), row.getLong(1))
    if (n == 0) empty
    else if (bytes <= maxDriverBytes(spark)) {
      val collected = Jobs.named(spark, s"collect the commit actions for ${table.root}") {
        lines.select("line").collect().map(_.getString(0))
      }
      CommitBody(n, bytes, Some(collected), None, Seq.empty)
    } else {
      val dir = new Path(table.logDir, s".txlog-commit-${UUID.randomUUID()}")
      try {
        val parts = Jobs.named(spark, s"stage the commit actions for ${table.root}") {
          StagedFiles.write(table, lines.select("line"), dir, "text").map(_.status.getPath)
        }
        CommitBody(n, bytes, None, Some(dir), parts)
      } catch {
        case e: Throwable =>
          txlog.log.LogWrites.deleteQuietly(table.fs, dir)
          throw e
      }
    }
  }
}
