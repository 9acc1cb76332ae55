package txlog.txn

import java.util.UUID

import org.apache.hadoop.fs.Path
import org.apache.spark.sql.{DataFrame, Row, SparkSession}
import org.apache.spark.sql.catalyst.CatalystTypeConverters
import org.apache.spark.sql.catalyst.plans.logical.LocalRelation
import org.apache.spark.util.SizeEstimator

import txlog.checkpoint.CheckpointStaging
import txlog.log.{LogWrites, TablePath}
import txlog.util.Jobs

/** A commit's staged DataFrames, each evaluated once: what the writer rules, the row ids, the
  * conflict check and the commit file see is one evaluation of the user's DataFrame, even when it
  * would give other rows the next time (a non-deterministic source, a table that changes while it
  * is read). Up to [[CommitBody.DriverActions]] rows are read onto the driver by one job and kept
  * as a local relation when their estimated size fits `spark.txlog.commit.maxDriverBytes` (bounded:
  * that many file actions, that many bytes); a larger input is written by executors into a hidden
  * staging directory of `_delta_log` (`.txlog-input-<uuid>`) and read from there. [[delete]]
  * removes those directories when the commit ends, whatever its outcome.
  */
private[txlog] final class CommitInputs(spark: SparkSession, table: TablePath) {
  private var dirs = Vector.empty[Path]
  private var bytes = 0L

  /** Bytes written into the staging directories so far (0 when every input was kept on the driver):
    * what [[CommitShuffleWidth]] sizes the commit's shuffles by.
    */
  def stagedBytes: Long = bytes

  /** `df` (shaped as an action schema, so that every column can be written) evaluated once. */
  def apply(what: String, df: DataFrame): DataFrame = {
    val head = Jobs.named(spark, s"read the staged $what for ${table.root}") {
      CommitInputs.head(df, CommitBody.DriverActions + 1)
    }
    val whole = head.length <= CommitBody.DriverActions
    lazy val local = spark.createDataFrame(java.util.Arrays.asList(head: _*), df.schema)
    if (whole && SizeEstimator.estimate(head) <= CommitBody.maxDriverBytes(spark)) local
    else {
      val dir = new Path(table.logDir, s".txlog-input-${UUID.randomUUID()}")
      dirs :+= dir
      Jobs.named(spark, s"stage the $what for ${table.root}") {
        // every row already read: written from the driver rather than evaluated again
        val files = CheckpointStaging.write(table, if (whole) local else df, dir, "parquet")
        bytes += files.map(_.status.getLen).sum
      }
      spark.read.options(table.readOptions).schema(df.schema).parquet(dir.toString)
    }
  }

  /** Removes the staging directories (quietly: they are hidden, and cleanup removes leftovers). */
  def delete(): Unit = dirs.foreach(d => LogWrites.deleteQuietly(table.fs, d))
}

private[txlog] object CommitInputs {

  /** At most `n` rows of `df`, as `take` gives them, with one job where `take` would run two: over
    * both partitions of a DataFrame of one or two (a Python list made a DataFrame is two, its first
    * often empty: `take` scans it alone first), each giving at most `n` rows, so the driver holds
    * at most `2n` meanwhile. A local relation is read without a job, and larger inputs by `take`.
    */
  def head(df: DataFrame, n: Int): Array[Row] =
    df.queryExecution.analyzed match {
      // rows on the driver already (a Seq's toDF, entries): taken as they are, no query planned
      case l: LocalRelation if !l.isStreaming =>
        val toRow = CatalystTypeConverters.createToScalaConverter(df.schema)
        l.data.iterator.take(n).map(r => toRow(r).asInstanceOf[Row]).toArray
      case _ => headOf(df, n)
    }

  private def headOf(df: DataFrame, n: Int): Array[Row] =
    if (df.queryExecution.optimizedPlan.isInstanceOf[LocalRelation]) df.take(n)
    else {
      val rdd = df.rdd
      if (rdd.getNumPartitions > 2) df.take(n)
      else rdd.mapPartitions(_.take(n)).collect().take(n)
    }
}
