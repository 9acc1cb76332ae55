package txlog.replay

import org.apache.spark.sql.{DataFrame, SparkSession}
import org.apache.spark.sql.functions._

import txlog.util.Jobs

/** Live files, their total size, and unexpired tombstones of a file state. */
private[txlog] final case class FileCounts(files: Long, bytes: Long, tombstones: Long) {
  def +(o: FileCounts): FileCounts =
    FileCounts(files + o.files, bytes + o.bytes, tombstones + o.tombstones)
}

private[txlog] object FileCounts {
  val zero: FileCounts = FileCounts(0, 0, 0)

  /** The columns counting needs, from a file state (full or lean): pathKey, dvId, isAdd, size (of
    * adds) and deletedAt (of removes). Small enough to keep cached beside a cached snapshot.
    */
  def counting(files: DataFrame): DataFrame = files.select(
    col(FileKeys.PathKey),
    col(FileKeys.DvKey),
    col("add").isNotNull.as("isAdd"),
    col("add.size").as("size"),
    col("remove.deletionTimestamp").as("deletedAt")
  )

  /** Counts a file state in one job; `counted` is in the [[counting]] shape. */
  def aggregate(
      spark: SparkSession,
      counted: DataFrame,
      tombstoneCutoff: Long,
      job: String
  ): FileCounts = {
    val row = Jobs.named(spark, job) {
      counted
        .agg(
          count(when(col("isAdd"), 1)),
          coalesce(sum(when(col("isAdd"), col("size"))), lit(0L)),
          count(when(!col("isAdd") && coalesce(col("deletedAt"), lit(0L)) > tombstoneCutoff, 1))
        )
        .head()
    }
    FileCounts(row.getLong(0), row.getLong(1), row.getLong(2))
  }
}
