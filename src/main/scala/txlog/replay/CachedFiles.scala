package txlog.replay

import org.apache.spark.HashPartitioner
import org.apache.spark.rdd.RDD
import org.apache.spark.sql.{DataFrame, SparkSession}
import org.apache.spark.storage.StorageLevel

import txlog.config.TxlogConf
import txlog.util.Jobs

/** The counting columns of one partition of a [[CachedFiles]], sorted by key, and the deletion
  * times of its removes, sorted, so that a key is found and the unexpired tombstones counted by
  * binary search.
  */
private[txlog] final class CachedFilesPartition(
    keys: Array[String],
    isAdd: Array[Boolean],
    sizes: Array[Long],
    deletedAt: Array[Long],
    removeTimes: Array[Long]
) extends Serializable {

  /** The base's counts that `touched` (keys of this partition) replace. */
  def replaced(touched: Iterable[String], tombstoneCutoff: Long): FileCounts =
    touched.foldLeft(FileCounts.zero) { (c, k) =>
      val i = java.util.Arrays.binarySearch(keys.asInstanceOf[Array[AnyRef]], k)
      if (i < 0) c
      else if (isAdd(i)) c.copy(files = c.files + 1, bytes = c.bytes + sizes(i))
      else if (deletedAt(i) > tombstoneCutoff) c.copy(tombstones = c.tombstones + 1)
      else c
    }

  /** Removes of this partition deleted after `tombstoneCutoff`. */
  def tombstonesAfter(tombstoneCutoff: Long): Long = {
    var (lo, hi) = (0, removeTimes.length) // first index with time > cutoff
    while (lo < hi) {
      val mid = (lo + hi) >>> 1
      if (removeTimes(mid) > tombstoneCutoff) hi = mid else lo = mid + 1
    }
    removeTimes.length - lo
  }
}

/** A cached snapshot's files hashed by key into partitions held by the executors, so that an update
  * of a few commits is counted by looking up the keys it touches instead of scanning every file:
  * the snapshot's counts, minus what the touched keys had, plus the new winners.
  *
  * @param files
  *   live files of the cached snapshot
  * @param bytes
  *   their total size
  */
private[txlog] final class CachedFiles private (
    rdd: RDD[CachedFilesPartition],
    partitioner: HashPartitioner,
    files: Long,
    bytes: Long
) {

  /** The counts of the cached snapshot with `overlay` (later actions) on top. The driver holds the
    * overlay's keys (bounded with it by [[DriverBudgets.MaxOverlayBytesConf]]) and collects one
    * result per partition.
    */
  def counts(
      spark: SparkSession,
      overlay: FileOverlay,
      tombstoneCutoff: Long,
      job: String
  ): FileCounts = {
    val byPartition = overlay.newest.keys
      .map { case (p, d) => CachedFiles.key(p, d) }
      .groupBy(partitioner.getPartition)
      .map { case (i, ks) => i -> ks.toArray }
    val parts = Jobs.named(spark, job) {
      rdd
        .mapPartitionsWithIndex { (i, it) =>
          it.map { p =>
            val touched = byPartition.getOrElse(i, Array.empty[String])
            (p.tombstonesAfter(tombstoneCutoff), p.replaced(touched, tombstoneCutoff))
          }
        }
        .collect()
    }
    val replaced = parts.map(_._2).foldLeft(FileCounts.zero)(_ + _)
    val base = FileCounts(files, bytes, parts.map(_._1).sum)
    FileCounts(
      base.files - replaced.files,
      base.bytes - replaced.bytes,
      base.tombstones - replaced.tombstones
    ) + overlay.counts(tombstoneCutoff)
  }

  def unpersist(): Unit = rdd.unpersist(blocking = false)
}

private[txlog] object CachedFiles {

  /** Snapshots with more files and tombstones than this are not indexed (the index is held in
    * memory, spilling to disk); their updates count by scanning the cached files.
    */
  val MaxIndexedFilesConf: String = TxlogConf.UpdateMaxIndexedFiles.key

  private[replay] def key(pathKey: String, dvId: String): String = pathKey + "\u0000" + dvId

  /** Indexes `counted` (a cached file state in the [[FileCounts.counting]] shape, with `counts`),
    * or None when it is too large. Runs one job (a shuffle of the counting columns).
    */
  def build(
      spark: SparkSession,
      counted: DataFrame,
      counts: FileCounts,
      job: String
  ): Option[CachedFiles] = {
    val max = TxlogConf.UpdateMaxIndexedFiles.get(spark)
    if (counts.files + counts.tombstones > max) None
    else {
      val partitioner = new HashPartitioner(spark.sparkContext.defaultParallelism)
      val rdd = counted
        .select("pathKey", "dvId", "isAdd", "size", "deletedAt")
        .rdd
        .map { r =>
          val deletedAt = if (r.isNullAt(4)) 0L else r.getLong(4)
          key(r.getString(0), r.getString(1)) ->
            (r.getBoolean(2), if (r.isNullAt(3)) 0L else r.getLong(3), deletedAt)
        }
        .partitionBy(partitioner)
        .mapPartitions(it => Iterator(partition(it)), preservesPartitioning = true)
      rdd.setName(job).persist(StorageLevel.MEMORY_AND_DISK)
      Jobs.named(spark, job)(rdd.count())
      Some(new CachedFiles(rdd, partitioner, counts.files, counts.bytes))
    }
  }

  private def partition(it: Iterator[(String, (Boolean, Long, Long))]): CachedFilesPartition = {
    val rows = it.toArray.sortBy(_._1)
    new CachedFilesPartition(
      rows.map(_._1),
      rows.map(_._2._1),
      rows.map(_._2._2),
      rows.map(_._2._3),
      rows.collect { case (_, (false, _, at)) => at }.sorted
    )
  }
}
