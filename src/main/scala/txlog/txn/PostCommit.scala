package txlog.txn

import org.apache.spark.sql.SparkSession

import txlog.Snapshot
import txlog.log.TablePath

/** What a transaction does after its commit landed: a version checksum computed from the previous
  * one, a checkpoint every `delta.checkpointInterval` commits, expired log cleanup. Failures here
  * are reported, never thrown: the commit stands.
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
  ): PostCommitReport = PostCommitReport(None, None, Seq.empty)
}

/** What [[PostCommit.run]] did: the checksum file written, the checkpoint written, and problems
  * (error class and message) that left a step undone.
  */
private[txlog] final case class PostCommitReport(
    checksum: Option[String],
    checkpoint: Option[txlog.CheckpointResult],
    problems: Seq[String]
)
