package txlog.storage

import org.apache.hadoop.fs.{FileSystem, Path}

import txlog.LogPublishing

/** How files are published into `_delta_log` on one kind of storage, so that no reader ever sees a
  * partial file and no existing log file is ever replaced, except `_last_checkpoint`.
  *
  * Pick one with [[LogStores.forPath]]:
  * {{{
  * val store = LogStores.forPath(fs, logDir)
  * store.putIfAbsent(new Path(logDir, "00000000000000000003.json"), bytes) // false: existed
  * }}}
  */
private[txlog] trait LogStore {

  /** The file system the store writes through. */
  def fs: FileSystem

  /** Writes `bytes` to `target` unless it exists; false when it existed (it is left untouched).
    * Atomic: of racing writers exactly one gets true.
    */
  def putIfAbsent(target: Path, bytes: Array[Byte]): Boolean

  /** Moves a finished `staged` file to `target` unless `target` exists (put-if-absent, as
    * [[putIfAbsent]]); `staged` is gone afterwards either way.
    */
  def publish(staged: Path, target: Path): Boolean

  /** Writes `bytes` to `target`, replacing it atomically: readers see the old or the new content,
    * never a missing or partial file. Only `_last_checkpoint` is written this way.
    */
  def overwrite(target: Path, bytes: Array[Byte]): Unit

  /** Deletes `path` (a file or a staging directory); false if it did not exist. */
  def delete(path: Path): Boolean

  /** Refuses (STORAGE_NOT_ATOMIC) when this store cannot put-if-absent under `dir`; callers check
    * before expensive work so that it is not wasted.
    */
  def checkPutIfAbsent(dir: Path): Unit = ()

  /** How files are published under `dir`, for `describe`: the method, and whether racing writers
    * are safe (exactly one wins a version).
    */
  def publishing(dir: Path): LogPublishing
}
