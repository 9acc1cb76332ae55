package txlog

import txlog.util.{SummaryField, SummaryShape}

/** What [[DeltaLog.restore]] did: delta-spark's RESTORE metrics and the commit that recorded it.
  *
  * {{{
  * val r = log.restore(version = Some(3L))
  * println(s"v${r.version.get}: ${r.numRestoredFiles} files back, ${r.numRemovedFiles} removed")
  * }}}
  *
  * @param tablePath
  *   the table's qualified root
  * @param restoredVersion
  *   the version the table was restored to (the one asked for, or the one the timestamp resolved
  *   to)
  * @param readVersion
  *   the latest version when the restore started
  * @param version
  *   the version of the `RESTORE` commit; None in a dry run, and when the table was already at
  *   `restoredVersion` (nothing to commit)
  * @param dryRun
  *   true when nothing was committed
  * @param tableSizeAfterRestore
  *   bytes of the live files of `restoredVersion`
  * @param numOfFilesAfterRestore
  *   live files of `restoredVersion`
  * @param numRemovedFiles
  *   files live now but not in `restoredVersion`, removed by the commit
  * @param numRestoredFiles
  *   files live in `restoredVersion` but not now, added back by the commit
  * @param removedFilesSize
  *   their total size
  * @param restoredFilesSize
  *   their total size
  */
final case class RestoreResult(
    tablePath: String,
    restoredVersion: Long,
    readVersion: Long,
    version: Option[Long],
    dryRun: Boolean,
    tableSizeAfterRestore: Long,
    numOfFilesAfterRestore: Long,
    numRemovedFiles: Long,
    numRestoredFiles: Long,
    removedFilesSize: Long,
    restoredFilesSize: Long
) extends Summarized {

  /** The restore's versions and metrics. Example: `r.summaryFields.toMap("num_restored_files")`. */
  def summaryFields: Seq[(String, Any)] = RestoreResult.Summary.values(this)

  /** The metrics as the commit's operationMetrics name them. Example:
    * `r.metrics("numRemovedFiles")`.
    */
  def metrics: Map[String, Long] = Map(
    "tableSizeAfterRestore" -> tableSizeAfterRestore,
    "numOfFilesAfterRestore" -> numOfFilesAfterRestore,
    "numRemovedFiles" -> numRemovedFiles,
    "numRestoredFiles" -> numRestoredFiles,
    "removedFilesSize" -> removedFilesSize,
    "restoredFilesSize" -> restoredFilesSize
  )
}

/** The companion of [[RestoreResult]]. */
object RestoreResult {

  /** The summary's fields, defined once (Scala, the command line and Python read them). */
  private[txlog] val Summary: SummaryShape[RestoreResult] = SummaryShape[RestoreResult](
    "RestoreResult",
    """|What a restore did, with delta-spark's RESTORE metrics.
      |
      |``restored_version`` is the version the table was restored to (the one asked for, or the
      |one the timestamp resolved to); ``read_version`` the latest version when it started;
      |``version`` the version of the ``RESTORE`` commit (None in a dry run, or when the table
      |already was at ``restored_version``). ``num_restored_files`` / ``restored_files_size``
      |count the files added back, ``num_removed_files`` / ``removed_files_size`` those removed;
      |``num_of_files_after_restore`` / ``table_size_after_restore`` describe the restored
      |version.""".stripMargin
  )(
    SummaryField.long[RestoreResult]("restored_version")(_.restoredVersion),
    SummaryField.long[RestoreResult]("read_version")(_.readVersion),
    SummaryField.optLong[RestoreResult]("version")(_.version),
    SummaryField.long[RestoreResult]("table_size_after_restore")(_.tableSizeAfterRestore),
    SummaryField.long[RestoreResult]("num_of_files_after_restore")(_.numOfFilesAfterRestore),
    SummaryField.long[RestoreResult]("num_removed_files")(_.numRemovedFiles),
    SummaryField.long[RestoreResult]("num_restored_files")(_.numRestoredFiles),
    SummaryField.long[RestoreResult]("removed_files_size")(_.removedFilesSize),
    SummaryField.long[RestoreResult]("restored_files_size")(_.restoredFilesSize)
  )
    .withHead(
      SummaryField.string[RestoreResult]("table_path")(_.tablePath),
      SummaryField.bool[RestoreResult]("dry_run")(_.dryRun)
    )
}
