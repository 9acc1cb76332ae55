package txlog

/** What `DeltaLog.optimize` did (or, in a dry run, would do).
  *
  * @param version
  *   the version committed; the version read when nothing was committed
  * @param numBins
  *   groups of files each rewritten as one file
  * @param numFilesConsidered
  *   files small enough (or with enough rows deleted) to be compacted
  * @param numFilesRemaining
  *   of those, files left for a later run (one run compacts at most 100,000)
  * @param numConflictedBins
  *   bins left as they were because a concurrent commit removed one of their files (or changed its
  *   deletion vector) before OPTIMIZE committed; the other bins were committed
  *
  * {{{
  * val r = log.optimize(dryRun = true)
  * println(r.toJson) // {"version":7,"committed":false,"dry_run":true,"num_bins":3,...}
  * }}}
  */
final case class OptimizeResult(
    version: Long,
    committed: Boolean,
    dryRun: Boolean,
    numBins: Long,
    numRemovedFiles: Long,
    numRemovedBytes: Long,
    numAddedFiles: Long,
    numAddedBytes: Long,
    numFilesConsidered: Long,
    numFilesRemaining: Long,
    numConflictedBins: Long
) extends Summarized {

  /** version, committed, dry_run, num_bins, num_removed_files, num_removed_bytes, num_added_files,
    * num_added_bytes, num_files_considered, num_files_remaining, num_conflicted_bins. Example:
    * `r.summaryFields.toMap("num_bins")`.
    */
  def summaryFields: Seq[(String, Any)] = Seq(
    "version" -> version,
    "committed" -> committed,
    "dry_run" -> dryRun,
    "num_bins" -> numBins,
    "num_removed_files" -> numRemovedFiles,
    "num_removed_bytes" -> numRemovedBytes,
    "num_added_files" -> numAddedFiles,
    "num_added_bytes" -> numAddedBytes,
    "num_files_considered" -> numFilesConsidered,
    "num_files_remaining" -> numFilesRemaining,
    "num_conflicted_bins" -> numConflictedBins
  )
}
