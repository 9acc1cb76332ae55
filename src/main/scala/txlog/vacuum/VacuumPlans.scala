package txlog.vacuum

import scala.util.control.NonFatal

import org.apache.hadoop.fs.FileSystem
import org.apache.spark.sql.{DataFrame, SparkSession}
import org.apache.spark.sql.functions.{coalesce, col, count, lit, sum}
import org.apache.spark.storage.StorageLevel
import org.apache.spark.util.LongAccumulator

import txlog.util.SerializableConf

/** What a VACUUM found, and how it deletes it: by Spark jobs ([[Distributed]]) or on the driver
  * ([[OnDriver]]). `found` is a dry run's result (path, size, isDirectory, deleted = false).
  */
private[vacuum] sealed trait VacuumPlan {
  def found: DataFrame
  def numFiles: Long
  def size: Long

  /** Directories listed, the root included (1 for a lite vacuum, which lists none). */
  def dirs: Long

  /** Deletes the paths: the rows with `deleted` set, the number deleted, their release. */
  def delete(): (DataFrame, Long, () => Unit)

  /** Releases what `found` holds. */
  def release(): Unit
}

/** The distributed plan: `diff` ([[VacuumDiff]]) persisted in the shape of a dry run's result, so
  * that the result is what was persisted, counted by one job ([[tally]]); deletes by
  * [[ParallelDelete]]'s tasks.
  */
private[vacuum] final class Distributed(
    spark: SparkSession,
    diff: DataFrame,
    root: TableRoot,
    conf: SerializableConf,
    directories: Option[LongAccumulator]
) extends VacuumPlan {
  val found: DataFrame =
    diff.withColumn("deleted", lit(false)).persist(StorageLevel.MEMORY_AND_DISK)
  private var counted = (0L, 0L)

  /** Runs the job that lists (or reads) the candidates and counts what to delete. */
  def tally(): Unit = counted =
    try {
      val r = found.agg(count(lit(1)), coalesce(sum(col("size")), lit(0L))).head()
      (r.getLong(0), r.getLong(1))
    } catch { case NonFatal(e) => found.unpersist(); throw e }

  def numFiles: Long = counted._1
  def size: Long = counted._2
  def dirs: Long = directories.fold(1L)(_.sum + 1)
  def delete(): (DataFrame, Long, () => Unit) = ParallelDelete.run(spark, found, root, conf)
  def release(): Unit = found.unpersist()
}

/** The plan of a small table found on the driver ([[DriverVacuum]]): local relations, no job. */
private[vacuum] final class OnDriver(
    spark: SparkSession,
    f: DriverVacuum.Found,
    root: TableRoot,
    fs: FileSystem
) extends VacuumPlan {
  lazy val found: DataFrame = DriverVacuum.dryRun(spark, f)
  def numFiles: Long = f.numFiles
  def size: Long = f.size
  def dirs: Long = f.dirs
  def delete(): (DataFrame, Long, () => Unit) = {
    val (rows, n) = DriverVacuum.delete(spark, f, root, fs)
    (rows, n, () => ())
  }
  def release(): Unit = ()
}
