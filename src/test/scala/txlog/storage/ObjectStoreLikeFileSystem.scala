package txlog.storage

import java.io.{ByteArrayOutputStream, IOException}
import java.net.URI
import java.nio.file.{Files, Paths, StandardCopyOption}
import java.util.UUID

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs._
import org.apache.hadoop.fs.permission.FsPermission
import org.apache.hadoop.util.Progressable

/** Local disk behaving like an object store, under test schemes: `objc:` honours a conditional
  * create (S3A's `fs.option.create.conditional.overwrite` and path capability), `objn:` has none.
  * None can rename. A created file appears whole when its stream is closed (one PUT); an
  * overwriting PUT replaces it atomically; `create(p, false)` only probes first, like S3A, except
  * on `gs:`, which stands for the Google Cloud Storage connector: there the upload of `create(p,
  * false)` is also conditional on the object not existing (`ifGenerationMatch=0`), and refused when
  * it completes. On `objv:` a `create(p, false)` makes the file at once, empty, and writes it at
  * close (as a store with a create-then-append API does): visible before it is whole.
  */
class ObjectStoreLikeFileSystem extends RawLocalFileSystem {
  private var scheme: String = _

  override def initialize(name: URI, conf: Configuration): Unit = {
    scheme = name.getScheme
    super.initialize(name, conf)
  }
  override def getUri: URI = URI.create(s"${Option(scheme).getOrElse("objc")}:///")
  override def getScheme: String = getUri.getScheme
  private def conditional = getScheme == "objc"
  private def generationMatch = getScheme == "gs"

  override def hasPathCapability(p: Path, capability: String): Boolean =
    if (capability == "fs.s3a.create.conditional.enabled") conditional
    else super.hasPathCapability(p, capability)

  override def rename(src: Path, dst: Path): Boolean = {
    FsEvents.record("rename", dst)
    throw new IOException(s"$getScheme: has no atomic rename")
  }

  override def delete(p: Path, recursive: Boolean): Boolean = {
    FsEvents.record("delete", p)
    super.delete(p, recursive)
  }

  override def create(
      f: Path,
      permission: FsPermission,
      overwrite: Boolean,
      bufferSize: Int,
      replication: Short,
      blockSize: Long,
      progress: Progressable
  ): FSDataOutputStream = put(f, overwrite, ifNoneMatch = false)

  override def create(
      f: Path,
      overwrite: Boolean,
      bufferSize: Int,
      replication: Short,
      blockSize: Long,
      progress: Progressable
  ): FSDataOutputStream = put(f, overwrite, ifNoneMatch = false)

  override def createFile(p: Path): FSDataOutputStreamBuilder[_, _] =
    new ObjectStoreLikeFileSystem.Builder(this, p)

  private[storage] def put(
      f: Path,
      overwrite: Boolean,
      ifNoneMatch: Boolean
  ): FSDataOutputStream = {
    val target = Paths.get(f.toUri.getPath)
    if (!overwrite && Files.exists(target)) throw new FileAlreadyExistsException(s"$f exists")
    Files.createDirectories(target.getParent)
    if (!overwrite && getScheme == "objv") Files.createFile(target)
    val precondition = ifNoneMatch || (!overwrite && generationMatch)
    val fault = FsEvents.faultFor(f.getName)
    val buffer = new ByteArrayOutputStream() with Abortable {
      @volatile private var aborted = false
      override def write(b: Array[Byte], off: Int, len: Int): Unit =
        if (fault.contains("midWrite")) {
          super.write(b, off, len / 2)
          throw new IOException(s"connection reset halfway through the upload of $f")
        } else super.write(b, off, len)
      // An aborted upload never completes: closing it publishes nothing.
      override def abort(): Abortable.AbortableResult = {
        aborted = true
        new Abortable.AbortableResult {
          def alreadyClosed(): Boolean = false
          def anyCleanupException(): IOException = null
        }
      }
      override def close(): Unit = if (!aborted) {
        FsEvents.record("put", f)
        val tmp = target.resolveSibling(s".put-${UUID.randomUUID()}")
        Files.write(tmp, toByteArray)
        if (precondition) {
          try Files.createLink(target, tmp)
          catch {
            case _: java.nio.file.FileAlreadyExistsException =>
              throw new IOException(s"412 Precondition Failed: $f exists")
          } finally Files.delete(tmp)
        } else Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE)
        if (fault.contains("ackLost")) {
          throw new IOException(s"connection reset after the upload of $f was stored")
        }
      }
    }
    new FSDataOutputStream(buffer, statistics)
  }
}

object ObjectStoreLikeFileSystem {
  def register(c: Configuration): Configuration = {
    Seq("objc", "objn", "objv", "gs").foreach { s =>
      c.set(s"fs.$s.impl", classOf[ObjectStoreLikeFileSystem].getName)
      c.set(s"fs.$s.impl.disable.cache", "true")
    }
    c
  }

  /** `createFile`: honours the conditional option on `objc:`, rejects it on `objn:` (as a file
    * system that does not know a mandatory option must).
    */
  final class Builder(fs: ObjectStoreLikeFileSystem, p: Path)
      extends FSDataOutputStreamBuilder[FSDataOutputStream, Builder](fs, p) {
    override def getThisBuilder: Builder = this
    override def build(): FSDataOutputStream = {
      val cond = getMandatoryKeys.contains("fs.option.create.conditional.overwrite")
      if (cond && fs.getScheme != "objc") {
        throw new IllegalArgumentException(
          s"unsupported option fs.option.create.conditional.overwrite"
        )
      }
      val overwrite = getFlags.contains(CreateFlag.OVERWRITE)
      fs.put(p, overwrite, ifNoneMatch = cond)
    }
  }
}
