package txlog.storage

import java.nio.file.{FileAlreadyExistsException, Files, Paths, StandardCopyOption}

import org.apache.hadoop.fs.{FileSystem, Path}

import txlog.LogPublishing

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
