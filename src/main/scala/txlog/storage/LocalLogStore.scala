package txlog.storage

import java.nio.file.{FileAlreadyExistsException, Files, Paths, StandardCopyOption}
import java.nio.file.{NoSuchFileException, StandardOpenOption}

import scala.util.control.NonFatal

import org.apache.hadoop.fs.{FileSystem, LocalFileSystem, Path, RawLocalFileSystem}

import txlog.LogPublishing
import txlog.errors.TxlogErrors

/** Local disks: put-if-absent is a hard link (which fails if the target exists) and overwrite an
  * `ATOMIC_MOVE` (a POSIX rename, which replaces the target atomically).
  *
  * Hadoop's `LocalFileSystem` (what delta-spark and Spark write local tables with) keeps a checksum
  * of each file it writes in a side file, `.<name>.crc`, and verifies it on every read. txlog
  * writes the bytes itself, so before a file is put in place, a side file left by an earlier file
  * of that name is deleted: kept, it makes the new content fail the check (delta-spark then takes a
  * rewritten `_last_checkpoint` for a corrupt one, retries for seconds and lists the log).
  */
private[txlog] final class LocalLogStore(fs: FileSystem) extends MovingLogStore(fs) {

  def publishing(dir: Path): LogPublishing =
    LogPublishing("file", "hard link (put-if-absent), atomic move (overwrite)", true)

  /** Hadoop's own local file system: its files are written with java.nio instead. Any other class
    * configured for `file:` (`fs.file.impl`) is the user's choice and is written through.
    */
  private val hadoopLocal =
    fs.getClass == classOf[LocalFileSystem] || fs.getClass == classOf[RawLocalFileSystem]

  /** The temporary file written with java.nio, not through Hadoop's local file system: its `create`
    * sets the file's permissions by running `chmod` in a new process when Hadoop's native library
    * is absent (the usual case), about 20 ms per log file. The file gets the umask's permissions,
    * as there.
    */
  override protected def stage(target: Path, bytes: Array[Byte]): Path =
    if (hadoopLocal) staged(target, bytes) else super.stage(target, bytes)

  private def staged(target: Path, bytes: Array[Byte]): Path = {
    val tmp = HiddenTempFiles.tempPath(target)
    val file = Paths.get(tmp.toUri)
    def create() = Files.write(file, bytes, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)
    try
      try create()
      catch {
        case _: NoSuchFileException => // a new table's log directory: made, as Hadoop's create does
          Files.createDirectories(file.getParent)
          create()
      }
    catch {
      case e: FileAlreadyExistsException => // not ours: a random name taken, left alone
        throw TxlogErrors.writeFailed(tmp.toString, e.toString, e)
      case NonFatal(e) =>
        try Files.deleteIfExists(file)
        catch { case NonFatal(_) => () }
        throw TxlogErrors.writeFailed(tmp.toString, e.toString, e)
    }
    tmp
  }

  protected def moveIfAbsent(from: Path, to: Path): Boolean = {
    val (src, dst) = (Paths.get(from.toUri), Paths.get(to.toUri))
    // A side file beside an absent target is an orphan: nothing it could verify is there.
    if (!Files.exists(dst)) dropChecksum(to)
    try {
      Files.createLink(dst, src)
      Files.delete(src)
      true
    } catch { case _: FileAlreadyExistsException => false }
  }

  protected def moveReplacing(from: Path, to: Path): Unit = {
    // Before the move: a reader in between sees the old content unverified, never the new content
    // checked against the old checksum.
    dropChecksum(to)
    Files.move(Paths.get(from.toUri), Paths.get(to.toUri), StandardCopyOption.ATOMIC_MOVE)
  }

  private def dropChecksum(target: Path): Unit =
    Files.deleteIfExists(Paths.get(LocalLogStore.checksumFile(target).toUri))
}

private[txlog] object LocalLogStore {

  /** The side file in which Hadoop's `LocalFileSystem` keeps the checksum of `file`. */
  def checksumFile(file: Path): Path = new Path(file.getParent, s".${file.getName}.crc")
}
