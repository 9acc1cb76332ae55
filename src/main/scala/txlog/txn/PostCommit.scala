package txlog.txn

import scala.util.control.NonFatal

import txlog.{CheckpointResult, Snapshot, TxlogException}
import txlog.checkpoint.CheckpointWriter
import txlog.cleanup.MetadataCleanup
import txlog.table.TableContext
import txlog.protocol.TableConfiguration

/** What a transaction does after its commit landed: a checkpoint every `delta.checkpointInterval`
  * commits (default 10) and then, when `delta.enableExpiredLogCleanup` is on (the default),
  * metadata cleanup of log files past `delta.logRetentionDuration`. Failures here are reported,
  * never thrown: the commit stands.
  *
  * First of all, the version checksum (`n.crc`) derived from the previous one and the commit's
  * actions ([[CommitChecksum]]), when it can be derived; it is never recounted from the files.
  */
private[txlog] object PostCommit {

  /** Runs the post-commit work for `version`, committed on top of `readSnapshot` (the snapshot the
    * transaction last rebased on, version - 1, or None for a new table); `checksum` is what the
    * commit's version checksum is derived from (None: write none). The checkpoint is of the
    * snapshot the commit produced: `ctx`'s snapshots updated from the one the transaction read
    * (only the new commits are read), not the table replayed again.
    */
  def run(
      ctx: TableContext,
      version: Long,
      readSnapshot: Option[Snapshot],
      checksum: Option[CommitChecksum.Input] = None
  ): PostCommitReport = {
    val table = ctx.table
    val problems = Seq.newBuilder[String]
    def attempt[T](step: String)(body: => T): Option[T] =
      try Some(body)
      catch {
        case e: TxlogException => problems += s"$step: [${e.errorClass}] ${e.getMessage}"; None
        case NonFatal(e)       => problems += s"$step: ${e.getClass.getSimpleName}: $e"; None
      }
    val crc = checksum.flatMap { in =>
      attempt("version checksum") {
        CommitChecksum.derive(table, version, readSnapshot, in).toOption.flatMap { c =>
          CommitChecksum.write(table, version, c)
        }
      }.flatten
    }
    val checkpoint = attempt("checkpoint") {
      // The interval as of the read snapshot; a commit that creates the table uses the default.
      val interval =
        readSnapshot.fold(TableConfiguration.DefaultCheckpointInterval)(_.config.checkpointInterval)
      if (version > 0 && version % interval == 0) {
        val updated = ctx.snapshots.update()
        val produced =
          if (updated.version == version) updated else ctx.snapshots.latestOr(Some(version))
        val written = CheckpointWriter.write(ctx.spark, produced, None, Map.empty)
        if (produced.config.expiredLogCleanup) {
          // The cleanup deletes as it plans; its rows (a local relation) are not needed here,
          // and counting them would run a Spark job for nothing.
          attempt("expired log cleanup") {
            MetadataCleanup.run(ctx, None, dryRun = false, force = false)
          }
        }
        Some(written)
      } else None
    }.flatten
    PostCommitReport(crc, checkpoint, problems.result())
  }

}

/** What [[PostCommit.run]] did: the checksum file written, the checkpoint written, and problems
  * (step, error class and message) that left a step undone.
  */
private[txlog] final case class PostCommitReport(
    checksum: Option[String],
    checkpoint: Option[CheckpointResult],
    problems: Seq[String]
)
