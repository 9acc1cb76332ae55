package txlog.cli

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.functions.col

import txlog.{DeltaLog, RepairResult, RestoreResult, TableDescription, TxlogErrors, VacuumResult}
import txlog.maintenance.Validator

/** The commands, each a thin layer over the public API of one table's [[DeltaLog]]. */
private[txlog] object Commands {

  /** Runs `command` on one table; `step` reports progress. */
  def run(
      spark: SparkSession,
      command: String,
      log: DeltaLog,
      args: Args,
      step: String => Unit
  ): Outcome = command match {
    case "describe" => step("describe"); Outcome(describeFields(log.describe()))
    case "history" =>
      step("read history")
      val limit = long(args, "limit").getOrElse(20L).toInt
      Outcome(Nil, rows = Some("history" -> log.history().limit(limit)))
    case "checkpoint"  => checkpoint(log, args, step)
    case "checksum"    => checksum(spark, log, args, step)
    case "compact-log" => compact(log, args, step)
    case "cleanup" =>
      step(if (dryRun(args)) "plan cleanup (dry run)" else "clean up")
      val df = log.cleanup(
        args.options.get("retention"),
        dryRun(args),
        force = args.options.get("force").contains("true")
      )
      // A delete that failed is worth retrying (the rows say which, and why).
      val failed = !dryRun(args) && !df.where(!col("deleted") && col("path").isNotNull).isEmpty
      Outcome(
        Nil,
        if (failed) ExitCodes.Retryable else ExitCodes.Done,
        rows = Some("candidates" -> df)
      )
    case "vacuum" => vacuum(log, args, step)
    case "restore" =>
      val r = log.restoreWith(
        txlog.restore.Restore.Options(
          long(args, "version"),
          // UTC unless the text names its zone: a cron job's answer must not depend on the
          // machine's time zone.
          args.options
            .get("timestamp")
            .map(t =>
              txlog.timetravel.TimestampText.parse(t, java.time.ZoneOffset.UTC).toInstant.toString
            ),
          force = args.options.get("force").contains("true"),
          dryRun = dryRun(args)
        ),
        step
      )
      Outcome(restoreFields(r))
    case "repair" =>
      val r = log.repairWith(
        txlog.repair.Repair.Options(
          dryRun(args),
          force = args.options.get("force").contains("true"),
          removeFilesWithMissingDv =
            args.options.get("remove-files-with-missing-dv").contains("true")
        ),
        step
      )
      val left = if (r.dryRun) !r.isClean else r.numNotRepairable > 0
      Outcome(
        repairFields(r),
        if (left) ExitCodes.Findings else ExitCodes.Done,
        Some("actions" -> r.actions),
        release = () => r.unpersist()
      )
    case "validate" =>
      val findings = Validator.run(spark, log.table, step)
      val errors = findings.where(col("severity") === "error").count()
      Outcome(
        Seq("errors" -> errors),
        if (errors > 0) ExitCodes.Findings else ExitCodes.Done,
        Some("findings" -> findings)
      )
    case other => throw TxlogErrors.invalidArgument("command", s"unknown command '$other'")
  }

  /** Whether the command only says what it would do: the default for cleanup, vacuum and repair,
    * which delete or remove (restore deletes no data, so it runs unless --dry-run).
    */
  def dryRun(args: Args): Boolean =
    args.dryRun.getOrElse(Set("cleanup", "vacuum", "repair")(args.command))

  /** The numbers of a repair, as the command line and the Python package report them. An exit code
    * of 1 means: a dry run found something to do, or a repair left something undone.
    */
  def repairFields(r: RepairResult): Seq[(String, Any)] = Seq(
    "num_checkpoints_rewritten" -> r.numCheckpointsRewritten,
    "num_checksums_rewritten" -> r.numChecksumsRewritten,
    "last_checkpoint_rewritten" -> r.lastCheckpointRewritten,
    "num_files_removed" -> r.numFilesRemoved,
    "size_of_files_removed" -> r.sizeOfFilesRemoved,
    "num_not_repairable" -> r.numNotRepairable,
    "commit_version" -> r.commitVersion.map(Long.box).orNull,
    "set_aside_dir" -> r.setAsideDir.orNull
  )

  /** vacuum: the result's numbers, then `files` (relative paths), streamed. */
  private def vacuum(log: DeltaLog, args: Args, step: String => Unit): Outcome = {
    val hours = args.options.get("retain-hours").map { v =>
      scala.util
        .Try(v.trim.toDouble)
        .toOption
        .filter(h => h >= 0 && !h.isInfinite)
        .getOrElse(
          throw TxlogErrors.invalidArgument("retain-hours", s"'$v' is not a non-negative number")
        )
    }
    val r = log.vacuumWith(
      txlog.vacuum.Vacuum.Options(
        hours,
        dryRun(args),
        lite = args.options.get("lite").contains("true"),
        force = args.options.get("force").contains("true"),
        allowUnrelatedPaths = args.options.get("allow-unrelated-paths").contains("true")
      ),
      step
    )
    // A bounded sample of what could not be deleted; the exit code says it is worth retrying.
    val failed: Seq[String] =
      if (r.numFailedDeletes == 0) Nil
      else
        r.files.where(!col("deleted")).select("path").limit(10).collect().map(_.getString(0)).toSeq
    Outcome(
      vacuumFields(r) :+ ("failed_delete_examples" -> failed.toSeq.asJava),
      if (r.numFailedDeletes > 0) ExitCodes.Retryable else ExitCodes.Done,
      rows = Some("files" -> r.files.select("path")),
      firstColumnOnly = true,
      release = () => r.unpersist()
    )
  }

  /** The numbers of a vacuum, as the command line and the Python package report them. */
  def vacuumFields(r: VacuumResult): Seq[(String, Any)] = Seq(
    "mode" -> r.mode,
    "retention_hours" -> r.retentionMillis / 3600000.0,
    "delete_before" -> r.deleteBeforeTimestamp,
    "num_files" -> r.numFiles,
    "size_in_bytes" -> r.sizeInBytes,
    "num_deleted_files" -> r.numDeletedFiles,
    "num_failed_deletes" -> r.numFailedDeletes,
    "num_vacuumed_directories" -> r.numVacuumedDirectories,
    "num_skipped_paths" -> r.numSkippedPaths,
    "skipped_path_examples" -> r.skippedPathExamples.asJava,
    "start_commit" -> r.startCommit.map(Long.box).orNull,
    "end_commit" -> r.endCommit.map(Long.box).orNull,
    "problems" -> r.problems.asJava
  )

  /** The result of a restore, as the command line and the Python package report it. */
  def restoreFields(r: RestoreResult): Seq[(String, Any)] = Seq(
    "restored_version" -> r.restoredVersion,
    "read_version" -> r.readVersion,
    "version" -> r.version.map(Long.box).orNull,
    "table_size_after_restore" -> r.tableSizeAfterRestore,
    "num_of_files_after_restore" -> r.numOfFilesAfterRestore,
    "num_removed_files" -> r.numRemovedFiles,
    "num_restored_files" -> r.numRestoredFiles,
    "removed_files_size" -> r.removedFilesSize,
    "restored_files_size" -> r.restoredFilesSize
  )

  private def long(args: Args, name: String): Option[Long] = args.options.get(name).map { v =>
    scala.util
      .Try(v.toLong)
      .toOption
      .filter(_ >= 0)
      .getOrElse(throw TxlogErrors.invalidArgument(name, s"'$v' is not a non-negative integer"))
  }

  def describeFields(d: TableDescription): Seq[(String, Any)] = Seq(
    "format" -> d.format,
    "id" -> d.id,
    "name" -> d.name.orNull,
    "description" -> d.description.orNull,
    "location" -> d.location,
    "created_at" -> d.createdAt.map(_.getTime).map(Long.box).orNull,
    "last_modified" -> d.lastModified.getTime,
    "partition_columns" -> d.partitionColumns.asJava,
    "num_files" -> d.numFiles,
    "size_in_bytes" -> d.sizeInBytes,
    "properties" -> d.properties.asJava,
    "min_reader_version" -> d.minReaderVersion,
    "min_writer_version" -> d.minWriterVersion,
    "table_features" -> d.tableFeatures.asJava,
    "version" -> d.version,
    "health" -> {
      val h = d.health
      val m = new java.util.LinkedHashMap[String, Any]()
      m.put("checkpoint_version", h.checkpointVersion.map(Long.box).orNull)
      m.put("checkpoint_kind", h.checkpointKind.orNull)
      m.put("checkpoint_age_millis", h.checkpointAgeMillis.map(Long.box).orNull)
      m.put("commits_since_checkpoint", h.commitsSinceCheckpoint)
      m.put("log_files", h.logFiles)
      m.put("log_bytes", h.logBytes)
      m.put("last_checkpoint_version", h.lastCheckpointVersion.map(Long.box).orNull)
      m.put("latest_checksum_version", h.latestChecksumVersion.map(Long.box).orNull)
      m.put("checksum_current", h.checksumCurrent)
      m
    }
  )

  private def checkpoint(log: DeltaLog, args: Args, step: String => Unit): Outcome = {
    val version = long(args, "version")
    val kind = args.options.get("kind")
    if (dryRun(args)) {
      step("plan checkpoint (dry run)")
      // The version replayed and the writer's gate passed, as a real run needs them.
      val snap = version.fold(log.snapshot())(log.snapshot)
      txlog.table.WriterGate.check(log.table.root, snap.version, snap.protocol, "checkpoint")
      Outcome(
        Seq(
          "version" -> snap.version,
          "kind" -> kind.getOrElse("(table default)"),
          "written" -> false
        )
      )
    } else {
      step("write checkpoint")
      val r = log.checkpoint(version, kind, args.options -- Seq("version", "kind"))
      Outcome(
        Seq(
          "version" -> r.version,
          "kind" -> r.kind,
          "files" -> r.files.asJava,
          "num_actions" -> r.numActions,
          "already_existed" -> r.alreadyExisted,
          "written" -> !r.alreadyExisted
        )
      )
    }
  }

  private def checksum(
      spark: SparkSession,
      log: DeltaLog,
      args: Args,
      step: String => Unit
  ): Outcome = {
    val version = long(args, "version")
    if (args.options.get("validate").contains("true")) {
      step("validate checksum")
      val r = version.fold(log.validateChecksum())(log.validateChecksum)
      Outcome(
        Seq("version" -> r.version, "valid" -> r.isValid),
        if (r.isValid) ExitCodes.Done else ExitCodes.Findings,
        Some("mismatches" -> r.toDF(spark))
      )
    } else if (dryRun(args)) {
      step("plan checksum (dry run)")
      val snap = version.fold(log.snapshot())(log.snapshot)
      Outcome(Seq("version" -> snap.version, "written" -> false))
    } else {
      step("write checksum")
      val path = version.fold(log.writeChecksum())(log.writeChecksum)
      Outcome(Seq("file" -> path, "written" -> true))
    }
  }

  private def compact(log: DeltaLog, args: Args, step: String => Unit): Outcome = {
    val (start, end) = (long(args, "start"), long(args, "end")) match {
      case (Some(s), Some(e)) => (s, e)
      case _ =>
        throw TxlogErrors.invalidArgument("start/end", "compact-log needs --start and --end")
    }
    if (dryRun(args)) {
      step("plan log compaction (dry run)")
      // Checked as a real run checks it (table, protocol, every commit of the range).
      val l = log.listing()
      val (target, _) = txlog.compaction.LogCompactor.plan(l, log.latestOf(l).protocol, start, end)
      Outcome(Seq("start" -> start, "end" -> end, "file" -> target.toString, "written" -> false))
    } else {
      step("write log compaction")
      Outcome(
        Seq("start" -> start, "end" -> end, "file" -> log.compact(start, end), "written" -> true)
      )
    }
  }
}
