package txlog.vacuum

import java.net.URI

import scala.util.control.NonFatal

import org.apache.hadoop.fs.Path

import txlog.protocol.DvPaths
import txlog.replay.FileKeys

/** Paths relative to a table's root, as VACUUM compares and deletes them: the file's name on
  * storage below the root, unescaped (`p=a b/part-0.parquet`), whatever spelling the log used
  * (relative or absolute, escaped or not). Serializable, for tasks.
  *
  * Absolute paths are qualified before they are compared with the root: the scheme's family (`s3`,
  * `s3n` and `s3a` name one store; `abfss`/`abfs`, `wasbs`/`wasb` likewise), the authority
  * (case-insensitive; `file://localhost/` is `file:/`) and the path with `.` and `..` segments
  * resolved. A path on the root's store but elsewhere is [[TableRoot.Outside]]; one on a store the
  * root's cannot be related to (another scheme or authority) is [[TableRoot.Unrelated]]: it may
  * name a file below the root in a spelling txlog cannot prove is different.
  *
  * @param root
  *   the table's qualified root (`file:/data/t`, `s3a://bucket/t`)
  */
private[txlog] final case class TableRoot(root: String) {
  import TableRoot._

  @transient private lazy val rootPath = new Path(root)
  @transient private lazy val rootParts = Qualified.of(rootPath)

  /** Where a file action's `path` (a URI, relative to the root unless absolute) lies. A
    * [[TableRoot.simple]] path (nearly every one) is below the root as it is, without parsing.
    */
  def place(path: String): Placed =
    if (TableRoot.simple(path)) Inside(path) else parsed(path)

  /** [[place]] by qualifying the path: what a simple path's place must equal (a test checks). */
  private[vacuum] def parsed(path: String): Placed =
    if (path == null || path.isEmpty) Outside("an empty path")
    else
      try locate(FileKeys.canonicalPath(root, path), path)
      catch { case NonFatal(e) => Outside(s"'$path' is not a path (${e.getClass.getSimpleName})") }

  /** The path relative to the root of a file action's `path`, or Left saying why it names nothing
    * VACUUM may touch: an absolute path elsewhere, a relative one escaping the root with `..`, one
    * on a store the root cannot be related to, or one that is not a path at all.
    */
  def relative(path: String): Either[String, String] = place(path).relative

  /** Where a deletion vector's file lies: None for an inline one. */
  def placeDeletionVector(storageType: String, pathOrInlineDv: String): Option[Placed] =
    try
      DvPaths
        .absolutePath(root, storageType, pathOrInlineDv)
        .map(p => locate(p, s"deletion vector $storageType$pathOrInlineDv"))
    catch {
      case NonFatal(e) =>
        Some(
          Outside(
            s"deletion vector $storageType$pathOrInlineDv names no file " +
              s"(${e.getClass.getSimpleName})"
          )
        )
    }

  /** The relative path of a deletion vector's file: Right(None) for an inline one. */
  def deletionVector(storageType: String, pathOrInlineDv: String): Either[String, Option[String]] =
    placeDeletionVector(storageType, pathOrInlineDv) match {
      case None    => Right(None)
      case Some(p) => p.relative.map(Some(_))
    }

  private def locate(p: Path, named: String): Placed = {
    val q = Qualified.of(p)
    if (q.family != rootParts.family || q.authority != rootParts.authority) {
      Unrelated(s"'$named' cannot be related to the table root $root (${p.toString})")
    } else
      (q.path, rootParts.path) match {
        case (Some(path), Some(r)) if path.startsWith(r + "/") && path.length > r.length + 1 =>
          Inside(path.substring(r.length + 1))
        case _ => Outside(s"'$named' is outside the table root (${p.toString})")
      }
  }

  /** The absolute path of `relative` below the root, built from components (never parsed, so no
    * name is mistaken for a scheme or an escape).
    */
  def absolute(relative: String): Path = {
    val u = rootPath.toUri
    new Path(new URI(u.getScheme, u.getAuthority, u.getPath + "/" + relative, null, null))
  }
}

private[txlog] object TableRoot {

  /** Where a path from the log lies relative to the root. */
  sealed trait Placed {

    /** The relative path when inside, else why not. */
    def relative: Either[String, String] = this match {
      case Inside(p)      => Right(p)
      case Outside(why)   => Left(why)
      case Unrelated(why) => Left(why)
    }
  }

  /** Whether `path` is relative, needs no decoding and names its file as it is: segments of
    * letters, digits and `_ - = . +` (and spaces) only, none empty, `.` or `..`, nor starting with
    * `.`. Such a path is its own place below any root.
    */
  def simple(path: String): Boolean = path != null && path.nonEmpty && {
    var i = 0
    var segmentStart = true
    var ok = true
    while (ok && i < path.length) {
      val c = path.charAt(i)
      if (c == '/') ok = !segmentStart
      else if (segmentStart) ok = c != '.' && plainChar(c)
      else ok = plainChar(c)
      segmentStart = c == '/'
      i += 1
    }
    ok && !segmentStart
  }

  private def plainChar(c: Char): Boolean =
    (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
      c == '_' || c == '-' || c == '=' || c == '.' || c == '+' || c == ' '

  /** Below the root, at this relative path. */
  final case class Inside(path: String) extends Placed

  /** Provably not below the root: on its store, elsewhere (or no path at all). */
  final case class Outside(why: String) extends Placed

  /** On a store the root's cannot be related to: it may or may not lie below the root. */
  final case class Unrelated(why: String) extends Placed

  /** A path's store (scheme family and authority) and its path with `.` and `..` resolved (None
    * when `..` climbs above `/`).
    */
  private final case class Qualified(family: String, authority: String, path: Option[String])

  private object Qualified {
    private val families = Map("s3" -> "s3a", "s3n" -> "s3a", "abfss" -> "abfs", "wasbs" -> "wasb")

    def of(p: Path): Qualified = {
      val u = p.toUri
      val scheme = Option(u.getScheme).map(_.toLowerCase(java.util.Locale.ROOT)).getOrElse("")
      val authority = Option(u.getAuthority).map(_.toLowerCase(java.util.Locale.ROOT)) match {
        case Some("localhost") if scheme == "file" => ""
        case a                                     => a.getOrElse("")
      }
      Qualified(families.getOrElse(scheme, scheme), authority, normalize(u.getPath))
    }

    private def normalize(path: String): Option[String] = {
      val out = scala.collection.mutable.ArrayBuffer.empty[String]
      val ok = path.split("/").forall {
        case "" | "."            => true
        case ".." if out.isEmpty => false
        case ".."                => out.remove(out.length - 1); true
        case segment             => out += segment; true
      }
      if (ok) Some(out.mkString("/", "/", "")) else None
    }
  }

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
