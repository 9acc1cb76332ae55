package txlog.storage

import java.io.InputStream

import scala.util.control.NonFatal

import org.apache.commons.io.IOUtils
import org.apache.hadoop.fs.{FSDataOutputStream, FileSystem, Path}

import txlog.{LogPublishing, TxlogErrors}

/** Object stores (s3a, gs, abfs without a hierarchical namespace, ...): there is no atomic rename,
  * but a single PUT is atomic, so every file is written directly to its name. Put-if-absent is, in
  * this order:
  *
  *   - a conditional create (`If-None-Match: *`) through the file system, when it declares
  *     [[ObjectLogStore.ConditionalCapability]] (S3A from Hadoop 3.4.2);
  *   - else, on S3A with an AWS SDK v2 client (Hadoop 3.4.0 and 3.4.1) and unless
  *     `spark.txlog.storage.sdkConditionalPut` is false, the same conditional PUT sent through
  *     S3A's own client ([[S3ConditionalPut]]), once a probe showed the store honours it;
  *   - else refused (STORAGE_NOT_ATOMIC) unless `singleWriter` is set, in which case it is
  *     check-then-create, serialised within this JVM.
  *
  * Overwrite is a plain overwriting create: one PUT, atomic.
  */
private[txlog] final class ObjectLogStore(
    val fs: FileSystem,
    singleWriter: Boolean,
    sdkConditionalPut: Boolean = true
) extends LogStore {
  import ObjectLogStore._

  private def conditional(p: Path): Boolean =
    try fs.hasPathCapability(p, ConditionalCapability)
    catch { case NonFatal(_) => false }

  private def scheme(dir: Path): String =
    Option(dir.toUri.getScheme).getOrElse(fs.getUri.getScheme)

  /** S3A's client for a conditional PUT, when this file system has one and it may be used. */
  private lazy val sdkPut: Option[S3ConditionalPut] =
    if (!sdkConditionalPut) None
    else
      try S3ConditionalPut.forFileSystem(fs)
      catch { case _: LinkageError => None } // no AWS SDK v2 where txlog is loaded

  /** The conditional PUT through the SDK when the store honours it (probed once per bucket), or why
    * not. A store that cannot be reached for the probe is LOG_WRITE_FAILED.
    */
  private def trustedSdkPut(dir: Path): Either[Option[String], S3ConditionalPut] =
    sdkPut match {
      case None => Left(None)
      case Some(put) =>
        val refused =
          try S3ConditionalPut.probe(put, fs, dir)
          catch {
            case NonFatal(e) =>
              throw TxlogErrors.writeFailed(
                new Path(dir, ".txlog-put-if-absent-probe-*").toString,
                s"probing the conditional PUT: $e",
                e
              )
          }
        refused.map(Some(_)).toLeft(put)
    }

  override def checkPutIfAbsent(dir: Path): Unit =
    if (!conditional(dir)) {
      trustedSdkPut(dir) match {
        case Right(_)                => ()
        case Left(_) if singleWriter => ()
        case Left(reason) =>
          throw TxlogErrors.storageNotAtomic(dir.toString, scheme(dir), reason)
      }
    }

  def publishing(dir: Path): LogPublishing = {
    val viaSdk = "conditional PUT (If-None-Match: *) through S3A's AWS SDK v2 client, one PUT " +
      "per file"
    // Not probed here: describe writes nothing. The probe's outcome is reported once known.
    val probeOutcome = sdkPut.map(put => S3ConditionalPut.probedOutcome(put, fs))
    if (conditional(dir)) {
      LogPublishing(scheme(dir), "conditional create (If-None-Match: *), one PUT per file", true)
    } else if (probeOutcome.contains(Some(None))) {
      LogPublishing(scheme(dir), viaSdk, true)
    } else if (probeOutcome.contains(None)) {
      LogPublishing(scheme(dir), s"$viaSdk (the store is probed on the first write)", true)
    } else {
      val why = probeOutcome.flatten.flatten.map(r => s"; the SDK's conditional PUT is not: $r")
      if (singleWriter) {
        LogPublishing(
          scheme(dir),
          "check-then-create, one writer promised (storage.singleWriter)" + why.getOrElse(""),
          false
        )
      } else {
        LogPublishing(
          scheme(dir),
          "refused: no conditional create (STORAGE_NOT_ATOMIC)" + why.getOrElse(""),
          false
        )
      }
    }
  }

  def putIfAbsent(target: Path, bytes: Array[Byte]): Boolean =
    create(target, out => out.write(bytes), _.put(target, bytes))

  def publish(staged: Path, target: Path): Boolean =
    try {
      create(
        target,
        out => {
          val in: InputStream = fs.open(staged)
          try IOUtils.copyLarge(in, out)
          finally in.close()
        },
        _.putFile(staged, target)
      )
    } finally StagedBytes.deleteQuietly(fs, staged)

  def overwrite(target: Path, bytes: Array[Byte]): Unit =
    try {
      writeWhole(fs.create(target, true), _.write(bytes))
    } catch {
      case NonFatal(e) => throw TxlogErrors.writeFailed(target.toString, e.toString, e)
    }

  def delete(path: Path): Boolean = fs.delete(path, true)

  /** Creates `target` with what `write` writes (or what `put` PUTs through the SDK) unless it
    * exists; false when it existed.
    */
  private def create(
      target: Path,
      write: java.io.OutputStream => Unit,
      put: S3ConditionalPut => Boolean
  ): Boolean = {
    val dir = target.getParent
    checkPutIfAbsent(dir)
    if (conditional(target)) {
      existedOrFailed(target) {
        val out = fs.createFile(target).overwrite(false).must(ConditionalOption, true).build()
        // The object appears (or the store refuses it) when the stream is closed.
        writeWhole(out, write)
        true
      }
    } else {
      trustedSdkPut(dir) match {
        case Right(sdk) => existedOrFailed(target)(put(sdk))
        case Left(_) =>
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
  }

  /** Runs a conditional write of `target`. When it fails, the target existing is what tells: a
    * refused conditional PUT surfaces as various exceptions (S3A: RemoteFileChanged for a 412,
    * FileAlreadyExists for an early probe), and a PUT whose answer was lost may have landed (the
    * caller tells whose it is). Otherwise LOG_WRITE_FAILED.
    */
  private def existedOrFailed(target: Path)(write: => Boolean): Boolean =
    try write
    catch {
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
