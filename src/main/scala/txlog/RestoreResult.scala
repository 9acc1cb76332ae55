package txlog

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
  def summaryFields: Seq[(String, Any)] = Seq(
    "restored_version" -> restoredVersion,
    "read_version" -> readVersion,
    "version" -> Summarized.orNull(version),
    "table_size_after_restore" -> tableSizeAfterRestore,
    "num_of_files_after_restore" -> numOfFilesAfterRestore,
    "num_removed_files" -> numRemovedFiles,
    "num_restored_files" -> numRestoredFiles,
    "removed_files_size" -> removedFilesSize,
    "restored_files_size" -> restoredFilesSize
  )

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
