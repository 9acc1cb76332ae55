package txlog.storage

import java.io.{File, FileInputStream, InputStream}

import org.apache.hadoop.fs.{FileSystem, Path, RawLocalFileSystem}

/** Log files of a table on a local disk opened straight from the disk, where the table's file
  * system is Hadoop's `RawLocalFileSystem` itself (as `TablePath.fs` makes it for a local table):
  * its `open` stats the file first and wraps the stream in I/O statistics and a buffer, which was
  * about 5% of opening a small table (JFR, W15 of issue #66); the log's readers buffer themselves.
  * The stream is the one `RawLocalFileSystem` opens underneath (a `FileInputStream` of the same
  * file), so a missing file, or a directory, is the same FileNotFoundException. A path that is not
  * an absolute one of the local file system goes through `fs.open`.
  *
  * {{{
  * val open = LocalReads.of(table.fs).getOrElse((p: Path) => table.fs.open(p))
  * }}}
  */
private[txlog] object LocalReads {

  /** Whether `fs` is Hadoop's own `RawLocalFileSystem` (not a subclass, which may read otherwise).
    */
  def handles(fs: FileSystem): Boolean = fs.getClass == classOf[RawLocalFileSystem]

  /** The opener of `fs`'s files when it [[handles]] `fs`; else None. */
  def of(fs: FileSystem): Option[Path => InputStream] =
    if (!handles(fs)) None
    else Some(p => file(p).fold(fs.open(p): InputStream)(new FileInputStream(_)))

  /** The local file `p` names, when it is absolute and of the `file` scheme (or of none). */
  def file(p: Path): Option[File] = {
    val u = p.toUri
    val local = (u.getScheme == null || u.getScheme == "file") && u.getAuthority == null
    if (local && p.isUriPathAbsolute) Some(new File(u.getPath)) else None
  }
}
