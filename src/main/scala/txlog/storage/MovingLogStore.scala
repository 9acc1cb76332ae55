package txlog.storage

import scala.util.control.NonFatal

import org.apache.hadoop.fs.{FileSystem, Path}

import txlog.errors.TxlogErrors

/** A store that publishes by moving a finished temporary file into place: put-if-absent is a move
  * that fails if the target exists, overwrite a move that replaces it, both atomic.
  */
private[txlog] abstract class MovingLogStore(val fs: FileSystem) extends LogStore {

  /** Moves `from` to `to` unless `to` exists; false (and `from` left) when it existed. */
  protected def moveIfAbsent(from: Path, to: Path): Boolean

  /** Moves `from` to `to`, atomically replacing `to`. */
  protected def moveReplacing(from: Path, to: Path): Unit

  /** Writes `bytes` to a new hidden temporary file beside `target` and returns its path. */
  protected def stage(target: Path, bytes: Array[Byte]): Path =
    HiddenTempFiles.write(fs, target, bytes)

  def putIfAbsent(target: Path, bytes: Array[Byte]): Boolean = publish(stage(target, bytes), target)

  def publish(staged: Path, target: Path): Boolean =
    try {
      val moved = moveIfAbsent(staged, target)
      if (!moved) fs.delete(staged, false)
      moved
    } catch {
      case NonFatal(e) =>
        HiddenTempFiles.deleteQuietly(fs, staged)
        throw TxlogErrors.writeFailed(target.toString, e.toString, e)
    }

  def overwrite(target: Path, bytes: Array[Byte]): Unit = {
    val tmp = stage(target, bytes)
    try moveReplacing(tmp, target)
    catch {
      case NonFatal(e) =>
        HiddenTempFiles.deleteQuietly(fs, tmp)
        throw TxlogErrors.writeFailed(target.toString, e.toString, e)
    }
  }

  def delete(path: Path): Boolean = fs.delete(path, true)
}
