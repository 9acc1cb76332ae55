package txlog

import txlog.util.{SummaryField, SummaryShape}

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
  def summaryFields: Seq[(String, Any)] = OptimizeResult.Summary.values(this)
}

/** The companion of [[OptimizeResult]]. */
object OptimizeResult {

  /** The summary's fields, defined once (Scala, the command line and Python read them). */
  private[txlog] val Summary: SummaryShape[OptimizeResult] = SummaryShape[OptimizeResult](
    "OptimizeResult",
    """|What :meth:`txlog.DeltaLog.optimize` did (or, with ``dry_run``, would do):
      |``num_removed_files`` files of ``num_removed_bytes`` bytes compacted in ``num_bins`` groups
      |into ``num_added_files`` files of ``num_added_bytes`` bytes, committed as ``version``
      |(``committed`` false in a dry run or when nothing was worth compacting).
      |``num_files_considered`` files were small enough; ``num_files_remaining`` of them are left
      |for another run (one run compacts at most 100,000). ``num_conflicted_bins`` bins were left as
      |they were because a concurrent commit removed one of their files (the others committed).""".stripMargin
  )(
    SummaryField.long[OptimizeResult]("version")(_.version),
    SummaryField.bool[OptimizeResult]("committed")(_.committed),
    SummaryField.bool[OptimizeResult]("dry_run")(_.dryRun),
    SummaryField.long[OptimizeResult]("num_bins")(_.numBins),
    SummaryField.long[OptimizeResult]("num_removed_files")(_.numRemovedFiles),
    SummaryField.long[OptimizeResult]("num_removed_bytes")(_.numRemovedBytes),
    SummaryField.long[OptimizeResult]("num_added_files")(_.numAddedFiles),
    SummaryField.long[OptimizeResult]("num_added_bytes")(_.numAddedBytes),
    SummaryField.long[OptimizeResult]("num_files_considered")(_.numFilesConsidered),
    SummaryField.long[OptimizeResult]("num_files_remaining")(_.numFilesRemaining),
    SummaryField.long[OptimizeResult]("num_conflicted_bins")(_.numConflictedBins)
  )
}
