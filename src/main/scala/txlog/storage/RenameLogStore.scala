package txlog.storage

import org.apache.hadoop.fs.{FileAlreadyExistsException, FileContext, FileSystem, Options, Path}

/** File systems whose `FileContext.rename` is atomic (HDFS): with `Rename.NONE` it fails if the
  * target exists, with `Rename.OVERWRITE` it replaces the target in one step. (`FileSystem.rename`
  * is not used: on many file systems it replaces an existing target or only returns false.)
  */
private[txlog] final class RenameLogStore(fs: FileSystem) extends MovingLogStore(fs) {

  private def context(p: Path): FileContext = FileContext.getFileContext(p.toUri, fs.getConf)

  protected def moveIfAbsent(from: Path, to: Path): Boolean =
    try {
      context(to).rename(from, to, Options.Rename.NONE)
      // A delegating file system may report a refused rename only by leaving the source.
      !fs.exists(from)
    } catch { case _: FileAlreadyExistsException => false }

  protected def moveReplacing(from: Path, to: Path): Unit =
    context(to).rename(from, to, Options.Rename.OVERWRITE)
}
