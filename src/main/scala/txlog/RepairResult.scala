package txlog

import txlog.util.{SummaryField, SummaryShape}

import org.apache.spark.sql.DataFrame

/** What [[DeltaLog.repair]] did, or would do in a dry run.
  *
  * {{{
  * val r = log.repair()                       // dry run
  * r.actions.show(truncate = false)
  * if (r.numNotRepairable == 0) log.repair(dryRun = false).unpersist()
  * }}}
  *
  * @param tablePath
  *   the table's qualified root
  * @param dryRun
  *   true when nothing was written, moved or committed
  * @param numCheckpointsRewritten
  *   checkpoints set aside and written again from the commits (to be, in a dry run)
  * @param numChecksumsRewritten
  *   version checksum files set aside and written again from a replay
  * @param lastCheckpointRewritten
  *   whether `_last_checkpoint` was (or would be) written again or deleted
  * @param numFilesRemoved
  *   live files whose data or deletion vector file is missing, removed by the `FSCK` commit
  * @param sizeOfFilesRemoved
  *   their total size as the log gave it
  * @param numNotRepairable
  *   faults repair leaves as they are (a version gap, a checkpoint no commits can rebuild, a data
  *   file whose size differs from the log's, an unreadable latest version)
  * @param commitVersion
  *   the version of the `FSCK` commit (None in a dry run or when no file was removed)
  * @param setAsideDir
  *   where the replaced log files were moved (None when none was, and in a dry run)
  * @param actions
  *   one row per action (`action`, `version`, `file`, `rule`, `detail`, `done`): the action is
  *   `set-aside-checkpoint`, `write-checkpoint`, `set-aside-checksum`, `write-checksum`,
  *   `write-last-checkpoint`, `delete-last-checkpoint`, `remove-file` or `not-repairable`; `rule`
  *   is the rule of `validate` that finds the fault; `done` is false in a dry run. Persisted until
  *   [[unpersist]].
  */
final class RepairResult private[txlog] (
    val tablePath: String,
    val dryRun: Boolean,
    val numCheckpointsRewritten: Long,
    val numChecksumsRewritten: Long,
    val lastCheckpointRewritten: Boolean,
    val numFilesRemoved: Long,
    val sizeOfFilesRemoved: Long,
    val numNotRepairable: Long,
    val commitVersion: Option[Long],
    val setAsideDir: Option[String],
    val actions: DataFrame,
    release: () => Unit
) extends Summarized {

  /** The repair's numbers (an exit code of 1 on the command line means: a dry run found something
    * to do, or a repair left something undone). Example: `r.summaryFields.toMap("commit_version")`.
    */
  def summaryFields: Seq[(String, Any)] = RepairResult.Summary.values(this)

  /** Whether there was anything to repair or report. Example: `if (!r.isClean) r.actions.show()`.
    */
  def isClean: Boolean =
    numCheckpointsRewritten == 0 && numChecksumsRewritten == 0 && !lastCheckpointRewritten &&
      numFilesRemoved == 0 && numNotRepairable == 0

  /** Releases the persisted [[actions]]. Example: `r.unpersist()`. */
  def unpersist(): Unit = release()

  override def toString: String =
    s"RepairResult($tablePath, dryRun=$dryRun, checkpoints=$numCheckpointsRewritten, " +
      s"checksums=$numChecksumsRewritten, lastCheckpoint=$lastCheckpointRewritten, " +
      s"filesRemoved=$numFilesRemoved, notRepairable=$numNotRepairable)"
}

/** The companion of [[RepairResult]]. */
object RepairResult {

  /** The summary's fields, defined once (Scala, the command line and Python read them). */
  private[txlog] val Summary: SummaryShape[RepairResult] = SummaryShape[RepairResult](
    "RepairResult",
    """|What a repair did, or would do in a dry run.
      |
      |``num_checkpoints_rewritten`` and ``num_checksums_rewritten`` count the checkpoints and
      |``.crc`` files set aside and written again; ``last_checkpoint_rewritten`` says whether
      |``_last_checkpoint`` was rebuilt (or deleted, when no checkpoint is left);
      |``num_files_removed`` / ``size_of_files_removed`` count the files whose data or deletion
      |vector file is missing, removed by the ``FSCK`` commit of version ``commit_version``
      |(None in a dry run or when there were none); ``num_not_repairable`` counts the faults left
      |as they are (version gaps, checkpoints no commits rebuild, size mismatches).
      |``set_aside_dir`` is where the replaced log files went. ``actions`` has one row per action
      |(``action``, ``version``, ``file``, ``rule``, ``detail``, ``done``); it is persisted until
      |:meth:`unpersist`.""".stripMargin
  )(
    SummaryField.long[RepairResult]("num_checkpoints_rewritten")(_.numCheckpointsRewritten),
    SummaryField.long[RepairResult]("num_checksums_rewritten")(_.numChecksumsRewritten),
    SummaryField.bool[RepairResult]("last_checkpoint_rewritten")(_.lastCheckpointRewritten),
    SummaryField.long[RepairResult]("num_files_removed")(_.numFilesRemoved),
    SummaryField.long[RepairResult]("size_of_files_removed")(_.sizeOfFilesRemoved),
    SummaryField.long[RepairResult]("num_not_repairable")(_.numNotRepairable),
    SummaryField.optLong[RepairResult]("commit_version")(_.commitVersion),
    SummaryField.optString[RepairResult]("set_aside_dir")(_.setAsideDir)
  )
    .withHead(
      SummaryField.string[RepairResult]("table_path")(_.tablePath),
      SummaryField.bool[RepairResult]("dry_run")(_.dryRun)
    )
}
