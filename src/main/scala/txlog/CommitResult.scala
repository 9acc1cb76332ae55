package txlog

import txlog.util.{SummaryField, SummaryShape}

import scala.jdk.CollectionConverters._

/** What `Transaction.commit` did.
  *
  * @param version
  *   the version committed; when skipped (`committed` false), the version of the snapshot that
  *   already held the transaction's app id at or past its version
  * @param committed
  *   false when the commit was skipped as idempotent (see `Transaction.setAppTransaction`)
  * @param attempts
  *   how many versions were tried (1 when no other writer won a race)
  * @param checksum
  *   the version checksum file written after the commit, if any
  * @param checkpoint
  *   the checkpoint written after the commit, if any
  * @param postCommitProblems
  *   post-commit steps that failed (the commit stands): error class and message
  *
  * {{{
  * val r = log.startTransaction().addFiles(df).commit()
  * if (r.committed) println(s"v${r.version} after ${r.attempts} attempts")
  * }}}
  */
final case class CommitResult(
    version: Long,
    committed: Boolean,
    attempts: Int,
    checksum: Option[String],
    checkpoint: Option[CheckpointResult],
    postCommitProblems: Seq[String]
) extends Summarized {

  /** version, committed, attempts, checkpoint_version, checksum, post_commit_problems. Example:
    * `r.summaryFields.toMap("attempts")`.
    */
  def summaryFields: Seq[(String, Any)] = CommitResult.Summary.values(this)
}

/** The companion of [[CommitResult]]. */
object CommitResult {

  /** The summary's fields, defined once (Scala, the command line and Python read them). */
  private[txlog] val Summary: SummaryShape[CommitResult] = SummaryShape[CommitResult](
    "CommitResult",
    """|What :meth:`Transaction.commit` did: the version, whether it committed (False when skipped
      |as idempotent: the table already held the transaction's app id at or past its version), how
      |many versions were tried, the checkpoint written after it (its version, or None), the version
      |checksum file written after it (its path, or None) and the post-commit steps that failed (the
      |commit stands).""".stripMargin
  )(
    SummaryField.long[CommitResult]("version")(_.version),
    SummaryField.bool[CommitResult]("committed")(_.committed),
    SummaryField.long[CommitResult]("attempts")(_.attempts.toLong),
    SummaryField.optLong[CommitResult]("checkpoint_version")(_.checkpoint.map(_.version)),
    SummaryField.optString[CommitResult]("checksum")(_.checksum),
    SummaryField.strings[CommitResult]("post_commit_problems")(_.postCommitProblems)
  )
}
