package txlog.errors

import txlog.{ErrorClasses, TxlogException}

/** The errors of vacuum, cleanup, repair and restore, part of [[TxlogErrors]]. */
private[txlog] trait MaintenanceErrors {

  // ---- VACUUM, cleanup and repair (txlog.vacuum, txlog.cleanup, txlog.repair)

  def repairTooManyLostFiles(table: String, lost: Long, live: Long, share: Double): TxlogException =
    new TxlogException(
      ErrorClasses.RepairTooManyLostFiles,
      s"Repair of $table would remove $lost of its $live live files, more than " +
        s"${(share * 100).round}%; nothing was removed.",
      "So many missing files at once usually means an unmounted path, missing credentials or a " +
        "wrong table root, not lost data; removing them would hide every row they hold.",
      "Check that the files are really gone (a dry run lists them), then repair with force."
    )

  def cleanupRetentionTooShort(table: String, asked: String, configured: String): TxlogException =
    new TxlogException(
      ErrorClasses.CleanupRetentionTooShort,
      s"Cannot clean up the log of $table with a retention of '$asked': the table keeps its " +
        s"log for '$configured' (delta.logRetentionDuration).",
      "A shorter retention deletes commits that time travel and lagging readers still need.",
      "Give a retention at least as long as the table's, or force it."
    )

  def vacuumUnrelatedPaths(table: String, count: Long, examples: Seq[String]): TxlogException =
    new TxlogException(
      ErrorClasses.VacuumUnrelatedPaths,
      s"Cannot vacuum $table: the log names $count path(s) on a store that cannot be related " +
        "to the table root, so vacuum cannot prove the files it would delete are not these.",
      s"For example: ${examples.take(3).mkString("; ")}. Another scheme or authority (say " +
        "hdfs://nn vs hdfs://nn:8020) may name a file below the root; nothing was deleted.",
      "Open the table with the spelling its log uses, or, once you know those files lie " +
        "elsewhere, vacuum with allowUnrelatedPaths (--allow-unrelated-paths)."
    )

  def vacuumRetentionTooShort(
      table: String,
      retentionHours: Long,
      configuredHours: Long
  ): TxlogException = new TxlogException(
    ErrorClasses.VacuumRetentionTooShort,
    s"Cannot vacuum $table with a retention of $retentionHours hours: the table keeps removed " +
      s"files for $configuredHours hours (delta.deletedFileRetentionDuration).",
    "A shorter retention can delete files that readers of older versions, or writers still " +
      "committing, need.",
    s"Use a retention of at least $configuredHours hours; or, if no reader or writer uses the " +
      "table's older versions, force it (Scala force = true, Python force=True, CLI --force)."
  )

  def vacuumLiteNotPossible(
      table: String,
      earliestCommit: Long,
      lastVacuumed: Option[Long]
  ): TxlogException = new TxlogException(
    ErrorClasses.VacuumLiteNotPossible,
    s"Cannot run a lite vacuum of $table.",
    s"The log starts at commit $earliestCommit (older commits were cleaned up) and " +
      lastVacuumed.fold("no earlier vacuum recorded where it stopped")(v =>
        s"the last vacuum stopped at commit $v, before it"
      ) + ", so the remove actions of the missing commits cannot be read.",
    "Run a full vacuum (without lite) once; lite vacuums can follow it."
  )

  // ---- RESTORE (txlog.restore)

  def restoreMissingFiles(
      table: String,
      version: Long,
      examples: Seq[String],
      count: Long
  ): TxlogException = new TxlogException(
    ErrorClasses.RestoreMissingFiles,
    s"Cannot restore $table to version $version: $count data file(s) of that version no longer " +
      s"exist: ${examples.mkString(", ")}${if (count > examples.size) ", ..." else ""}.",
    "They were deleted by hand or by VACUUM; the restored table would refer to missing files.",
    "Restore a newer version whose files exist; or force it (Scala force = true, Python " +
      "force=True, CLI --force): the files are added back all the same, as delta-spark does, " +
      "and reading them fails unless spark.sql.files.ignoreMissingFiles is set.",
    null,
    examples.headOption,
    Some(version)
  )
}
