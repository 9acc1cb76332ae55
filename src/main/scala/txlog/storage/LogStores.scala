package txlog.storage

import org.apache.hadoop.fs.{FileSystem, Path}

import txlog.errors.TxlogErrors

/** Picks the [[LogStore]] for a path by its scheme (see [[StorageConf]] for the settings); a
  * `viewfs://` path gets its mount target's ([[MountedLogStore]]) unless its kind is set.
  */
private[txlog] object LogStores {

  /** The store for files under `path`, written through `fs`. Example: `LogStores.forPath(table.fs,
    * table.logDir).overwrite(lastCheckpoint, bytes)`.
    */
  def forPath(fs: FileSystem, path: Path): LogStore = {
    val scheme = Option(path.toUri.getScheme).getOrElse(fs.getUri.getScheme)
    val configured = StorageConf.get(fs.getConf, StorageConf.kindKey(scheme)).isDefined
    if (scheme == "viewfs" && !configured) {
      // The mount target's own store (see MountedLogStore).
      val target = MountedLogStore.resolve(fs, path)
      val targetScheme = Option(target.toUri.getScheme).getOrElse("viewfs")
      if (targetScheme != "viewfs") {
        return new MountedLogStore(fs, forPath(target.getFileSystem(fs.getConf), target))
      }
    }
    StorageConf.kind(fs.getConf, scheme) match {
      case StoreKind.Local =>
        if (scheme != "file") {
          throw TxlogErrors.invalidSetting(
            StorageConf.kindKey(scheme),
            "local",
            s"rename or object ('local' is only for file: paths, not $scheme:)"
          )
        }
        new LocalLogStore(fs)
      case StoreKind.Rename => new RenameLogStore(fs, StorageConf.singleWriter(fs.getConf))
      case StoreKind.Object =>
        new ObjectLogStore(
          fs,
          StorageConf.singleWriter(fs.getConf),
          StorageConf.sdkConditionalPut(fs.getConf),
          StorageConf.exclusiveCreateSchemes(fs.getConf)
        )
    }
  }
}
