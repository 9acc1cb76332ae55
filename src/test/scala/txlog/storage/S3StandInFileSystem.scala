package txlog.storage

import java.net.URI

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{FSDataInputStream, FSDataOutputStream, FileStatus, FileSystem, Path}
import org.apache.hadoop.fs.permission.FsPermission
import org.apache.hadoop.fs.s3a.S3AFileSystem
import org.apache.hadoop.util.Progressable

/** An S3 file system that is not S3A, as EMRFS (`s3://` on EMR) and Databricks' shaded S3A are to
  * txlog (it cannot borrow their AWS SDK client): every call goes to an S3A file system of the same
  * bucket, so to the same store, with paths translated between this file system's scheme and `s3a`.
  * It has no conditional create. Set as `fs.s3.impl`.
  */
class S3StandInFileSystem extends FileSystem {
  private var uri: URI = _
  private var inner: FileSystem = _
  private var workingDir: Path = _

  override def initialize(name: URI, conf: Configuration): Unit = {
    super.initialize(name, conf)
    setConf(conf)
    uri = URI.create(s"${name.getScheme}://${name.getAuthority}/")
    val s3a = new S3AFileSystem()
    s3a.initialize(URI.create(s"s3a://${name.getAuthority}/"), conf)
    inner = s3a
    workingDir = new Path(uri.toString)
  }

  override def getScheme: String = if (uri == null) "s3" else uri.getScheme
  override def getUri: URI = uri

  private def in(p: Path): Path = {
    val q = makeQualified(p).toUri
    new Path("s3a", q.getAuthority, q.getPath)
  }
  private def out(p: Path): Path = new Path(uri.getScheme, p.toUri.getAuthority, p.toUri.getPath)
  private def out(s: FileStatus): FileStatus = {
    val c = new FileStatus(s)
    c.setPath(out(s.getPath))
    c
  }

  override def open(f: Path, bufferSize: Int): FSDataInputStream = inner.open(in(f), bufferSize)

  override def create(
      f: Path,
      permission: FsPermission,
      overwrite: Boolean,
      bufferSize: Int,
      replication: Short,
      blockSize: Long,
      progress: Progressable
  ): FSDataOutputStream =
    inner.create(in(f), permission, overwrite, bufferSize, replication, blockSize, progress)

  override def append(f: Path, bufferSize: Int, progress: Progressable): FSDataOutputStream =
    throw new UnsupportedOperationException("append")

  override def rename(src: Path, dst: Path): Boolean = inner.rename(in(src), in(dst))
  override def delete(f: Path, recursive: Boolean): Boolean = inner.delete(in(f), recursive)
  override def listStatus(f: Path): Array[FileStatus] = inner.listStatus(in(f)).map(out)
  override def setWorkingDirectory(dir: Path): Unit = workingDir = dir
  override def getWorkingDirectory: Path = workingDir
  override def mkdirs(f: Path, permission: FsPermission): Boolean = inner.mkdirs(in(f), permission)
  override def getFileStatus(f: Path): FileStatus = out(inner.getFileStatus(in(f)))

  override def close(): Unit =
    try if (inner != null) inner.close()
    finally super.close()
}
