package txlog.storage

import java.util.UUID

import scala.util.control.NonFatal

import org.apache.hadoop.fs.{FileSystem, Path}

import txlog.errors.TxlogErrors

/** Hidden temporary files beside a target, for stores that publish by moving a finished file. */
private[txlog] object HiddenTempFiles {

  /** A hidden temporary name beside `target` (readers ignore names starting with a dot). */
  def tempPath(target: Path): Path =
    new Path(target.getParent, s".${target.getName}.${UUID.randomUUID()}.tmp")

  /** Writes `bytes` to a new temporary file beside `target` and returns its path. */
  def write(fs: FileSystem, target: Path, bytes: Array[Byte]): Path = {
    val tmp = tempPath(target)
    try {
      val out = fs.create(tmp, false)
      try out.write(bytes)
      finally out.close()
      tmp
    } catch {
      case NonFatal(e) =>
        deleteQuietly(fs, tmp)
        throw TxlogErrors.writeFailed(tmp.toString, e.toString, e)
    }
  }

  def deleteQuietly(fs: FileSystem, path: Path): Unit =
    try fs.delete(path, true)
    catch { case NonFatal(_) => () }
}
