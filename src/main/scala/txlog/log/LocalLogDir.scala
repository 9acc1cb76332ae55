package txlog.log

import java.io.FileNotFoundException
import java.nio.file.{DirectoryIteratorException, Files, NoSuchFileException, NotDirectoryException}
import java.nio.file.Paths
import java.nio.file.attribute.BasicFileAttributes

import org.apache.hadoop.fs.{ChecksumFileSystem, FileStatus, FileSystem, FilterFileSystem}
import org.apache.hadoop.fs.{LocalFileSystem, Path}
import org.apache.hadoop.fs.RawLocalFileSystem

/** `_delta_log` listed on Hadoop's local file system with java.nio, each entry stat'ed only when
  * its name is wanted. Hadoop's local listing stats every entry of the directory: a log of 10,000
  * commits under a checkpoint cost 10,000 stats and Hadoop paths on every load, where the load
  * needs the few files from the checkpoint on. The statuses are those Hadoop's listing gives for
  * the same names (qualified path, length, modification time in milliseconds, following links); an
  * entry that vanishes between the listing and its stat is left out, as Hadoop leaves it.
  *
  * {{{
  * LocalLogDir.lister(table.fs).map(_.foreach(table.logDir, wanted)(keep))
  * }}}
  */
private[log] final class LocalLogDir private (fs: FileSystem, checksums: Boolean) {

  /** Calls `keep` with the status of every entry of `dir` whose name is `wanted`; a missing `dir`
    * is a FileNotFoundException, as Hadoop's listing raises it.
    */
  def foreach(dir: Path, wanted: String => Boolean)(keep: FileStatus => Unit): Unit = {
    val local = Paths.get(dir.toUri.getPath)
    val blockSize = fs.getDefaultBlockSize(dir)
    val names = Vector.newBuilder[String]
    try {
      val stream = Files.newDirectoryStream(local)
      try stream.forEach(p => names += p.getFileName.toString)
      finally stream.close()
    } catch {
      case _: NoSuchFileException | _: NotDirectoryException =>
        throw new FileNotFoundException(s"$dir is not a directory")
      case e: DirectoryIteratorException => throw e.getCause
    }
    // ChecksumFileSystem's listing leaves its `.<name>.crc` files out
    def checksum(name: String) = checksums && name.startsWith(".") && name.endsWith(".crc")
    names.result().filter(n => wanted(n) && !checksum(n)).foreach { name =>
      val a =
        try Files.readAttributes(local.resolve(name), classOf[BasicFileAttributes])
        catch { case _: NoSuchFileException => null }
      if (a != null) {
        val path = fs.makeQualified(new Path(dir, name))
        keep(new FileStatus(a.size, a.isDirectory, 1, blockSize, a.lastModifiedTime.toMillis, path))
      }
    }
  }
}

private[log] object LocalLogDir {

  /** The java.nio lister for `fs` when `fs` lists as Hadoop's local file system does (its directory
    * listing is Hadoop's own over [[RawLocalFileSystem]], as in Hive's ProxyLocalFileSystem too:
    * ChecksumFileSystem's, which leaves checksum files out, or, in Hadoop versions where it has
    * none, FilterFileSystem's); None for any other file system, or one that overrides it.
    */
  def lister(fs: FileSystem): Option[LocalLogDir] = {
    def declaring(c: Class[_]) = c.getMethod("listStatusIterator", classOf[Path]).getDeclaringClass
    fs match {
      case l: LocalFileSystem if l.getRawFileSystem.getClass == classOf[RawLocalFileSystem] =>
        declaring(l.getClass) match {
          case c if c == classOf[ChecksumFileSystem] => Some(new LocalLogDir(fs, true))
          case c if c == classOf[FilterFileSystem]   => Some(new LocalLogDir(fs, false))
          case _                                     => None
        }
      case r: RawLocalFileSystem if r.getClass == classOf[RawLocalFileSystem] =>
        Some(new LocalLogDir(fs, false))
      case _ => None
    }
  }
}
