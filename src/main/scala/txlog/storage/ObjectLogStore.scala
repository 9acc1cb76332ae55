package txlog.storage

import java.io.InputStream

import scala.util.control.NonFatal

import org.apache.commons.io.IOUtils
import org.apache.hadoop.fs.{FSDataOutputStream, FileSystem, Path}

import txlog.{LogPublishing, TxlogErrors}

/** Object stores (s3a, gs, abfs without a hierarchical namespace, ...): there is no atomic rename,
  * but a single PUT is atomic, so every file is written directly to its name.
  *
  *   - put-if-absent is a conditional create (`If-None-Match: *`), used when the file system
  *     declares [[ObjectLogStore.ConditionalCapability]] (S3A from Hadoop 3.4.2);
  *   - without one it is refused (STORAGE_NOT_ATOMIC) unless `singleWriter` is set, in which case
  *     it is check-then-create, serialised within this JVM;
  *   - overwrite is a plain overwriting create: one PUT, atomic.
  */
private[txlog] final class ObjectLogStore(val fs: FileSystem, singleWriter: Boolean)
    extends LogStore {
  import ObjectLogStore._

  private def conditional(p: Path): Boolean =
    try fs.hasPathCapability(p, ConditionalCapability)
    catch { case NonFatal(_) => false }

  override def checkPutIfAbsent(dir: Path): Unit =
    if (!singleWriter && !conditional(dir)) {
      throw TxlogErrors.storageNotAtomic(dir.toString, fs.getUri.getScheme)
    }

  def publishing(dir: Path): LogPublishing = {
    val scheme = Option(dir.toUri.getScheme).getOrElse(fs.getUri.getScheme)
    if (conditional(dir)) {
      LogPublishing(scheme, "conditional create (If-None-Match: *), one PUT per file", true)
    } else if (singleWriter) {
      LogPublishing(scheme, "check-then-create, one writer promised (storage.singleWriter)", false)
    } else {
      LogPublishing(scheme, "refused: no conditional create (STORAGE_NOT_ATOMIC)", false)
    }
  }

  def putIfAbsent(target: Path, bytes: Array[Byte]): Boolean =
    create(target, out => out.write(bytes))

  def publish(staged: Path, target: Path): Boolean =
    try {
      create(
        target,
        out => {
          val in: InputStream = fs.open(staged)
          try IOUtils.copyLarge(in, out)
          finally in.close()
        }
      )
    } finally StagedBytes.deleteQuietly(fs, staged)

  def overwrite(target: Path, bytes: Array[Byte]): Unit =
    try {
      writeWhole(fs.create(target, true), _.write(bytes))
    } catch {
      case NonFatal(e) => throw TxlogErrors.writeFailed(target.toString, e.toString, e)
    }

  def delete(path: Path): Boolean = fs.delete(path, true)

  /** Creates `target` with what `write` writes unless it exists; false when it existed. */
  private def create(target: Path, write: java.io.OutputStream => Unit): Boolean = {
    checkPutIfAbsent(target.getParent)
    if (conditional(target)) conditionalCreate(target, write)
    else {
      SingleWriterLock.synchronized {
        // A store that cannot answer is a failed write, never "it did not exist".
        val exists =
          try fs.exists(target)
          catch {
            case NonFatal(e) => throw TxlogErrors.writeFailed(target.toString, e.toString, e)
          }
        if (exists) false else { plainCreate(target, write); true }
      }
    }
  }

  private def conditionalCreate(target: Path, write: java.io.OutputStream => Unit): Boolean =
    try {
      val out = fs.createFile(target).overwrite(false).must(ConditionalOption, true).build()
      // The object appears (or the store refuses it) when the stream is closed.
      writeWhole(out, write)
      true
    } catch {
      // A refused conditional PUT surfaces as various exceptions (S3A: RemoteFileChanged for a
      // 412, FileAlreadyExists for an early probe); the target existing is what tells.
      case NonFatal(e) =>
        val existed =
          try fs.exists(target)
          catch { case NonFatal(_) => false }
        if (existed) false else throw TxlogErrors.writeFailed(target.toString, e.toString, e)
    }

  private def plainCreate(target: Path, write: java.io.OutputStream => Unit): Unit =
    try writeWhole(fs.create(target, false), write)
    catch {
      case NonFatal(e) => throw TxlogErrors.writeFailed(target.toString, e.toString, e)
    }

  /** Writes through `out`, then closes it, which makes the object appear. When writing fails, the
    * stream is aborted and never closed: closing would publish the bytes written so far, a
    * truncated commit or checkpoint under its final name. A stream that cannot abort is left
    * unclosed (the upload is never completed).
    */
  private def writeWhole(out: FSDataOutputStream, write: java.io.OutputStream => Unit): Unit = {
    try write(out)
    catch {
      case NonFatal(e) =>
        try out.abort()
        catch { case NonFatal(_) => () }
        throw e
    }
    out.close()
  }
}

private[txlog] object ObjectLogStore {

  /** The path capability of S3A's conditional create (Hadoop 3.4.2+, HADOOP-19256). */
  val ConditionalCapability = "fs.s3a.create.conditional.enabled"

  /** The `createFile` option asking for a create that fails if the object exists. */
  val ConditionalOption = "fs.option.create.conditional.overwrite"

  /** Serialises check-then-create in single-writer mode within one JVM. */
  private object SingleWriterLock
}
