package txlog.cleanup

/** What metadata cleanup decided: the cutoffs and the files to delete in order (oldest first,
  * sidecars last), or why nothing can be deleted.
  */
private[txlog] final case class CleanupPlan(
    cutOffTimestamp: Long,
    cutoffCommit: Option[Long],
    cutOffCheckpoint: Option[Long],
    candidates: Seq[CleanupCandidate],
    blockedBecause: Option[String]
)
