package txlog.txn

import scala.util.control.NonFatal

import org.apache.spark.sql.SparkSession

import txlog.{CheckpointResult, DeltaLog, Snapshot, TxlogException}
import txlog.log.TablePath
import txlog.table.TableProperties

/** What a transaction does after its commit landed: a checkpoint every `delta.checkpointInterval`
  * commits (default 10) and then, when `delta.enableExpiredLogCleanup` is on (the default),
  * metadata cleanup of log files past `delta.logRetentionDuration`. Failures here are reported,
  * never thrown: the commit stands.
  *
  * Version checksums are not written on commit yet: the spec lets writers skip them, and a full
  * recount per commit would cost a scan of the table's files.
  */
private[txlog] object PostCommit {

  /** Runs the post-commit work for `version`, committed on top of `readSnapshot` (the snapshot the
    * transaction last rebased on, version - 1, or None for a new table).
    */
  def run(
      spark: SparkSession,
      table: TablePath,
      version: Long,
      readSnapshot: Option[Snapshot]
  ): PostCommitReport = {
    val problems = Seq.newBuilder[String]
    def attempt[T](step: String)(body: => T): Option[T] =
      try Some(body)
      catch {
        case e: TxlogException => problems += s"$step: [${e.errorClass}] ${e.getMessage}"; None
        case NonFatal(e)       => problems += s"$step: ${e.getClass.getSimpleName}: $e"; None
      }
    val checkpoint = attempt("checkpoint") {
      val log = DeltaLog.forTable(spark, table.root)
      val conf = readSnapshot.map(_.metadata.configuration)
      // The interval as of the read snapshot; a commit that creates the table uses the default.
      val interval = intervalOf(conf.getOrElse(Map.empty))
      if (version > 0 && version % interval == 0) {
        // The latest snapshot is remembered by the log: checkpoint() reuses it when nobody
        // committed since.
        val latest = log.snapshot()
        val written = log.checkpoint(Some(version))
        val props = TableProperties.withDefaults(latest.metadata.configuration)
        if (props("delta.enableExpiredLogCleanup").trim.equalsIgnoreCase("true")) {
          attempt("expired log cleanup")(log.cleanup(None, dryRun = false).count())
        }
        Some(written)
      } else None
    }.flatten
    PostCommitReport(None, checkpoint, problems.result())
  }

  private def intervalOf(conf: Map[String, String]): Long =
    TableProperties
      .withDefaults(conf)("delta.checkpointInterval")
      .trim
      .toLongOption
      .filter(_ > 0)
      .getOrElse(10L)
}

/** What [[PostCommit.run]] did: the checksum file written, the checkpoint written, and problems
  * (step, error class and message) that left a step undone.
  */
private[txlog] final case class PostCommitReport(
    checksum: Option[String],
    checkpoint: Option[CheckpointResult],
    problems: Seq[String]
)
