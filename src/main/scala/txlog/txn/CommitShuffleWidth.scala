package txlog.txn

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.internal.SQLConf

/** How many partitions the shuffles of a large commit use: the session's shuffle partitions, or
  * more, so that each holds about [[BytesPerPartition]] of the commit's staged parquet. A commit
  * removing every file of a 20M-file table stages about a gigabyte of removes; at the default 200
  * (or a tuned-down 8) partitions its joins and aggregations by path spill and merge millions of
  * rows per task, and exhaust a 2 GiB driver in local mode.
  *
  * {{{
  * val width = CommitShuffleWidth.of(spark, stagedBytes)
  * }}}
  */
private[txn] object CommitShuffleWidth {

  /** Staged parquet per partition: about 100,000 to 200,000 file actions. */
  val BytesPerPartition: Long = 4L * 1024 * 1024

  /** At most this many partitions (the driver tracks each shuffle partition's map output). */
  val MaxPartitions = 10000

  def of(spark: SparkSession, stagedBytes: Long): Int = {
    val session = spark.conf.get(SQLConf.SHUFFLE_PARTITIONS.key).toInt
    val needed = (stagedBytes + BytesPerPartition - 1) / BytesPerPartition
    math.max(session.toLong, math.min(needed, MaxPartitions.toLong)).toInt
  }
}
