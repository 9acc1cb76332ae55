package txlog.streaming

import org.apache.spark.sql.{DataFrame, Row}
import org.apache.spark.sql.functions.col
import org.apache.spark.sql.types.LongType
import org.apache.spark.storage.StorageLevel

import txlog.Snapshot
import txlog.util.Jobs

/** The initial snapshot of a stream: the live files of `snapshot` in delta-spark's order
  * (modification time, then path), numbered from 0, as [[StreamFiles]] rows. The numbered files are
  * worked out by one distributed sort and kept by the executors (memory, then disk) while the
  * stream reads them; the driver holds the count and, per micro-batch, the rows of that batch's
  * files only.
  *
  * {{{
  * val init = new InitialFiles(snapshot)
  * init.rows(-1L, 999L) // the first 1000 files
  * }}}
  */
private[txlog] final class InitialFiles(val snapshot: Snapshot) {

  def version: Long = snapshot.version

  private lazy val numbered: DataFrame =
    Jobs.named(snapshot.spark, s"order the initial snapshot of ${snapshot.tablePath}") {
      val rowTracking = snapshot.config.rowTracking
      val typed = snapshot.reconciledFiles
        .where(col("add.path").isNotNull)
        .select(StreamFiles.columns(col("add"), snapshot.metadata, rowTracking): _*)
        .orderBy(col("modificationTime"), col("path"))
      val v = snapshot.version
      val schema = typed.schema.add(StreamFiles.Version, LongType).add(StreamFiles.Index, LongType)
      val rdd = typed.rdd.zipWithIndex().map { case (r, i) => Row.fromSeq(r.toSeq :+ v :+ i) }
      snapshot.spark.createDataFrame(rdd, schema).persist(StorageLevel.MEMORY_AND_DISK)
    }

  /** How many files the snapshot has. */
  lazy val count: Long = snapshot.numFiles

  /** The files numbered after `after` up to `upTo`, in order. */
  def rows(after: Long, upTo: Long): Seq[Row] =
    if (upTo <= after) Nil
    else
      Jobs.named(snapshot.spark, s"files ${after + 1} to $upTo of the initial snapshot") {
        StreamFiles.ordered(slice(after, upTo)).collect().toSeq
      }

  /** The index and size of the files numbered after `after` up to `upTo`, in order. */
  def sizes(after: Long, upTo: Long): Seq[(Long, Long)] =
    if (upTo <= after) Nil
    else
      slice(after, upTo)
        .select(col(StreamFiles.Index), col("size"))
        .orderBy(col(StreamFiles.Index))
        .collect()
        .toSeq
        .map(r => r.getLong(0) -> r.getLong(1))

  private def slice(after: Long, upTo: Long): DataFrame =
    numbered.where(col(StreamFiles.Index) > after && col(StreamFiles.Index) <= upTo)

  /** Releases the numbered files. */
  def release(): Unit = numbered.unpersist(blocking = false)
}
