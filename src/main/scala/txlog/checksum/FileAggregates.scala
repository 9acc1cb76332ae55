package txlog.checksum

import org.apache.spark.sql.Column
import org.apache.spark.sql.functions._

import txlog.Snapshot
import txlog.util.Jobs

/** What a version checksum says about the live files, computed by ONE Spark aggregation over the
  * snapshot's reconciled files. Only the single aggregate row reaches the driver.
  */
private[txlog] final case class FileAggregates(
    numFiles: Long,
    tableSizeBytes: Long,
    histogram: FileSizeHistogram,
    numDeletionVectors: Long,
    numDeletedRecords: Long,
    deletedRecordCounts: IndexedSeq[Long]
)

private[txlog] object FileAggregates {

  /** The file aggregates of `snapshot`, with the file size histogram over `boundaries`. */
  def compute(snapshot: Snapshot, boundaries: IndexedSeq[Long]): FileAggregates = {
    require(
      boundaries.nonEmpty && boundaries.head == 0L &&
        boundaries.zip(boundaries.tail).forall { case (a, b) => a < b },
      "histogram boundaries must start at 0 and increase"
    )
    val adds = snapshot.reconciledFiles
      .where(col("add").isNotNull)
      .select(
        col("add.size").as("size"),
        binOf(col("add.size"), boundaries).as("sizeBin"),
        col("add.deletionVector").isNotNull.as("hasDv"),
        coalesce(col("add.deletionVector.cardinality"), lit(0L)).as("deleted")
      )
    val withDeletedBin =
      adds.withColumn("deletedBin", binOf(col("deleted"), DeletedRecordCounts.LowerBounds))
    val n = boundaries.length
    val m = DeletedRecordCounts.LowerBounds.length
    val aggs: Seq[Column] =
      Seq(count(lit(1)), total(col("size")), count(when(col("hasDv"), 1)), total(col("deleted"))) ++
        (0 until n).map(i => count(when(col("sizeBin") === i, 1))) ++
        (0 until n).map(i => total(when(col("sizeBin") === i, col("size")))) ++
        (0 until m).map(i => count(when(col("deletedBin") === i, 1)))
    val row = Jobs.named(
      snapshot.reconciledFiles.sparkSession,
      s"compute the version checksum of ${snapshot.tablePath} v${snapshot.version}"
    ) {
      withDeletedBin.agg(aggs.head, aggs.tail: _*).head()
    }
    def long(i: Int): Long = row.getLong(i)
    FileAggregates(
      numFiles = long(0),
      tableSizeBytes = long(1),
      histogram = FileSizeHistogram(
        boundaries,
        (0 until n).map(i => long(4 + i)),
        (0 until n).map(i => long(4 + n + i))
      ),
      numDeletionVectors = long(2),
      numDeletedRecords = long(3),
      deletedRecordCounts = (0 until m).map(i => long(4 + 2 * n + i))
    )
  }

  /** A sum that is 0 rather than null over no rows. */
  private def total(c: Column): Column = coalesce(sum(c), lit(0L))

  /** The index of the bin `value` falls in, for bins starting at the sorted `lowerBounds` (bin 0
    * also takes values below the first bound).
    */
  private[txlog] def binOf(value: Column, lowerBounds: IndexedSeq[Long]): Column =
    lowerBounds.indices.reverse.tail
      .foldLeft(when(value >= lowerBounds.last, lit(lowerBounds.length - 1))) { (acc, i) =>
        acc.when(value >= lowerBounds(i), lit(i))
      }
      .otherwise(lit(0))

  /** [[binOf]] of one value on the driver: the last bound at or below `value`, else bin 0. */
  private[txlog] def binIndex(value: Long, lowerBounds: IndexedSeq[Long]): Int =
    math.max(0, lowerBounds.lastIndexWhere(value >= _))
}
