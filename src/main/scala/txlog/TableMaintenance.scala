package txlog

import txlog.errors.TxlogErrors

/** VACUUM, RESTORE and REPAIR of a [[DeltaLog]]'s table: maintenance that deletes data files or
  * commits on the table's behalf (`txlog.vacuum`, `txlog.restore` and `txlog.repair` do the work).
  *
  * {{{
  * val log = txlog.DeltaLog.forTable(spark, "/data/events")
  * log.vacuum().files.show()        // a dry run
  * log.repair().actions.show()      // a dry run
  * }}}
  */
trait TableMaintenance { self: DeltaLog =>

  // ---- VACUUM (txlog.vacuum does the work) ----

  /** VACUUM: deletes the data files (and empty directories) under the table that no version within
    * the retention needs, by Spark jobs. `retentionHours` defaults to the table's
    * `delta.deletedFileRetentionDuration` (7 days); a shorter one is VACUUM_RETENTION_TOO_SHORT
    * unless `force`. A dry run (the default) deletes nothing and says what would go.
    *
    * Full mode lists the table directory by tasks and deletes every file last modified before the
    * cutoff that no version within it references (live files, tombstones not older than the cutoff,
    * their deletion vectors); `_change_data` files go once out of retention. `lite` reads only the
    * remove and cdc actions of commits older than the cutoff (after the last vacuum's, per
    * `_delta_log/_last_vacuum_info`; VACUUM_LITE_NOT_POSSIBLE when those commits were cleaned up).
    * Hidden names (`_delta_log`, `.x`, `_x` but for partition directories and `_change_data`) are
    * never touched, nor anything outside the root: actions naming such paths are counted in
    * `numSkippedPaths`, symbolic links are not followed. Paths are qualified before they are
    * compared (`s3://b/t/x` lies in `s3a://b/t`, `file://localhost/t/x` in `file:/t`); a path on a
    * store the root's cannot be related to (another scheme or authority) is VACUUM_UNRELATED_PATHS
    * before anything is deleted, unless `allowUnrelatedPaths`. Unless a dry run, `VACUUM START` and
    * `VACUUM END` commits record it. UNSUPPORTED_WRITER_FEATURES when the protocol has writer
    * features txlog does not know (the spec's vacuumProtocolCheck).
    *
    * {{{
    * log.vacuum().files.show()                                         // dry run, 7 days
    * val r = log.vacuum(retentionHours = Some(24.0), dryRun = false, force = true)
    * println(s"deleted ${r.numDeletedFiles} files, ${r.sizeInBytes} bytes"); r.unpersist()
    * log.vacuum(lite = true, dryRun = false)
    * }}}
    */
  def vacuum(
      retentionHours: Option[Double] = None,
      dryRun: Boolean = true,
      lite: Boolean = false,
      force: Boolean = false,
      allowUnrelatedPaths: Boolean = false
  ): VacuumResult = vacuumWith(
    txlog.vacuum.Vacuum.Options(retentionHours, dryRun, lite, force, allowUnrelatedPaths)
  )

  /** [[vacuum]] telling `progress` each step as it starts (for the command line). */
  private[txlog] def vacuumWith(
      options: txlog.vacuum.Vacuum.Options,
      progress: String => Unit = _ => ()
  ): VacuumResult = {
    val l = listing()
    // A full vacuum on the driver reads the checkpoint's file actions once, in the load: the
    // snapshot keeps them for its pass (when it is loaded now, not the one remembered).
    val onDriver = !options.lite && txlog.config.TxlogConf.VacuumOnDriver.get(spark)
    // The files to keep come from the commits themselves, never from a log compaction standing in
    // for them: a compaction that lost an add would have that file deleted (readers use one only
    // while its commits are there, so they always are).
    val snapshot =
      if (l.compactions.isEmpty) relisting(context.snapshots.latestOf(l, keepFiles = onDriver))
      else {
        val commitsOnly = l.copy(compactions = IndexedSeq.empty)
        relisting(
          txlog.replay.SnapshotLoader
            .load(spark, commitsOnly, txlog.log.LogSegment.build(commitsOnly, None))
        )
      }
    try txlog.vacuum.Vacuum.run(context, l, snapshot, options, progress)
    finally snapshot.driverFileActions.foreach(_.releaseKept()) // if it failed before its pass
  }

  // ---- RESTORE (txlog.restore does the work)

  /** RESTORE: one `RESTORE` commit that makes the table what it was at an older version, given as
    * `version` or as a `timestamp` (the latest commit at or before it, read as [[snapshotAsOf]]
    * reads it); exactly one of them (INVALID_ARGUMENT otherwise). By delta-spark's rules: the files
    * live then but not now are added back as they were (with `dataChange = true`), the files live
    * now but not then are removed, and the old version's metadata (schema, properties) comes back;
    * the protocol is never downgraded (the commit's is what both versions support). Files are
    * matched by path and deletion vector, by Spark jobs; large commits are written by executors.
    *
    * The latest version itself may be given, as delta-spark allows: nothing changes and nothing is
    * committed (the result's `version` is None). VERSION_NOT_FOUND and TIMESTAMP_OUT_OF_RANGE as
    * for time travel; RESTORE_MISSING_FILES (naming some) when a file to add back is no longer on
    * storage (checked by tasks), unless `force`. A concurrent commit that changes the table's files
    * fails the restore with the transaction's conflict errors. A dry run computes the metrics and
    * commits nothing.
    *
    * {{{
    * val r = log.restore(version = Some(3L))
    * println(s"now v${r.version.get}: ${r.numOfFilesAfterRestore} files")
    * log.restore(timestamp = Some("2024-06-01 00:00:00"), dryRun = true).numRemovedFiles
    * }}}
    */
  def restore(
      version: Option[Long] = None,
      timestamp: Option[String] = None,
      force: Boolean = false,
      dryRun: Boolean = false
  ): RestoreResult =
    restoreWith(txlog.restore.Restore.Options(version, timestamp, force, dryRun))

  /** [[restore]] telling `progress` each step as it starts (for the command line). */
  private[txlog] def restoreWith(
      options: txlog.restore.Restore.Options,
      progress: String => Unit = _ => ()
  ): RestoreResult = {
    import options.{timestamp, version}
    if (version.isDefined == timestamp.isDefined) {
      throw TxlogErrors.invalidArgument(
        "version/timestamp",
        "give exactly one of the version and the timestamp to restore to"
      )
    }
    version.filter(_ < 0).foreach { v =>
      throw TxlogErrors.invalidArgument("version", s"$v is negative")
    }
    txlog.restore.Restore.run(context, options, progress)
  }

  // ---- REPAIR (txlog.repair does the work)

  /** REPAIR (FSCK): fixes what `validate` finds and can be fixed without rewriting a commit. A
    * checkpoint that cannot be read or disagrees with the commits it covers is moved aside (to
    * `_txlog_set_aside/<time>/` under the table root) and written again from the commits; a version
    * checksum file that disagrees with its replay likewise; `_last_checkpoint` is rebuilt when it
    * is malformed, fails its checksum or names a missing or older checkpoint; the live files whose
    * data file is missing are removed by one `FSCK` commit, and those whose deletion vector file is
    * missing only with `removeFilesWithMissingDv` (their surviving rows go too; otherwise they are
    * reported). More than 10% of the live files is REPAIR_TOO_MANY_LOST_FILES unless `force` (a dry
    * run reports it). Version gaps, checkpoints no commits can rebuild and files whose size differs
    * from the log's are reported as `not-repairable`. A dry run (the default) only lists the
    * actions.
    *
    * {{{
    * val plan = log.repair()
    * plan.actions.show(truncate = false); plan.unpersist()
    * val r = log.repair(dryRun = false)
    * println(s"${r.numFilesRemoved} files removed in v${r.commitVersion.getOrElse(-1L)}")
    * }}}
    */
  def repair(
      dryRun: Boolean = true,
      force: Boolean = false,
      removeFilesWithMissingDv: Boolean = false
  ): RepairResult =
    repairWith(txlog.repair.Repair.Options(dryRun, force, removeFilesWithMissingDv))

  /** [[repair]] telling `progress` each step as it starts (for the command line). */
  private[txlog] def repairWith(
      options: txlog.repair.Repair.Options,
      progress: String => Unit = _ => ()
  ): RepairResult =
    txlog.repair.Repair.run(context, options, progress)
}
