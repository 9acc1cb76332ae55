package txlog

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
  def summaryFields: Seq[(String, Any)] = Seq(
    "version" -> version,
    "committed" -> committed,
    "attempts" -> attempts,
    "checkpoint_version" -> Summarized.orNull(checkpoint.map(_.version)),
    "checksum" -> checksum.orNull,
    "post_commit_problems" -> postCommitProblems.asJava
  )
}
