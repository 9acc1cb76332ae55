package txlog.storage

import org.apache.hadoop.fs.{FileSystem, Path}

import txlog.TxlogErrors

/** Picks the [[LogStore]] for a path by its scheme (see [[StorageConf]] for the settings). */
private[txlog] object LogStores {

  /** The store for files under `path`, written through `fs`. Example: `LogStores.forPath(table.fs,
    * table.logDir).overwrite(lastCheckpoint, bytes)`.
    */
  def forPath(fs: FileSystem, path: Path): LogStore = {
    val scheme = Option(path.toUri.getScheme).getOrElse(fs.getUri.getScheme)
    StorageConf.kind(fs.getConf, scheme) match {
      case StoreKind.Local =>
        if (scheme != "file") {
          throw TxlogErrors.invalidArgument(
            StorageConf.kindKey(scheme),
            s"'local' is only for file: paths, not $scheme:"
          )
        }
        new LocalLogStore(fs)
      case StoreKind.Rename => new RenameLogStore(fs)
      case StoreKind.Object => new ObjectLogStore(fs, StorageConf.singleWriter(fs.getConf))
    }
  }
}
