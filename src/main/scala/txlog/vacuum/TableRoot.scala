package txlog.vacuum

import java.net.URI

import scala.util.control.NonFatal

import org.apache.hadoop.fs.Path

import txlog.maintenance.DvPaths
import txlog.replay.FileKeys

/** Paths relative to a table's root, as VACUUM compares and deletes them: the file's name on
  * storage below the root, unescaped (`p=a b/part-0.parquet`), whatever spelling the log used
  * (relative or absolute, escaped or not). Serializable, for tasks.
  *
  * @param root
  *   the table's qualified root (`file:/data/t`, `s3a://bucket/t`)
  */
private[txlog] final case class TableRoot(root: String) {
  @transient private lazy val rootPath = new Path(root)
  @transient private lazy val prefix = rootPath.toString + "/"

  /** The path relative to the root of a file action's `path` (a URI, relative to the root unless
    * absolute), or Left saying why it names nothing VACUUM may touch: an absolute path elsewhere, a
    * relative one escaping the root with `..`, or one that is not a path at all.
    */
  def relative(path: String): Either[String, String] =
    if (path == null || path.isEmpty) Left("an empty path")
    else
      try inside(FileKeys.canonicalize(root, path), path)
      catch { case NonFatal(e) => Left(s"'$path' is not a path (${e.getClass.getSimpleName})") }

  /** The relative path of a deletion vector's file: Right(None) for an inline one. */
  def deletionVector(storageType: String, pathOrInlineDv: String): Either[String, Option[String]] =
    try
      DvPaths.absolutePath(root, storageType, pathOrInlineDv) match {
        case None => Right(None)
        case Some(p) =>
          inside(p.toString, s"deletion vector $storageType$pathOrInlineDv").map(Some(_))
      }
    catch {
      case NonFatal(e) =>
        Left(
          s"deletion vector $storageType$pathOrInlineDv names no file " +
            s"(${e.getClass.getSimpleName})"
        )
    }

  private def inside(canonical: String, named: String): Either[String, String] =
    if (canonical.startsWith(prefix) && canonical.length > prefix.length) {
      Right(canonical.substring(prefix.length))
    } else Left(s"'$named' is outside the table root ($canonical)")

  /** The absolute path of `relative` below the root, built from components (never parsed, so no
    * name is mistaken for a scheme or an escape).
    */
  def absolute(relative: String): Path = {
    val u = rootPath.toUri
    new Path(new URI(u.getScheme, u.getAuthority, u.getPath + "/" + relative, null, null))
  }
}

private[txlog] object TableRoot {

  /** The directories a relative path lies in, outermost first: `a/b/c` gives `a`, `a/b`. */
  def parents(relative: String): Iterator[String] = {
    val cut = relative.lastIndexOf('/')
    if (cut < 0) Iterator.empty
    else {
      val dirs = relative.substring(0, cut)
      Iterator
        .iterate(dirs.indexOf('/'))(i => dirs.indexOf('/', i + 1))
        .takeWhile(_ >= 0)
        .map(dirs.substring(0, _)) ++ Iterator.single(dirs)
    }
  }

  /** Whether VACUUM may delete `relative`: a plain path below the root, not in `_delta_log`. */
  def deletable(relative: String): Boolean = {
    val segments = relative.split("/", -1)
    relative.nonEmpty && !relative.startsWith("/") &&
    segments.forall(s => s.nonEmpty && s != "." && s != "..") &&
    segments.head != "_delta_log"
  }
}
