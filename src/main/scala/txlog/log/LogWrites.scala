package txlog.log

import org.apache.commons.io.IOUtils
import org.apache.hadoop.fs.{FileSystem, Path}

import txlog.storage.{LogStores, HiddenTempFiles}

/** Publishing files into `_delta_log` so that no reader ever sees a partial file, through the
  * [[txlog.storage.LogStore]] of the path's scheme: an existing log file is never replaced
  * (put-if-absent), and only `_last_checkpoint` is overwritten, atomically.
  */
private[txlog] object LogWrites {

  /** A hidden temporary name beside `target` (readers ignore names starting with a dot). */
  def tempPath(target: Path): Path = HiddenTempFiles.tempPath(target)

  /** Writes `bytes` to `target` unless it exists; false when it existed (nothing is changed).
    * Example: `LogWrites.putIfAbsent(fs, new Path(logDir, "00000000000000000003.crc"), bytes)`.
    */
  def putIfAbsent(fs: FileSystem, target: Path, bytes: Array[Byte]): Boolean =
    LogStores.forPath(fs, target).putIfAbsent(target, bytes)

  /** Writes `bytes` to `target`, replacing it atomically if it exists (`_last_checkpoint`). */
  def overwrite(fs: FileSystem, target: Path, bytes: Array[Byte]): Unit =
    LogStores.forPath(fs, target).overwrite(target, bytes)

  /** Moves a finished temporary file into place unless `target` exists; `tmp` is gone afterwards.
    * Returns false when `target` existed (it is left untouched). `overwrite = true` replaces
    * `target` atomically instead; it reads `tmp` into memory, so it is for small files only.
    */
  def publish(fs: FileSystem, tmp: Path, target: Path, overwrite: Boolean = false): Boolean = {
    val store = LogStores.forPath(fs, target)
    if (!overwrite) store.publish(tmp, target)
    else {
      val in = fs.open(tmp)
      val bytes =
        try IOUtils.toByteArray(in)
        finally in.close()
      store.overwrite(target, bytes)
      deleteQuietly(fs, tmp)
      true
    }
  }

  def deleteQuietly(fs: FileSystem, path: Path): Unit = HiddenTempFiles.deleteQuietly(fs, path)
}
