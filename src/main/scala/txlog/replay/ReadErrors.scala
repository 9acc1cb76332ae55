package txlog.replay

import java.io.{EOFException, FileNotFoundException, IOException, InterruptedIOException}
import java.net.URI
import java.nio.file.AccessDeniedException

import scala.util.Try
import scala.util.control.NonFatal

import org.apache.hadoop.fs.{FSError, Path}
import org.apache.spark.SparkThrowable
import org.apache.spark.sql.txlog.SparkErrors

import txlog.TxlogException
import txlog.errors.TxlogErrors
import txlog.log.LogSegment
import txlog.protocol.CheckpointFile
import txlog.protocol.FileInfo
import txlog.protocol.FileNames

/** Turns a failure while reading a segment's files into an error that names the file.
  *
  * Errors raised in txlog's own code (on the driver or in tasks) already carry their file and
  * version and are passed on. A Spark read failure names its file in its message parameters
  * (`path`): the file is looked up exactly among the segment's files (checkpoint parts, sidecars,
  * deltas) and the failure classed by its cause: a storage failure (missing file, permission
  * denied, an I/O error of the file system) is LOG_READ_FAILED, anything else (a parquet decoding
  * error, a truncated file) MALFORMED_LOG_FILE. A cancelled job, an interrupted read or a failure
  * naming no file of the segment propagates as it is.
  */
private[txlog] object ReadErrors {

  def translate[T](segment: LogSegment, sidecars: Seq[String] = Nil)(body: => T): T =
    try body
    catch {
      case e: TxlogException => throw e
      case NonFatal(e)       => throw translated(segment, sidecars, e).getOrElse(e)
    }

  /** Whether `e` (or a cause) is a storage failure rather than a fault of the file read: see
    * [[storage]].
    */
  def storageFailure(e: Throwable): Boolean = storage(causes(e))

  /** Whether `e` is a checkpoint part or sidecar that vanished after it was listed (a concurrent
    * metadata cleanup): listing again finds the log as it now is.
    */
  def vanishedCheckpoint(e: TxlogException): Boolean =
    e.errorClass == "LOG_READ_FAILED" && causes(e).exists(missing) &&
      e.file.exists { f =>
        f.contains(s"/_delta_log/${FileNames.SidecarDir}/") ||
        FileNames.parse(FileInfo(f, 0L, 0L)).exists(_.isInstanceOf[CheckpointFile])
      }

  private def translated(
      segment: LogSegment,
      sidecars: Seq[String],
      e: Throwable
  ): Option[Throwable] = {
    val chain = causes(e)
    chain.collectFirst { case t: TxlogException => t }.orElse {
      if (chain.exists(interrupted)) None
      else {
        val files = segmentFiles(segment, sidecars)
        chain.iterator
          .flatMap(pathOf)
          .flatMap(p => keys(p).flatMap(files.get))
          .find(_ => true)
          .orElse(mentioned(chain, files))
          .map { case (file, version) =>
            val root = chain.last
            val detail = s"${root.getClass.getSimpleName}: ${String.valueOf(root.getMessage)}"
              .take(400)
            if (storage(chain)) TxlogErrors.logReadFailed(file, Some(version), detail, e)
            else TxlogErrors.malformedLogFile(file, version, detail, e)
          }
      }
    }
  }

  /** The segment's file a message of `chain` names, for a failure Spark did not tag with the path
    * it read (Spark 3.5's parquet footer errors: "<path> is not a Parquet file").
    */
  private def mentioned(
      chain: Seq[Throwable],
      files: Map[String, (String, Long)]
  ): Option[(String, Long)] =
    chain.iterator
      .flatMap(t => Option(t.getMessage))
      .flatMap(m => files.iterator.collectFirst { case (k, f) if m.contains(k) => f })
      .find(_ => true)

  private def causes(e: Throwable): Seq[Throwable] =
    Iterator.iterate(e)(_.getCause).takeWhile(_ != null).take(50).toSeq

  /** A file that is not there: Hadoop's error, or Spark's when it looked for it on the driver. */
  private def missing(t: Throwable): Boolean = t match {
    case _: FileNotFoundException => true
    case s: SparkThrowable        => SparkErrors.condition(s) == "PATH_NOT_FOUND"
    case _                        => false
  }

  private def interrupted(t: Throwable): Boolean = t match {
    case _: InterruptedException | _: InterruptedIOException => true
    case _: java.nio.channels.ClosedByInterruptException     => true
    case _                                                   => false
  }

  /** The file a Spark error names in its message parameters. */
  private def pathOf(t: Throwable): Option[String] = t match {
    case s: SparkThrowable =>
      Option(s.getMessageParameters).flatMap(p => Option(p.get("path"))).filter(_.nonEmpty)
    case _ => None
  }

  /** Whether the failure is the storage's (the file is fine, reading it failed), not the file's: a
    * missing or forbidden file, or an I/O error thrown by the file system rather than by the
    * parquet decoder. A file that ends too early is truncated: corrupt.
    */
  private def storage(chain: Seq[Throwable]): Boolean =
    chain.exists {
      case t if missing(t)          => true
      case _: AccessDeniedException => true
      case _: FSError               => true
      case _: EOFException          => false
      case io: IOException =>
        !io.getStackTrace.headOption.exists(_.getClassName.startsWith("org.apache.parquet"))
      case _ => false
    }

  /** Files are looked up by their path without scheme and authority, which Spark may spell
    * differently (`file:/t` or `file:///t`).
    */
  private def key(path: String): String = new Path(path).toUri.getPath

  /** The keys a path named by Spark may have: as a path, or as a URL-encoded URI. */
  private def keys(path: String): Seq[String] =
    (key(path) +: Try(new URI(path).getPath).toOption.filter(_ != null).toSeq).distinct

  /** Every file of the segment with its version (a sidecar's is its checkpoint's). */
  private def segmentFiles(
      segment: LogSegment,
      sidecars: Seq[String]
  ): Map[String, (String, Long)] = {
    val cp = segment.checkpoint.toSeq.flatMap(_.files.map(f => f.file.path -> f.version))
    val side = sidecars.map(s => FileState.sidecarPath(segment, s) -> segment.checkpointVersion)
    val deltas = segment.deltas.map(d => d.file.path -> d.version)
    (cp ++ side ++ deltas).map { case (p, v) => key(p) -> (p, v) }.toMap
  }
}
