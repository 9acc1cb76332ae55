package txlog.storage

import java.io.IOException
import java.net.URI
import java.nio.file.{Files, Paths, StandardCopyOption}

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{Path, RawLocalFileSystem}

/** Local disk behaving as ABFS does toward txlog (`abfs:`, `abfss:`), on documented semantics, not
  * the service: the account named in the authority (`abfss://container@account.dfs...`) has a
  * hierarchical namespace when its name starts with `hns`, and then reports the path capability
  * `fs.capability.paths.acls`, and its rename is atomic and refused when the target exists (ABFS
  * sends it with `If-None-Match: *` and answers false on the service's 409). Other accounts (flat
  * namespace) rename by copy and delete after checking the target, which two writers can both pass.
  * A created file exists from `create` on (ABFS creates it, then appends and flushes).
  *
  * Fault: `FsEvents.putFault` = ("renameLost", name) makes the next rename onto `name` apply and
  * then answer false, as ABFS does when the service applied a rename whose answer was lost and the
  * retry found the source gone; ("renameRefused", name) answers false without renaming.
  */
class AdlsLikeFileSystem extends RawLocalFileSystem {
  private var uri: URI = _

  override def initialize(name: URI, conf: Configuration): Unit = {
    uri = URI.create(s"${name.getScheme}://${name.getAuthority}/")
    super.initialize(name, conf)
  }
  // RawLocalFileSystem's constructor asks before initialize (tests use absolute paths only).
  override def getUri: URI =
    Option(uri).getOrElse(URI.create("abfss://c@init.dfs.core.windows.net/"))
  override def getScheme: String = if (uri == null) "abfss" else uri.getScheme

  private def account: String = uri.getAuthority.split('@').last.split('.').head
  private def namespace: Boolean = account.startsWith("hns")

  override def hasPathCapability(p: Path, capability: String): Boolean =
    if (capability == NamespaceRename.NamespaceCapability) namespace
    else super.hasPathCapability(p, capability)

  override def rename(src: Path, dst: Path): Boolean = {
    FsEvents.record("rename", dst)
    FsEvents.awaitRenameBarrier()
    val from = Paths.get(src.toUri.getPath)
    val to = Paths.get(dst.toUri.getPath)
    val fault = FsEvents.faultFor(dst.getName)
    if (fault.isDefined) FsEvents.putFault.set(null)
    if (fault.contains("renameRefused")) false
    else if (!Files.exists(from)) false
    else if (namespace && Files.isDirectory(from)) {
      // Directories (Spark's output committer): moved whole, not onto an existing target.
      if (Files.exists(to)) false else { Files.move(from, to); true }
    } else if (namespace) {
      // A file in one step: a hard link is refused when the target exists.
      try {
        Files.createLink(to, from)
        Files.delete(from)
        !fault.contains("renameLost")
      } catch { case _: java.nio.file.FileAlreadyExistsException => false }
    } else if (Files.exists(to)) false
    else {
      Files.copy(from, to, StandardCopyOption.REPLACE_EXISTING)
      Files.delete(from)
      true
    }
  }

  override def delete(p: Path, recursive: Boolean): Boolean = {
    FsEvents.record("delete", p)
    try super.delete(p, recursive)
    catch { case e: IOException => throw e }
  }
}

object AdlsLikeFileSystem {

  /** `abfss://c@<account>.dfs.core.windows.net<local>`: a path of `account` on local disk. */
  def path(account: String, local: java.nio.file.Path): String =
    s"abfss://c@$account.dfs.core.windows.net${local.toAbsolutePath}"
}
