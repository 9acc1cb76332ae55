package txlog.storage

import java.io.IOException

import org.apache.hadoop.fs.{FileSystem, Path}

import txlog.LogPublishing

/** Publishing on Azure Data Lake Storage Gen2 accounts with a hierarchical namespace, through ABFS
  * (`abfs://`, `abfss://`): a finished temporary file is renamed into place. There a rename is one
  * atomic operation of the service, and ABFS sends it with `If-None-Match: *`, so the service
  * refuses it when the target exists (ABFS's `rename` then answers false). Accounts without a
  * hierarchical namespace rename by copy and delete: never used there ([[ObjectLogStore]] decides,
  * per account).
  *
  * `FileSystem.rename` is called, not `FileContext.rename`: ABFS's `FileContext` delegates to it
  * and drops its answer, so a refused rename would look like a success.
  */
private[txlog] final class NamespaceRename(fs: FileSystem) extends MovingLogStore(fs) {
  import NamespaceRename._

  /** true: renamed. false: the target exists (another writer's, or ours if the service applied a
    * rename whose answer was lost and ABFS's retry found the source gone: the caller reads the
    * target back). A refusal with no target is an error.
    */
  protected def moveIfAbsent(from: Path, to: Path): Boolean =
    fs.rename(from, to) || {
      if (fs.exists(to)) false
      else throw new IOException(s"the rename of $from to $to was refused, and $to does not exist")
    }

  /** `_last_checkpoint`: a rename never replaces, so the old file is deleted first; a reader
    * between the two sees no hint and lists the log (a hint is never required). A writer racing in
    * between is retried a few times.
    */
  protected def moveReplacing(from: Path, to: Path): Unit = {
    var attempt = 1
    while (!fs.rename(from, to)) {
      if (attempt >= ReplaceAttempts || !fs.exists(from)) {
        throw new IOException(s"could not rename $from over $to in $attempt attempts")
      }
      fs.delete(to, false)
      attempt += 1
    }
  }

  def publishing(dir: Path): LogPublishing =
    LogPublishing(Option(dir.toUri.getScheme).getOrElse(fs.getUri.getScheme), Method, true)
}

private[txlog] object NamespaceRename {

  /** The schemes of ABFS. */
  val Schemes: Set[String] = Set("abfs", "abfss")

  /** The path capability ABFS reports only on accounts with a hierarchical namespace (it asks the
    * service once per file system instance, or takes `fs.azure.account.hns.enabled`).
    */
  val NamespaceCapability = "fs.capability.paths.acls"

  val Method: String =
    "atomic rename that refuses an existing target (ADLS Gen2 with a hierarchical namespace: " +
      "If-None-Match: * on the rename)"

  private val ReplaceAttempts = 3
}
