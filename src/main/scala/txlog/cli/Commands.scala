package txlog.cli

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.functions.col

import txlog.{DeltaLog, RepairResult, RestoreResult, TableDescription, VacuumResult}
import txlog.errors.TxlogErrors
import txlog.inspect.Validator
import txlog.util.OptionValues

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
    case "describe" => step("describe"); Outcome(log.describe().summaryFields)
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
        force = OptionValues.flag(args.options, "force", default = false)
      )
      // A delete that failed is worth retrying (the rows say which, and why).
      val failed = !dryRun(args) && !df.where(!col("deleted") && col("path").isNotNull).isEmpty
      Outcome(
        Nil,
        if (failed) ExitCodes.Retryable else ExitCodes.Done,
        rows = Some("candidates" -> df)
      )
    case "vacuum" => vacuum(log, args, step)
    case "optimize" =>
      step(if (dryRun(args)) "plan OPTIMIZE (dry run)" else "optimize")
      val default = txlog.write.Optimize.DefaultTargetSize
      val r = log.optimize(
        args.options.get("where"),
        long(args, "target-size").getOrElse(default),
        long(args, "min-file-size").getOrElse(default),
        dryRun(args)
      )
      Outcome(r.summaryFields)
    case "purge" =>
      step(if (dryRun(args)) "plan the purge of deletion vectors (dry run)" else "purge")
      Outcome(log.purgeDeletionVectors(args.options.get("where"), dryRun(args)).summaryFields)
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
          force = OptionValues.flag(args.options, "force", default = false),
          dryRun = dryRun(args)
        ),
        step
      )
      Outcome(r.summaryFields)
    case "repair" =>
      val r = log.repairWith(
        txlog.repair.Repair.Options(
          dryRun(args),
          force = OptionValues.flag(args.options, "force", default = false),
          removeFilesWithMissingDv =
            OptionValues.flag(args.options, "remove-files-with-missing-dv", default = false)
        ),
        step
      )
      val left = if (r.dryRun) !r.isClean else r.numNotRepairable > 0
      Outcome(
        r.summaryFields,
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

  /** Whether the command only says what it would do: the default of the commands that delete
    * ([[Help.Command.dryRunByDefault]]: cleanup, vacuum, repair); the others act unless
    * `--dry-run`.
    */
  def dryRun(args: Args): Boolean =
    args.dryRun.getOrElse(Help.Commands.exists(c => c.name == args.command && c.dryRunByDefault))

  /** vacuum: the result's numbers, then `files` (relative paths), streamed. */
  private def vacuum(log: DeltaLog, args: Args, step: String => Unit): Outcome = {
    val hours = OptionValues.nonNegativeNumber(args.options, "retain-hours")
    val r = log.vacuumWith(
      txlog.vacuum.Vacuum.Options(
        hours,
        dryRun(args),
        lite = OptionValues.flag(args.options, "lite", default = false),
        force = OptionValues.flag(args.options, "force", default = false),
        allowUnrelatedPaths =
          OptionValues.flag(args.options, "allow-unrelated-paths", default = false)
      ),
      step
    )
    // A bounded sample of what could not be deleted; the exit code says it is worth retrying.
    val failed: Seq[String] =
      if (r.numFailedDeletes == 0) Nil
      else
        r.files.where(!col("deleted")).select("path").limit(10).collect().map(_.getString(0)).toSeq
    Outcome(
      r.summaryFields :+ ("failed_delete_examples" -> failed.toSeq.asJava),
      if (r.numFailedDeletes > 0) ExitCodes.Retryable else ExitCodes.Done,
      rows = Some("files" -> r.files.select("path")),
      firstColumnOnly = true,
      release = () => r.unpersist()
    )
  }

  private def long(args: Args, name: String): Option[Long] =
    OptionValues.wholeNumber(args.options, name)

  private def checkpoint(log: DeltaLog, args: Args, step: String => Unit): Outcome = {
    val version = long(args, "version")
    val kind = args.options.get("kind")
    if (dryRun(args)) {
      step("plan checkpoint (dry run)")
      // The version replayed and the writer's gate passed, as a real run needs them.
      val snap = version.fold(log.snapshot())(log.snapshot)
      txlog.protocol.WriterGate.check(log.table.root, snap.version, snap.protocol, "checkpoint")
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
      Outcome(r.summaryFields :+ ("written" -> !r.alreadyExisted))
    }
  }

  private def checksum(
      spark: SparkSession,
      log: DeltaLog,
      args: Args,
      step: String => Unit
  ): Outcome = {
    val version = long(args, "version")
    if (OptionValues.flag(args.options, "validate", default = false)) {
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
