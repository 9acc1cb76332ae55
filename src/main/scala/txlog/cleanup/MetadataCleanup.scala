package txlog.cleanup

import scala.jdk.CollectionConverters._
import scala.util.control.NonFatal

import org.apache.hadoop.fs.{FileSystem, Path}
import org.apache.spark.sql.{DataFrame, Row, SparkSession}

import txlog.protocol.TableConfiguration
import txlog.Protocol
import txlog.errors.TxlogErrors
import txlog.log.LogListing
import txlog.protocol.WriterGate

/** Runs a [[CleanupPlan]]: deletes its candidates oldest first, unless it is a dry run.
  *
  * Fails closed: a retention shorter than the table's `delta.logRetentionDuration` is
  * CLEANUP_RETENTION_TOO_SHORT unless forced; with `delta.enableExpiredLogCleanup=false` no log
  * file is a candidate; the cutoff checkpoint (what readers of every kept version start from) is
  * read whole, sidecars included, before anything older is deleted, and blocks the cleanup when it
  * cannot be; a delete that fails stops the deletes of log files after it (oldest first, so the log
  * keeps no hole), and every row says whether its file was deleted and why not.
  */
private[txlog] object MetadataCleanup {

  /** [[run]] on the table of `ctx`, as of its latest snapshot (the remembered one when nothing was
    * committed since), at the context's clock. Example: `MetadataCleanup.run(ctx, None, true)`.
    */
  def run(
      ctx: txlog.table.TableContext,
      retention: Option[String],
      dryRun: Boolean,
      force: Boolean
  ): DataFrame = {
    val l = ctx.snapshots.listing()
    val latest = ctx.snapshots.relisting(ctx.snapshots.latestOf(l))
    run(ctx.spark, l, latest.config, retention, dryRun, force, ctx.now())
  }

  /** Plans and (unless `dryRun`) performs metadata cleanup. `retention` is a duration such as "30
    * days" (default: the table's delta.logRetentionDuration); `config` is the latest snapshot's.
    * Returns the candidates as [[CleanupCandidate.schema]] rows, or one row of kind "none" saying
    * why nothing can be deleted.
    */
  def run(
      spark: SparkSession,
      listing: LogListing,
      config: TableConfiguration,
      retention: Option[String],
      dryRun: Boolean,
      force: Boolean = false,
      now: Long = txlog.util.Clock.now()
  ): DataFrame = {
    WriterGate.check(listing.table.root, listing.latestVersion, config.protocol, "clean up the log")
    val configured = config.logRetentionMillis
    val retentionMillis = retention.fold(configured)(retentionMillisOf)
    if (retentionMillis < configured && !force) {
      throw TxlogErrors.cleanupRetentionTooShort(
        listing.table.root,
        retention.getOrElse(""),
        config.logRetentionText
      )
    }
    val enabled = config.expiredLogCleanup
    val plan =
      if (enabled) {
        CleanupPlanner.plan(
          spark,
          listing,
          retentionMillis,
          now,
          cp => CutoffCheck.problem(spark, listing, cp)
        )
      } else CleanupPlanner.disabled(listing, retentionMillis, now)
    val fs = listing.table.fs
    // When the log files are blocked, one row says why; leftovers of dead writers go regardless.
    val blocked = plan.blockedBecause.toSeq.map { why =>
      Row(
        null,
        CleanupCandidate.Nothing,
        plan.cutoffCommit.map(Long.box).orNull,
        null,
        null,
        false,
        why
      )
    }
    def reason(kind: String): String = kind match {
      case CleanupCandidate.Sidecar => "not referenced by a kept checkpoint"
      case CleanupCandidate.Leftover =>
        "a temporary file or staging directory of a writer that did not finish, last " +
          "modified over a day before midnight UTC"
      case _ =>
        s"older than checkpoint ${plan.cutOffCheckpoint.get}, which covers the " +
          s"cutoff commit ${plan.cutoffCommit.get}"
    }
    // Oldest first; after a failed delete no further log file is deleted, so that the log keeps
    // no hole (sidecars and leftovers, which no reader lists, still go).
    var failed: Option[String] = None
    val rows = blocked ++ plan.candidates.map { c =>
      val logFile =
        c.kind != CleanupCandidate.Leftover && c.kind != CleanupCandidate.Sidecar
      val (deleted, why) =
        if (dryRun) (false, reason(c.kind))
        else if (logFile && failed.isDefined) {
          (false, s"not deleted: deleting ${failed.get} failed before it")
        } else
          try {
            val ok = delete(fs, new Path(c.path), c.kind == CleanupCandidate.Leftover)
            if (!ok && logFile) failed = Some(c.path)
            (ok, if (ok) reason(c.kind) else "not deleted: the storage refused")
          } catch {
            case NonFatal(e) =>
              if (logFile) failed = Some(c.path)
              (false, s"not deleted: ${e.getClass.getSimpleName}: ${e.getMessage}")
          }
      Row(c.path, c.kind, c.version, c.sizeInBytes, c.modificationTime, deleted, why)
    }
    spark.createDataFrame(rows.asJava, CleanupCandidate.schema)
  }

  /** Deletes one file (a leftover staging directory with what it holds); on local disks also
    * Hadoop's `.name.crc` side file (not a Delta file, but left behind it would be clutter, as
    * txlog reads local files without checksums).
    */
  private def delete(fs: FileSystem, file: Path, recursive: Boolean): Boolean = {
    val deleted = fs.delete(file, recursive)
    if (deleted && fs.getUri.getScheme == "file") {
      val side = txlog.storage.LocalLogStore.checksumFile(file)
      if (fs.exists(side)) fs.delete(side, false)
    }
    deleted
  }

  /** Milliseconds of a retention such as "30 days" or "interval 2 days". */
  def retentionMillisOf(text: String): Long = {
    val millis =
      try TableConfiguration.durationMillis(Option(text).getOrElse(""))
      catch {
        case _: txlog.TxlogException => -1L
      }
    if (millis < 0) {
      throw TxlogErrors.invalidArgument(
        "retention",
        s"'$text' is not a non-negative duration " +
          "in weeks, days, hours, minutes or seconds (for example '30 days')"
      )
    }
    millis
  }
}
