package txlog.vacuum

import java.io.{FileNotFoundException, IOException}
import java.nio.file.{Files, NoSuchFileException, Paths}
import java.nio.file.attribute.BasicFileAttributes

import org.apache.hadoop.fs.{ChecksumFileSystem, FileSystem, LocalFileSystem, Path}
import org.apache.hadoop.fs.RawLocalFileSystem
import org.apache.spark.sql.{DataFrame, Row, SparkSession}
import org.apache.spark.sql.functions.{col, size, split}
import org.apache.spark.sql.types._
import org.apache.spark.storage.StorageLevel

import txlog.util.SerializableConf

/** Deletes VACUUM's files by Spark tasks, in the partitions the diff already has (one delete call
  * per path, never recursive: a directory that is not empty stays). Files go first, in one job;
  * then directories, one job per depth, deepest first, so that a directory whose subdirectories are
  * deleted too is empty by its turn. A path that is already gone counts as deleted; one the storage
  * refuses to delete (or that is not a plain path below the root: never `_delta_log`, never `..`)
  * as not deleted. Returns the rows with `deleted` set (persisted, each job's part counted as it
  * ran), the number deleted, and what releases the persisted parts.
  */
private[txlog] object ParallelDelete {

  val schema: StructType = new StructType()
    .add("path", StringType, nullable = false)
    .add("size", LongType, nullable = false)
    .add("isDirectory", BooleanType, nullable = false)
    .add("deleted", BooleanType, nullable = false)

  def run(
      spark: SparkSession,
      diff: DataFrame,
      root: TableRoot,
      conf: SerializableConf
  ): (DataFrame, Long, () => Unit) = {
    val depth = size(split(col("path"), "/"))
    // One row per depth (path segments), so the driver holds at most the tree's depth.
    val depths = diff
      .where(col("isDirectory"))
      .select(depth.as("d"))
      .distinct()
      .collect()
      .map(_.getInt(0))
      .sorted
      .reverse
    val phases = diff.where(!col("isDirectory")) +:
      depths.toSeq.map(d => diff.where(col("isDirectory") && depth === d))
    val done = phases.map { part =>
      val rows = deleting(spark, part, root, conf).persist(StorageLevel.MEMORY_AND_DISK)
      (rows, rows.where(col("deleted")).count())
    }
    (
      done.map(_._1).reduce(_ unionByName _),
      done.map(_._2).sum,
      () => done.foreach(_._1.unpersist())
    )
  }

  private def deleting(
      spark: SparkSession,
      rows: DataFrame,
      root: TableRoot,
      conf: SerializableConf
  ): DataFrame =
    spark.createDataFrame(
      rows
        .select("path", "size", "isDirectory")
        .rdd
        .mapPartitions { it =>
          lazy val delete = deleter(new Path(root.root).getFileSystem(conf.value))
          it.map { r =>
            val rel = r.getString(0)
            val deleted = TableRoot.deletable(rel) && delete(root.absolute(rel))
            Row(rel, r.getLong(1), r.getBoolean(2), deleted)
          }
        }
        .setName(s"txlog: vacuum ${root.root}"),
      schema
    )

  /** What deletes one path on `fs` (never recursively): true when it is gone, false when the
    * storage refused. On Hadoop's local file system (a subclass whose `delete` is Hadoop's, as
    * Hive's ProxyLocalFileSystem, too) the same calls are made with java.nio: its `delete` stats
    * the file and its checksum through several path parses, most of a driver vacuum's delete time.
    * Its answers are kept: a path that does not exist is false; a file's checksum file
    * (`.<name>.crc`) goes first, when `fs` keeps checksums; a directory that is not empty stays.
    */
  private[vacuum] def deleter(fs: FileSystem): Path => Boolean = {
    def hadoops(c: Class[_], declaring: Class[_]) =
      c.getMethod("delete", classOf[Path], java.lang.Boolean.TYPE).getDeclaringClass == declaring
    val local = fs match {
      case l: LocalFileSystem
          if hadoops(l.getClass, classOf[ChecksumFileSystem]) &&
            l.getRawFileSystem.getClass == classOf[RawLocalFileSystem] =>
        Some(true)
      case r: RawLocalFileSystem if hadoops(r.getClass, classOf[RawLocalFileSystem]) => Some(false)
      case _                                                                         => None
    }
    p =>
      try local.fold(fs.delete(p, false))(checksums => localDelete(p, checksums))
      catch {
        case _: FileNotFoundException => true
        case _: IOException           => false
      }
  }

  private def localDelete(p: Path, checksums: Boolean): Boolean = {
    val file = Paths.get(p.toUri.getPath)
    val attributes =
      try Files.readAttributes(file, classOf[BasicFileAttributes])
      catch { case _: NoSuchFileException => return false }
    if (!attributes.isDirectory && checksums) {
      Files.deleteIfExists(file.resolveSibling(s".${file.getFileName}.crc"))
    }
    try Files.delete(file)
    catch { case _: NoSuchFileException => return false }
    true
  }
}
