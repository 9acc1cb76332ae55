package txlog.vacuum

import java.io.{FileNotFoundException, IOException}
import java.nio.file.{Files, LinkOption, NoSuchFileException, Paths}
import java.nio.file.attribute.BasicFileAttributes

import scala.util.control.NonFatal

import org.apache.hadoop.fs.{FileStatus, FileSystem, LocalFileSystem, Path, RawLocalFileSystem}
import org.apache.spark.rdd.RDD
import org.apache.spark.sql.SparkSession
import org.apache.spark.util.LongAccumulator

import txlog.config.TxlogConf
import txlog.errors.TxlogErrors
import txlog.util.SerializableConf

/** One file or directory found under the table root: its [[TableRoot]]-relative path, length and
  * modification time (ms).
  */
private[txlog] final case class Listed(path: String, length: Long, isDir: Boolean, mtime: Long)

/** The table directory listed recursively by Spark tasks, never on the driver: one task lists the
  * root, its entries are spread over `parallelism` tasks, and each task walks its directories depth
  * first (holding one directory iterator per level). Hidden names ([[HiddenNames]]) are neither
  * returned nor descended into, so `_delta_log` is never listed. Directories are read a page at a
  * time (`listStatusIterator`), so a task holds one page per level. Symbolic links are neither
  * returned nor followed: a link to a directory outside the table must not make its files look like
  * the table's. A directory that vanishes while listed (a concurrent vacuum) lists as empty; any
  * other storage failure is LOG_READ_FAILED naming the directory.
  *
  * On Hadoop's local file system a directory is read with java.nio instead (one `lstat` per entry,
  * which also tells links apart): Hadoop's local listing costs several system calls and path parses
  * per entry (about 9x the time for 200k files), and reads a whole directory anyway.
  */
private[txlog] object TreeListing {

  /** Tasks the root's entries are spread over (default: twice the default parallelism). */
  val ParallelismKey: String = TxlogConf.VacuumListingParallelism.key

  def list(
      spark: SparkSession,
      root: TableRoot,
      conf: SerializableConf,
      hidden: HiddenNames,
      directories: LongAccumulator
  ): RDD[Listed] = {
    val sc = spark.sparkContext
    val parallelism = TxlogConf.VacuumListingParallelism
      .get(spark)
      .map(_.toInt)
      .getOrElse(sc.defaultParallelism * 2)
      .max(1)
    val top = sc
      .parallelize(Seq(root.root), 1)
      .mapPartitions { it =>
        it.flatMap { r =>
          val dir = new Path(r)
          entries(dir.getFileSystem(conf.value), dir, "", hidden)
        }
      }
      .setName(s"txlog: list ${root.root}")
    top
      .repartition(parallelism)
      .mapPartitions { it =>
        lazy val fs = new Path(root.root).getFileSystem(conf.value)
        it.flatMap { e =>
          if (!e.isDir) Iterator.single(e)
          else {
            directories.add(1)
            Iterator.single(e) ++ walk(fs, root, e.path, hidden, directories)
          }
        }
      }
      .setName(s"txlog: list the directories of ${root.root}")
  }

  /** Everything below directory `relative`, depth first. */
  private def walk(
      fs: FileSystem,
      root: TableRoot,
      relative: String,
      hidden: HiddenNames,
      directories: LongAccumulator
  ): Iterator[Listed] = new Iterator[Listed] {
    private var stack: List[Iterator[Listed]] =
      List(entries(fs, root.absolute(relative), relative, hidden))
    private def advance(): Unit =
      while (stack.nonEmpty && !stack.head.hasNext) stack = stack.tail
    def hasNext: Boolean = { advance(); stack.nonEmpty }
    def next(): Listed = {
      advance()
      val e = stack.head.next()
      if (e.isDir) {
        directories.add(1)
        stack = entries(fs, root.absolute(e.path), e.path, hidden) :: stack
      }
      e
    }
  }

  /** The visible entries of one directory, paths relative to the root (`relative` is the
    * directory's own, "" for the root).
    */
  private[vacuum] def entries(
      fs: FileSystem,
      dir: Path,
      relative: String,
      hidden: HiddenNames
  ): Iterator[Listed] = fs match {
    case _: LocalFileSystem | _: RawLocalFileSystem => localEntries(dir, relative, hidden)
    case _                                          => storageEntries(fs, dir, relative, hidden)
  }

  private def failed(dir: Path, e: IOException) = TxlogErrors.logReadFailed(
    dir.toString,
    None,
    s"Listing the table directory failed: ${e.getClass.getSimpleName}: ${e.getMessage}",
    e
  )

  private def child(relative: String, name: String) =
    if (relative.isEmpty) name else s"$relative/$name"

  /** [[entries]] on the local file system: the directory read whole (as Hadoop's local listing
    * does), each entry's attributes read without following links; an entry that vanished in between
    * is left out, as Hadoop does.
    */
  private def localEntries(dir: Path, relative: String, hidden: HiddenNames): Iterator[Listed] = {
    val out = Vector.newBuilder[Listed]
    try {
      val stream = Files.newDirectoryStream(Paths.get(dir.toUri.getPath))
      try
        stream.forEach { p =>
          val name = p.getFileName.toString
          if (!hidden(name)) {
            val a =
              try
                Files.readAttributes(p, classOf[BasicFileAttributes], LinkOption.NOFOLLOW_LINKS)
              catch { case _: NoSuchFileException => null }
            if (a != null && !a.isSymbolicLink) {
              val length = if (a.isDirectory) 0L else a.size
              out += Listed(
                child(relative, name),
                length,
                a.isDirectory,
                a.lastModifiedTime.toMillis
              )
            }
          }
        }
      finally stream.close()
    } catch {
      case _: NoSuchFileException => ()
      case e: java.io.UncheckedIOException =>
        e.getCause match {
          case _: NoSuchFileException => ()
          case c                      => throw failed(dir, c)
        }
      case e: IOException => throw failed(dir, e)
    }
    out.result().iterator
  }

  private def storageEntries(
      fs: FileSystem,
      dir: Path,
      relative: String,
      hidden: HiddenNames
  ): Iterator[Listed] = {
    // Streamed: object stores hand out a directory a page at a time.
    val statuses: Iterator[FileStatus] =
      try {
        val remote = fs.listStatusIterator(dir)
        new Iterator[FileStatus] {
          def hasNext: Boolean =
            try remote.hasNext
            catch {
              case _: FileNotFoundException => false
              case e: IOException           => throw failed(dir, e)
            }
          def next(): FileStatus = remote.next()
        }
      } catch {
        case _: FileNotFoundException => Iterator.empty
        case e: IOException           => throw failed(dir, e)
      }
    statuses
      .filterNot(s => hidden(s.getPath.getName) || isLink(fs, s))
      .map { s =>
        val name = s.getPath.getName
        Listed(
          child(relative, name),
          if (s.isDirectory) 0L else s.getLen,
          s.isDirectory,
          s.getModificationTime
        )
      }
  }

  /** Whether `s` is a symbolic link. Hadoop's local file system reports a link as what it points
    * to, so on `file:` the link itself is asked about.
    */
  private def isLink(fs: FileSystem, s: FileStatus): Boolean =
    s.isSymlink || (fs.getUri.getScheme == "file" && {
      try java.nio.file.Files.isSymbolicLink(java.nio.file.Paths.get(s.getPath.toUri))
      catch { case NonFatal(_) => false }
    })
}
