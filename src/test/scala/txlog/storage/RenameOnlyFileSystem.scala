package txlog.storage

import java.net.URI
import java.nio.file.{Files, Paths, StandardCopyOption}

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{DelegateToFileSystem, FileAlreadyExistsException, Path}
import org.apache.hadoop.fs.RawLocalFileSystem

/** Local disk under the test scheme `rnm:`, standing for HDFS-like storage: `FileContext.rename`
  * (through [[RenameOnlyFs]]) is atomic and honours `Rename.NONE`, while the older
  * `FileSystem.rename` replaces an existing target as a POSIX rename does. Deletes and renames are
  * recorded in [[FsEvents]]. Register with `fs.rnm.impl`, `fs.rnm.impl.disable.cache` and
  * `fs.AbstractFileSystem.rnm.impl` (see [[RenameOnlyFileSystem.register]]).
  */
class RenameOnlyFileSystem extends RawLocalFileSystem {
  override def getUri: URI = URI.create("rnm:///")
  override def getScheme: String = "rnm"

  override def delete(p: Path, recursive: Boolean): Boolean = {
    FsEvents.record("delete", p)
    super.delete(p, recursive)
  }

  override def rename(src: Path, dst: Path): Boolean = {
    FsEvents.record("rename", dst)
    FsEvents.awaitRenameBarrier()
    super.rename(src, dst)
  }
}

object RenameOnlyFileSystem {
  def register(c: Configuration): Configuration = {
    c.set("fs.rnm.impl", classOf[RenameOnlyFileSystem].getName)
    c.set("fs.rnm.impl.disable.cache", "true")
    c.set("fs.AbstractFileSystem.rnm.impl", classOf[RenameOnlyFs].getName)
    c
  }
}

/** The `FileContext` side of [[RenameOnlyFileSystem]]: an atomic rename, as HDFS's. */
class RenameOnlyFs(uri: URI, conf: Configuration)
    extends DelegateToFileSystem(uri, new RenameOnlyFileSystem, conf, "rnm", false) {

  override def renameInternal(src: Path, dst: Path, overwrite: Boolean): Unit = {
    FsEvents.record("fcRename", dst)
    val (s, d) = (Paths.get(src.toUri.getPath), Paths.get(dst.toUri.getPath))
    if (overwrite) Files.move(s, d, StandardCopyOption.ATOMIC_MOVE)
    else {
      try Files.createLink(d, s)
      catch {
        case _: java.nio.file.FileAlreadyExistsException =>
          throw new FileAlreadyExistsException(s"$dst exists")
      }
      Files.delete(s)
    }
  }
}
