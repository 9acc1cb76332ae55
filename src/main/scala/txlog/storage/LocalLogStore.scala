package txlog.storage

import java.nio.file.{FileAlreadyExistsException, Files, Paths, StandardCopyOption}

import org.apache.hadoop.fs.{FileSystem, Path}

/** Local disks: put-if-absent is a hard link (which fails if the target exists) and overwrite an
  * `ATOMIC_MOVE` (a POSIX rename, which replaces the target atomically).
  */
private[txlog] final class LocalLogStore(fs: FileSystem) extends MovingLogStore(fs) {

  protected def moveIfAbsent(from: Path, to: Path): Boolean = {
    val (src, dst) = (Paths.get(from.toUri), Paths.get(to.toUri))
    try {
      Files.createLink(dst, src)
      Files.delete(src)
      true
    } catch { case _: FileAlreadyExistsException => false }
  }

  protected def moveReplacing(from: Path, to: Path): Unit =
    Files.move(Paths.get(from.toUri), Paths.get(to.toUri), StandardCopyOption.ATOMIC_MOVE)
}
