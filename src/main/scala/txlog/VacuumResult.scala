package txlog

import txlog.util.{SummaryField, SummaryShape}

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.DataFrame

/** What [[DeltaLog.vacuum]] found, and deleted unless it was a dry run.
  *
  * {{{
  * val r = log.vacuum(retentionHours = Some(168.0), dryRun = false)
  * println(s"${r.numDeletedFiles} of ${r.numFiles} files deleted (${r.sizeInBytes} bytes)")
  * r.files.where("NOT deleted").show(truncate = false)
  * r.unpersist()
  * }}}
  *
  * @param tablePath
  *   the table's qualified root
  * @param mode
  *   `full` (the table directory was listed) or `lite` (the log's remove actions were read)
  * @param dryRun
  *   true when nothing was deleted
  * @param retentionMillis
  *   the retention used: the one asked for, rounded to whole hours, or the table's
  *   `delta.deletedFileRetentionDuration`
  * @param deleteBeforeTimestamp
  *   files last modified before this time (ms) and not needed by any version were deleted
  * @param numFiles
  *   files and empty directories to delete (delta-spark's numFilesToDelete)
  * @param sizeInBytes
  *   their total size
  * @param numDeletedFiles
  *   files and directories deleted (0 in a dry run)
  * @param numVacuumedDirectories
  *   directories listed, the root included (1 in lite mode, which lists none)
  * @param numSkippedPaths
  *   paths in the log vacuum left alone: outside the table root (absolute paths elsewhere, `..`
  *   escaping it), unresolvable, or (lite) inside a hidden directory such as `_delta_log`
  * @param skippedPathExamples
  *   up to 10 of them, with the reason
  * @param startCommit
  *   the version of the `VACUUM START` commit (None in a dry run)
  * @param endCommit
  *   the version of the `VACUUM END` commit (None in a dry run)
  * @param problems
  *   what failed without failing the vacuum (writing `_last_vacuum_info`)
  * @param files
  *   one row per file or directory to delete: `path` relative to the table root, unescaped (as the
  *   storage names it), `size`, `isDirectory`, and `deleted` (false in a dry run); persisted, so
  *   reading it again does not list the table again ([[unpersist]] releases it)
  */
final class VacuumResult private[txlog] (
    val tablePath: String,
    val mode: String,
    val dryRun: Boolean,
    val retentionMillis: Long,
    val deleteBeforeTimestamp: Long,
    val numFiles: Long,
    val sizeInBytes: Long,
    val numDeletedFiles: Long,
    val numVacuumedDirectories: Long,
    val numSkippedPaths: Long,
    val skippedPathExamples: Seq[String],
    val startCommit: Option[Long],
    val endCommit: Option[Long],
    val problems: Seq[String],
    val files: DataFrame,
    release: () => Unit
) extends Summarized {

  /** The vacuum's numbers. Example: `r.summaryFields.toMap("num_deleted_files")`. */
  def summaryFields: Seq[(String, Any)] = VacuumResult.Summary.values(this)

  /** The files and directories a vacuum that deleted could not delete (0 in a dry run): the storage
    * refused them (a directory with a file that stayed counts too); [[files]] has them with
    * `deleted = false`. Example: `if (r.numFailedDeletes > 0) r.files.where("NOT deleted").show()`.
    */
  def numFailedDeletes: Long = if (dryRun) 0L else numFiles - numDeletedFiles

  /** Releases the persisted [[files]]. Example: `r.unpersist()`. */
  def unpersist(): Unit = release()

  override def toString: String =
    s"VacuumResult($tablePath, mode=$mode, dryRun=$dryRun, numFiles=$numFiles, " +
      s"sizeInBytes=$sizeInBytes, numDeletedFiles=$numDeletedFiles)"
}

/** The companion of [[VacuumResult]]. */
object VacuumResult {

  /** The summary's fields, defined once (Scala, the command line and Python read them). */
  private[txlog] val Summary: SummaryShape[VacuumResult] = SummaryShape[VacuumResult](
    "VacuumResult",
    """|What a vacuum found, and deleted unless it was a dry run.
      |
      |``mode`` is ``"full"`` (the table directory was listed) or ``"lite"`` (the log's remove
      |actions were read). ``num_files`` and ``size_in_bytes`` count the files and empty
      |directories to delete; ``num_deleted_files`` those deleted (0 in a dry run) and
      |``num_failed_deletes`` those the storage refused to delete (their ``deleted`` is false).
      |``num_skipped_paths`` counts paths in the log vacuum left alone (outside the table root,
      |unresolvable, or in a hidden directory), ``skipped_path_examples`` shows up to 10.
      |``start_commit`` and ``end_commit`` are the versions of the ``VACUUM START`` and
      |``VACUUM END`` commits (None in a dry run). ``files`` has one row per file or directory:
      |``path`` relative to the table root (unescaped), ``size``, ``isDirectory``, ``deleted``;
      |it is persisted until :meth:`unpersist`.""".stripMargin
  )(
    SummaryField.string[VacuumResult]("mode")(_.mode),
    SummaryField.double[VacuumResult]("retention_hours")(_.retentionMillis / 3600000.0),
    SummaryField.long[VacuumResult]("delete_before")(_.deleteBeforeTimestamp),
    SummaryField.long[VacuumResult]("num_files")(_.numFiles),
    SummaryField.long[VacuumResult]("size_in_bytes")(_.sizeInBytes),
    SummaryField.long[VacuumResult]("num_deleted_files")(_.numDeletedFiles),
    SummaryField.long[VacuumResult]("num_failed_deletes")(_.numFailedDeletes),
    SummaryField.long[VacuumResult]("num_vacuumed_directories")(_.numVacuumedDirectories),
    SummaryField.long[VacuumResult]("num_skipped_paths")(_.numSkippedPaths),
    SummaryField.strings[VacuumResult]("skipped_path_examples")(_.skippedPathExamples),
    SummaryField.optLong[VacuumResult]("start_commit")(_.startCommit),
    SummaryField.optLong[VacuumResult]("end_commit")(_.endCommit),
    SummaryField.strings[VacuumResult]("problems")(_.problems)
  )
    .withHead(
      SummaryField.string[VacuumResult]("table_path")(_.tablePath),
      SummaryField.bool[VacuumResult]("dry_run")(_.dryRun)
    )
}
