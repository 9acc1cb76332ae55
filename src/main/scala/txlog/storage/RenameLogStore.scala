package txlog.storage

import scala.util.control.NonFatal

import org.apache.hadoop.fs.{FileAlreadyExistsException, FileContext, FileSystem, Options, Path}

import txlog.LogPublishing
import txlog.errors.TxlogErrors

/** File systems whose `FileContext.rename` is atomic (HDFS): with `Rename.NONE` it fails if the
  * target exists, with `Rename.OVERWRITE` it replaces the target in one step. (`FileSystem.rename`
  * is not used: on many file systems it replaces an existing target or only returns false.)
  *
  * Only HDFS is known to do that atomically: elsewhere (ABFS, GCS, a local disk, an object store)
  * `FileContext` checks that the target is absent and then renames, and two writers can both pass
  * the check. So a directory whose storage is not HDFS (`viewfs://` resolved to what it mounts) nor
  * a scheme `spark.txlog.storage.atomicRenameSchemes` names is refused with STORAGE_NOT_ATOMIC
  * before anything is written, unless `singleWriter`.
  */
private[txlog] final class RenameLogStore(fs: FileSystem, singleWriter: Boolean = false)
    extends MovingLogStore(fs) {

  private def context(p: Path): FileContext = FileContext.getFileContext(p.toUri, fs.getConf)

  override def checkPutIfAbsent(dir: Path): Unit =
    if (!singleWriter) {
      val scheme = RenameLogStore.storageScheme(fs, dir)
      if (!StorageConf.atomicRenameSchemes(fs.getConf)(scheme)) {
        throw TxlogErrors.renameNotAtomic(dir.toString, scheme)
      }
    }

  def publishing(dir: Path): LogPublishing = {
    val scheme = RenameLogStore.storageScheme(fs, dir)
    if (StorageConf.atomicRenameSchemes(fs.getConf)(scheme)) {
      LogPublishing(scheme, "atomic rename that refuses an existing target (FileContext)", true)
    } else if (singleWriter) {
      LogPublishing(scheme, "check-then-rename, one writer promised (storage.singleWriter)", false)
    } else {
      LogPublishing(scheme, "refused: rename not known atomic (STORAGE_NOT_ATOMIC)", false)
    }
  }

  override def publish(staged: Path, target: Path): Boolean = {
    checkPutIfAbsent(target.getParent)
    super.publish(staged, target)
  }

  protected def moveIfAbsent(from: Path, to: Path): Boolean =
    try {
      context(to).rename(from, to, Options.Rename.NONE)
      // A delegating file system may report a refused rename only by leaving the source.
      !fs.exists(from)
    } catch { case _: FileAlreadyExistsException => false }

  protected def moveReplacing(from: Path, to: Path): Unit =
    context(to).rename(from, to, Options.Rename.OVERWRITE)
}

private[txlog] object RenameLogStore {

  /** The scheme of the storage that holds `dir`: a `viewfs://` path resolved through its mount
    * table (from `dir`'s nearest existing ancestor), any other its own.
    */
  def storageScheme(fs: FileSystem, dir: Path): String = {
    val own = Option(dir.toUri.getScheme).getOrElse(fs.getUri.getScheme)
    if (own != "viewfs") own
    else {
      val existing = Iterator.iterate(dir)(_.getParent).takeWhile(_ != null).find { p =>
        try fs.exists(p)
        catch { case NonFatal(_) => false }
      }
      existing
        .flatMap(p =>
          try Some(fs.resolvePath(p))
          catch { case NonFatal(_) => None }
        )
        .flatMap(p => Option(p.toUri.getScheme))
        .getOrElse(own)
    }
  }
}
