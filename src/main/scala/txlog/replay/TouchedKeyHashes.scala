package txlog.replay

import org.apache.spark.broadcast.Broadcast
import org.apache.spark.sql.{Column, DataFrame, SparkSession}
import org.apache.spark.sql.functions.{col, udf, xxhash64}

/** The keys a large tail touches, as a sorted array of their 64-bit hashes (8 bytes a key),
  * broadcast so that executors drop the base rows the tail replaces without shuffling the base:
  * rows whose hash is not in the array survive as they are; the few whose hash is (the replaced
  * rows, and any hash collision) are resolved exactly against the tail's keys, an exchange bounded
  * by the tail. The array is built by one job from per-task sorted arrays, never as rows, and is
  * bounded by [[DriverBudgets.MaxKeyHashBytesConf]].
  *
  * {{{
  * TouchedKeyHashes.collect(spark, keyedTail, 64L << 20, "hash keys").map { hashes =>
  *   base.where(!TouchedKeyHashes.member(hashes))
  * }
  * }}}
  */
private[txlog] object TouchedKeyHashes {

  /** The name of the membership test in plans (checked by tests). */
  val UdfName = "txlog_touched_key"

  /** The hash of a keyed row's (pathKey, dvId). */
  def hash: Column = xxhash64(col(FileKeys.PathKey), col(FileKeys.DvKey))

  /** The sorted distinct hashes of the keys of `keyed` (rows with pathKey and dvId), broadcast;
    * None when they would take more than `maxBytes` on the driver.
    */
  def collect(
      spark: SparkSession,
      keyed: DataFrame,
      maxBytes: Long,
      job: String
  ): Option[Broadcast[Array[Long]]] = {
    val rdd = keyed.select(hash).queryExecution.toRdd.mapPartitions { rows =>
      val b = Array.newBuilder[Long]
      rows.foreach(r => b += r.getLong(0))
      Iterator.single(sortedDistinct(b.result()))
    }
    val parts = new Array[Array[Long]](rdd.getNumPartitions)
    var total = 0L
    txlog.util.Jobs.named(spark, job) {
      spark.sparkContext.runJob(
        rdd,
        (it: Iterator[Array[Long]]) => it.next(),
        (i: Int, hashes: Array[Long]) => {
          total += 8L * hashes.length
          if (total <= maxBytes) parts(i) = hashes
        }
      )
    }
    if (total > maxBytes) None
    else Some(spark.sparkContext.broadcast(sortedDistinct(parts.flatten)))
  }

  /** Whether a keyed row's hash is one of `hashes`: the row may be one the tail replaces. */
  def member(hashes: Broadcast[Array[Long]]): Column = {
    val test = udf((h: Long) => java.util.Arrays.binarySearch(hashes.value, h) >= 0)
    test.withName(UdfName)(hash)
  }

  private def sortedDistinct(a: Array[Long]): Array[Long] = {
    java.util.Arrays.sort(a)
    if (a.isEmpty) a
    else {
      var n = 1
      var i = 1
      while (i < a.length) {
        if (a(i) != a(n - 1)) { a(n) = a(i); n += 1 }
        i += 1
      }
      java.util.Arrays.copyOf(a, n)
    }
  }
}
