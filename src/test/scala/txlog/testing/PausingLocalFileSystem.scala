package txlog.testing

import java.io.OutputStream
import java.nio.file.{Files, Paths}

import org.apache.hadoop.fs.{FSDataOutputStream, Path, RawLocalFileSystem}
import org.apache.hadoop.fs.permission.FsPermission
import org.apache.hadoop.util.Progressable

/** The local file system (`file:`, without Hadoop's `.crc` side files, as txlog uses it), except
  * that a file whose name matches a pattern stops its writer for good, after writing a marker file,
  * so that a test can `kill -9` the process at that point. Configured by system properties of a
  * writer process:
  *
  *   - `txlog.test.pause`: `written:<regex>` stops once the file is complete and closed (the commit
  *     staged, not published); `midwrite:<regex>` stops halfway through its bytes;
  *   - `txlog.test.pauseMarker`: the marker file to write (its content: the path stopped at).
  *
  * Registered with `spark.hadoop.fs.file.impl`; publishing still goes through txlog's local store,
  * as on any local disk, which writes through this class (it writes Hadoop's own local file
  * systems' files with java.nio, in the same order: the temporary file whole, then the link).
  */
class PausingLocalFileSystem extends RawLocalFileSystem {

  override def create(
      f: Path,
      permission: FsPermission,
      overwrite: Boolean,
      bufferSize: Int,
      replication: Short,
      blockSize: Long,
      progress: Progressable
  ): FSDataOutputStream = {
    val out = super.create(f, permission, overwrite, bufferSize, replication, blockSize, progress)
    pausing(f, out)
  }

  override def create(
      f: Path,
      overwrite: Boolean,
      bufferSize: Int,
      replication: Short,
      blockSize: Long,
      progress: Progressable
  ): FSDataOutputStream =
    pausing(f, super.create(f, overwrite, bufferSize, replication, blockSize, progress))

  private def pausing(f: Path, out: FSDataOutputStream): FSDataOutputStream =
    PausingLocalFileSystem.rule.filter(_._2.matcher(f.getName).matches()) match {
      case None            => out
      case Some((mode, _)) => new FSDataOutputStream(new PausingStream(out, f, mode), null)
    }
}

private final class PausingStream(out: FSDataOutputStream, f: Path, mode: String)
    extends OutputStream {
  override def write(b: Int): Unit = out.write(b)
  override def write(b: Array[Byte], off: Int, len: Int): Unit =
    if (mode == "midwrite" && len > 1) {
      out.write(b, off, len / 2)
      out.hflush()
      PausingLocalFileSystem.stop(f)
    } else out.write(b, off, len)
  override def flush(): Unit = out.flush()
  override def close(): Unit = {
    out.close()
    if (mode == "written") PausingLocalFileSystem.stop(f)
  }
}

object PausingLocalFileSystem {
  val PauseKey = "txlog.test.pause"
  val MarkerKey = "txlog.test.pauseMarker"

  private[testing] lazy val rule: Option[(String, java.util.regex.Pattern)] =
    Option(System.getProperty(PauseKey)).map { s =>
      val i = s.indexOf(':')
      (s.substring(0, i), java.util.regex.Pattern.compile(s.substring(i + 1)))
    }

  /** Writes the marker, then blocks this thread until the process is killed. */
  private[testing] def stop(f: Path): Unit = {
    Option(System.getProperty(MarkerKey)).foreach { m =>
      val tmp = Paths.get(m + ".tmp")
      Files.writeString(tmp, f.toString)
      Files.move(tmp, Paths.get(m), java.nio.file.StandardCopyOption.ATOMIC_MOVE)
    }
    while (true) Thread.sleep(60000)
  }
}
