package txlog.log

import java.nio.file.{FileAlreadyExistsException, Files, Paths}
import java.util.UUID

import scala.util.control.NonFatal

import org.apache.hadoop.fs.{FileSystem, Path}

import txlog.TxlogErrors

/** Publishing files into `_delta_log` so that no reader ever sees a partial file: content is
  * written to a hidden temporary file beside the target and then moved into place.
  *
  * Put-if-absent is atomic on local disks (a hard link, which fails if the target exists) and on
  * HDFS (rename fails if the target exists). Object stores get a check-then-rename, which is only
  * safe for content that racing writers produce identically (checkpoints are such).
  */
private[txlog] object LogWrites {

  /** A hidden temporary name beside `target` (readers ignore names starting with a dot). */
  def tempPath(target: Path): Path =
    new Path(target.getParent, s".${target.getName}.${UUID.randomUUID()}.tmp")

  /** Writes `bytes` to `target` unless it exists; false when it existed (nothing is changed).
    * Example: `LogWrites.putIfAbsent(fs, new Path(logDir, "00000000000000000003.crc"), bytes)`.
    */
  def putIfAbsent(fs: FileSystem, target: Path, bytes: Array[Byte]): Boolean = {
    val tmp = tempPath(target)
    writeFully(fs, tmp, bytes)
    publish(fs, tmp, target, overwrite = false)
  }

  /** Writes `bytes` to `target`, replacing it atomically if it exists. */
  def overwrite(fs: FileSystem, target: Path, bytes: Array[Byte]): Unit = {
    val tmp = tempPath(target)
    writeFully(fs, tmp, bytes)
    publish(fs, tmp, target, overwrite = true)
  }

  /** Moves a finished temporary file into place; `tmp` is gone afterwards. Without `overwrite`
    * returns false (and deletes `tmp`) when `target` already exists.
    */
  def publish(fs: FileSystem, tmp: Path, target: Path, overwrite: Boolean): Boolean = {
    try {
      val moved =
        if (fs.getUri.getScheme == "file") publishLocal(tmp, target, overwrite)
        else if (overwrite) {
          fs.delete(target, false)
          fs.rename(tmp, target)
        } else !fs.exists(target) && fs.rename(tmp, target)
      if (!moved) fs.delete(tmp, false)
      moved
    } catch {
      case NonFatal(e) =>
        deleteQuietly(fs, tmp)
        throw TxlogErrors.writeFailed(target.toString, e.toString, e)
    }
  }

  private def publishLocal(tmp: Path, target: Path, overwrite: Boolean): Boolean = {
    val (src, dst) = (Paths.get(tmp.toUri), Paths.get(target.toUri))
    if (overwrite) {
      Files.move(src, dst, java.nio.file.StandardCopyOption.ATOMIC_MOVE)
      true
    } else {
      try {
        Files.createLink(dst, src)
        Files.delete(src)
        true
      } catch { case _: FileAlreadyExistsException => false }
    }
  }

  private def writeFully(fs: FileSystem, path: Path, bytes: Array[Byte]): Unit =
    try {
      val out = fs.create(path, false)
      try out.write(bytes)
      finally out.close()
    } catch {
      case NonFatal(e) =>
        deleteQuietly(fs, path)
        throw TxlogErrors.writeFailed(path.toString, e.toString, e)
    }

  def deleteQuietly(fs: FileSystem, path: Path): Unit =
    try fs.delete(path, true)
    catch { case NonFatal(_) => () }
}
