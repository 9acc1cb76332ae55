package txlog.storage

import scala.util.control.NonFatal

import org.apache.hadoop.fs.{FileSystem, Path}

import txlog.LogPublishing

/** The store of a `viewfs://` directory: the one its mount target gets (a local disk's hard links,
  * HDFS's atomic rename, an object store's conditional create or refusal), with every path resolved
  * through the mount table first. A mount table can put any file system behind `viewfs://`, and
  * only the target's own way of publishing is as atomic as that storage allows; assuming HDFS's
  * rename for every mount would check-then-rename on the others.
  */
private[txlog] final class MountedLogStore(val fs: FileSystem, inner: LogStore) extends LogStore {
  private def resolved(p: Path): Path = MountedLogStore.resolve(fs, p)

  def putIfAbsent(target: Path, bytes: Array[Byte]): Boolean =
    inner.putIfAbsent(resolved(target), bytes)

  def publish(staged: Path, target: Path): Boolean =
    inner.publish(resolved(staged), resolved(target))

  def overwrite(target: Path, bytes: Array[Byte]): Unit = inner.overwrite(resolved(target), bytes)

  def delete(path: Path): Boolean = fs.delete(path, true)

  override def checkPutIfAbsent(dir: Path): Unit = inner.checkPutIfAbsent(resolved(dir))

  def publishing(dir: Path): LogPublishing = {
    val p = inner.publishing(resolved(dir))
    p.copy(method = s"viewfs mount: ${p.method}")
  }
}

private[txlog] object MountedLogStore {

  /** `p` on its mount target: its nearest existing ancestor resolved by `fs` (a `viewfs://` file
    * system resolves through its mount table), the rest of `p` appended. `p` itself when nothing
    * resolves (no mount covers it: writing there fails as the file system says).
    */
  def resolve(fs: FileSystem, p: Path): Path = {
    val ancestors = Iterator.iterate(p)(_.getParent).takeWhile(_ != null).toSeq
    val found = ancestors.iterator.flatMap { a =>
      try { if (fs.exists(a)) Some(a -> fs.resolvePath(a)) else None }
      catch { case NonFatal(_) => None }
    }
    if (!found.hasNext) p
    else {
      val (a, target) = found.next()
      val rest = p.toUri.getPath.stripPrefix(a.toUri.getPath).stripPrefix("/")
      if (rest.isEmpty) target else new Path(target, rest)
    }
  }
}
