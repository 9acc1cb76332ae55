package txlog.storage

import java.io.InputStream

import scala.util.control.NonFatal

import org.apache.commons.io.IOUtils
import org.apache.hadoop.fs.{FSDataOutputStream, FileAlreadyExistsException, FileSystem, Path}

import txlog.LogPublishing
import txlog.errors.TxlogErrors

/** Object stores (s3a, gs, abfs, ...): there is no atomic rename, but a single PUT is atomic, so
  * every file is written directly to its name. Put-if-absent is, in this order:
  *
  *   - a conditional create (`If-None-Match: *`) through the file system, when it declares
  *     [[ObjectLogStore.ConditionalCapability]] (S3A from Hadoop 3.4.2);
  *   - on ABFS (`abfs`, `abfss`) accounts with a hierarchical namespace (ADLS Gen2), an atomic
  *     rename that refuses an existing target ([[NamespaceRename]]), also for overwrite;
  *   - else, on S3 (S3A's AWS SDK v2 client from Hadoop 3.4.0, v1 on Hadoop 3.3; a client of
  *     txlog's own for other S3 file systems, EMRFS) and unless
  *     `spark.txlog.storage.sdkConditionalPut` is false, the same conditional PUT sent through the
  *     SDK ([[S3ConditionalPut]]), once a probe showed the store honours it;
  *   - else, on the schemes of `spark.txlog.storage.exclusiveCreateSchemes` (`gs`), a `create(path,
  *     overwrite = false)` that the store refuses when the object is written ([[ExclusiveCreate]]),
  *     once a probe showed it does;
  *   - else refused (STORAGE_NOT_ATOMIC) unless `singleWriter` is set, in which case it is
  *     check-then-create, serialised within this JVM.
  *
  * Overwrite is a plain overwriting create: one PUT, atomic (on ADLS Gen2, a rename).
  */
private[txlog] final class ObjectLogStore(
    val fs: FileSystem,
    singleWriter: Boolean,
    sdkConditionalPut: Boolean = true,
    exclusiveCreateSchemes: Set[String] = Set.empty
) extends LogStore {
  import ObjectLogStore._

  private def conditional(p: Path): Boolean =
    try fs.hasPathCapability(p, ConditionalCapability)
    catch { case NonFatal(_) => false }

  private def scheme(dir: Path): String =
    Option(dir.toUri.getScheme).getOrElse(fs.getUri.getScheme)

  /** An AWS SDK client for a conditional PUT, when this is an S3 file system and it may be used
    * (Left: why it could not be made).
    */
  private lazy val sdkPut: Option[Either[String, S3ConditionalPut]] =
    if (!sdkConditionalPut) None
    else
      try S3ConditionalPut.forFileSystem(fs)
      catch { case _: LinkageError => None } // no AWS SDK where txlog is loaded

  /** Publishing by rename on ADLS Gen2 accounts with a hierarchical namespace. */
  private lazy val renaming = new NamespaceRename(fs)

  /** Whether `dir` is on an ABFS account with a hierarchical namespace (asked of ABFS, which asks
    * the account once per file system instance). A failure to ask is thrown.
    */
  private def namespaceRename(dir: Path): Boolean =
    NamespaceRename.Schemes.contains(scheme(dir)) &&
      (try fs.hasPathCapability(dir, NamespaceRename.NamespaceCapability)
      catch {
        case NonFatal(e) =>
          throw TxlogErrors.writeFailed(
            dir.toString,
            s"asking the account whether it has a hierarchical namespace: $e",
            e
          )
      })

  /** Why an ABFS account without a hierarchical namespace is refused. */
  private def flatNamespace(dir: Path): Option[String] =
    if (!NamespaceRename.Schemes.contains(scheme(dir))) None
    else {
      Some(
        "an atomic rename: the account has no hierarchical namespace (ABFS renames there by " +
          "copy and delete, and creates a file before its bytes are written)"
      )
    }

  /** Whether `create(path, overwrite = false)` is to be tried as put-if-absent here. */
  private def exclusiveScheme(dir: Path): Boolean = exclusiveCreateSchemes.contains(scheme(dir))

  /** How put-if-absent is done under `dir`, probing the store once per JVM where a way needs it. A
    * store that cannot be reached for the probe is LOG_WRITE_FAILED.
    */
  private def way(dir: Path): Way =
    if (conditional(dir)) HadoopConditional
    else if (namespaceRename(dir)) NamespaceRenaming
    else
      sdkPut match {
        case Some(Left(why)) => NoWay(Some(s"the SDK's conditional PUT: $why"))
        case Some(Right(put)) =>
          probing(dir, ".txlog-put-if-absent-probe-*")(S3ConditionalPut.probe(put, fs, dir))
            .fold[Way](ViaSdk(put))(r => NoWay(Some(s"the SDK's conditional PUT: $r")))
        case None if exclusiveScheme(dir) =>
          probing(dir, ".txlog-exclusive-create-probe-*")(ExclusiveCreate.probe(fs, dir))
            .fold[Way](Exclusive)(r => NoWay(Some(s"create(overwrite = false): $r")))
        case None => NoWay(flatNamespace(dir))
      }

  /** The way as far as known without writing (for `describe`): probes are not run here. */
  private def knownWay(dir: Path): Either[Way, Way] = {
    val namespace =
      try Right(namespaceRename(dir))
      catch { case NonFatal(e) => Left(e) }
    (conditional(dir), namespace) match {
      case (true, _)        => Right(HadoopConditional)
      case (_, Right(true)) => Right(NamespaceRenaming)
      case (_, Left(e)) =>
        Left(NoWay(Some(s"an atomic rename: the account could not be asked (${e.getMessage})")))
      case _ => knownObjectWay(dir)
    }
  }

  private def knownObjectWay(dir: Path): Either[Way, Way] =
    sdkPut match {
      case Some(Left(why)) => Right(NoWay(Some(s"the SDK's conditional PUT: $why")))
      case Some(Right(put)) =>
        S3ConditionalPut.probedOutcome(put, fs) match {
          case None          => Left(ViaSdk(put))
          case Some(None)    => Right(ViaSdk(put))
          case Some(Some(r)) => Right(NoWay(Some(s"the SDK's conditional PUT: $r")))
        }
      case None if exclusiveScheme(dir) =>
        ExclusiveCreate.probedOutcome(fs) match {
          case None          => Left(Exclusive)
          case Some(None)    => Right(Exclusive)
          case Some(Some(r)) => Right(NoWay(Some(s"create(overwrite = false): $r")))
        }
      case None => Right(NoWay(flatNamespace(dir)))
    }

  private def probing(dir: Path, probeName: String)(run: => Option[String]): Option[String] =
    try run
    catch {
      case NonFatal(e) =>
        throw TxlogErrors.writeFailed(
          new Path(dir, probeName).toString,
          s"probing how the store puts if absent: $e",
          e
        )
    }

  override def checkPutIfAbsent(dir: Path): Unit = way(dir) match {
    case NoWay(reason) if !singleWriter =>
      throw TxlogErrors.storageNotAtomic(dir.toString, scheme(dir), reason)
    case _ => ()
  }

  def publishing(dir: Path): LogPublishing = {
    val (way, probed) = knownWay(dir).fold((_, false), (_, true))
    // Not probed here: describe writes nothing. A probe's outcome is reported once known.
    val untried = if (probed) "" else " (the store is probed on the first write)"
    way match {
      case HadoopConditional =>
        LogPublishing(scheme(dir), "conditional create (If-None-Match: *), one PUT per file", true)
      case NamespaceRenaming => renaming.publishing(dir)
      case ViaSdk(put) =>
        LogPublishing(
          scheme(dir),
          s"conditional PUT (If-None-Match: *) through ${put.via}, one PUT per file" + untried,
          true
        )
      case Exclusive =>
        LogPublishing(
          scheme(dir),
          "exclusive create (create(overwrite = false), refused by the store when the object " +
            "is written: GCS's ifGenerationMatch=0)" + untried,
          true
        )
      case NoWay(reason) =>
        val why = reason.map(r => s"; not $r").getOrElse("")
        if (singleWriter) {
          LogPublishing(
            scheme(dir),
            "check-then-create, one writer promised (storage.singleWriter)" + why,
            false
          )
        } else {
          LogPublishing(
            scheme(dir),
            "refused: no conditional create (STORAGE_NOT_ATOMIC)" + why,
            false
          )
        }
    }
  }

  def putIfAbsent(target: Path, bytes: Array[Byte]): Boolean =
    create(
      target,
      out => out.write(bytes),
      _.put(target, bytes),
      renaming.putIfAbsent(target, bytes)
    )

  def publish(staged: Path, target: Path): Boolean =
    try {
      create(
        target,
        out => {
          val in: InputStream = fs.open(staged)
          try IOUtils.copyLarge(in, out)
          finally in.close()
        },
        _.putFile(staged, target),
        renaming.publish(staged, target)
      )
    } finally HiddenTempFiles.deleteQuietly(fs, staged)

  def overwrite(target: Path, bytes: Array[Byte]): Unit =
    if (namespaceRename(target.getParent)) renaming.overwrite(target, bytes)
    else
      try writeWhole(fs.create(target, true), _.write(bytes))
      catch {
        case NonFatal(e) => throw TxlogErrors.writeFailed(target.toString, e.toString, e)
      }

  def delete(path: Path): Boolean = fs.delete(path, true)

  /** Creates `target` with what `write` writes (or what `put` PUTs through the SDK) unless it
    * exists; false when it existed.
    */
  private def create(
      target: Path,
      write: java.io.OutputStream => Unit,
      put: S3ConditionalPut => Boolean,
      rename: => Boolean
  ): Boolean = {
    val dir = target.getParent
    checkPutIfAbsent(dir)
    way(dir) match {
      case HadoopConditional =>
        existedOrFailed(target) {
          val out = fs.createFile(target).overwrite(false).must(ConditionalOption, true).build()
          // The object appears (or the store refuses it) when the stream is closed.
          writeWhole(out, write)
          true
        }
      case NamespaceRenaming => rename
      case ViaSdk(sdk)       => existedOrFailed(target)(put(sdk))
      case Exclusive =>
        existedOrFailed(target) {
          val out =
            try Some(fs.create(target, false))
            catch { case _: FileAlreadyExistsException => None }
          // The object appears (or the store refuses it) when the stream is closed.
          out.exists { o => writeWhole(o, write); true }
        }
      case NoWay(_) =>
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

  /** How put-if-absent is done under a directory. */
  private sealed trait Way
  private case object HadoopConditional extends Way
  private case object NamespaceRenaming extends Way
  private final case class ViaSdk(put: S3ConditionalPut) extends Way
  private case object Exclusive extends Way

  /** None of the ways: check-then-create in single-writer mode, else refused (with why). */
  private final case class NoWay(reason: Option[String]) extends Way

  /** Serialises check-then-create in single-writer mode within one JVM. */
  private object SingleWriterLock
}
