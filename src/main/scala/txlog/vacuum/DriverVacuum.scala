package txlog.vacuum

import java.util.concurrent.Callable

import scala.collection.mutable
import scala.jdk.CollectionConverters._

import org.apache.hadoop.fs.FileSystem
import org.apache.spark.sql.{DataFrame, Row, SparkSession}

import txlog.Snapshot
import txlog.replay.DriverFileActions
import txlog.util.AwaitAll

/** A full VACUUM of a small table on the driver, without Spark jobs: the kept paths
  * ([[ValidFiles.ofLean]] over the snapshot's [[DriverFileActions]]) as a hash set, the table
  * listed by [[DriverListing]], the difference taken by [[VacuumDiff]]'s rule, and the deletes made
  * on [[DriverListing.Threads]] threads in [[ParallelDelete]]'s order (files, then directories
  * deepest first). The same answers as the distributed plan, which the suites check both ways.
  *
  * Everything it holds is counted against `budget` (an estimate of the heap its paths take): the
  * kept paths, the directories and the paths to delete. Past it, or when the snapshot's checkpoint
  * cannot be read here, it gives up before anything is deleted (None), and VACUUM plans its jobs.
  * The checkpoint's actions it goes over may be those the vacuum's load kept
  * ([[txlog.replay.DriverCheckpoint.of]] with `keepFiles`, within the same budget again), released
  * once this pass has them: the driver then holds at most twice the budget.
  *
  * {{{
  * DriverVacuum.find(snapshot, actions, root, fs, hidden, deleteBefore, budget)
  * }}}
  */
private[txlog] object DriverVacuum {

  /** Estimated heap bytes of one path held in a set, map or row (its characters, the String, the
    * entry): what [[find]] counts against its budget.
    */
  private def cost(path: String): Long = 2L * path.length + 96L

  /** What a vacuum found on the driver: rows (path, size, isDirectory) of the files and directories
    * to delete, the directories listed (the root included), and the paths of the log it skipped.
    */
  final class Found(
      val rows: IndexedSeq[Row],
      val dirs: Long,
      val skipped: SkippedPaths,
      val unrelated: SkippedPaths
  ) {
    def numFiles: Long = rows.size.toLong
    def size: Long = rows.iterator.map(_.getLong(1)).sum
  }

  def find(
      snapshot: Snapshot,
      actions: DriverFileActions,
      root: TableRoot,
      fs: FileSystem,
      hidden: HiddenNames,
      deleteBefore: Long,
      budget: Long
  ): Option[Found] = {
    val (skipped, unrelated) = (new SkippedPaths(), new SkippedPaths())
    var bytes = 0L
    val kept = new java.util.HashSet[String]()
    val cutoff = snapshot.tombstoneCutoff
    val read = actions.foreach { (add, remove) =>
      if (bytes <= budget) {
        ValidFiles.ofLean(add, remove, cutoff, root, deleteBefore, skipped, unrelated).foreach {
          p => if (kept.add(p)) bytes += cost(p)
        }
      }
    }
    if (!read || bytes > budget) return None
    // VacuumDiff's count per path: a directory once for itself and once per old file below it
    val directories = mutable.HashMap.empty[String, Int]
    def seen(dir: String): Unit = directories.get(dir) match {
      case Some(n) => directories(dir) = n + 1
      case None    => directories(dir) = 1; bytes += cost(dir)
    }
    val files = Vector.newBuilder[Listed]
    val listed = DriverListing.walk(fs, root, hidden) { e =>
      if (e.isDir) seen(e.path)
      else if (e.mtime < deleteBefore) {
        TableRoot.parents(e.path).foreach(seen)
        if (!kept.contains(e.path)) { files += e; bytes += cost(e.path) }
      }
      bytes <= budget
    }
    listed.map { dirs =>
      val old = files.result()
      val empty = directories.iterator.collect {
        case (d, 1) if !kept.contains(d) => Row(d, 0L, true)
      }.toVector
      val rows = old.map(e => Row(e.path, e.length, false)) ++ empty
      new Found(rows, dirs + 1, skipped, unrelated)
    }
  }

  /** `found`'s rows as a dry run's result (deleted false): a local relation, no job. */
  def dryRun(spark: SparkSession, found: Found): DataFrame =
    frame(spark, found.rows.map(r => Row(r.getString(0), r.getLong(1), r.getBoolean(2), false)))

  /** Deletes `found`'s paths: files first, then directories, deepest first, so that a directory
    * whose subdirectories go too is empty by its turn. Returns the rows with `deleted` set (a local
    * relation) and the number deleted.
    */
  def delete(
      spark: SparkSession,
      found: Found,
      root: TableRoot,
      fs: FileSystem
  ): (DataFrame, Long) = {
    def depth(r: Row) = r.getString(0).count(_ == '/')
    val (dirs, files) = found.rows.partition(_.getBoolean(2))
    val phases = files +: dirs.groupBy(depth).toSeq.sortBy(-_._1).map(_._2)
    val done = phases.flatMap(inParallel(_, root, fs))
    (frame(spark, done), done.count(_.getBoolean(3)).toLong)
  }

  /** Paths deleted at once in chunks, one chunk per call on the pool. */
  private val Chunk = 64

  private def inParallel(rows: IndexedSeq[Row], root: TableRoot, fs: FileSystem): Seq[Row] = {
    val delete = ParallelDelete.deleter(fs)
    val tasks = rows.grouped(Chunk).toSeq.map { chunk =>
      DriverListing.pool.submit(new Callable[Seq[Row]] {
        def call(): Seq[Row] = chunk.map { r =>
          val rel = r.getString(0)
          val deleted = TableRoot.deletable(rel) && delete(root.absolute(rel))
          Row(rel, r.getLong(1), r.getBoolean(2), deleted)
        }
      })
    }
    AwaitAll(tasks).flatten
  }

  private def frame(spark: SparkSession, rows: Seq[Row]): DataFrame =
    spark.createDataFrame(rows.asJava, ParallelDelete.schema)
}
