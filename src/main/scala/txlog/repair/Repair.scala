package txlog.repair

import java.time.ZonedDateTime

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.functions.{coalesce, col, concat, count, lit, sum, when}
import org.apache.spark.storage.StorageLevel

import txlog.{RepairResult, Snapshot, Transaction, TxlogException}
import txlog.errors.TxlogErrors
import txlog.log.{LogListing, LogSegment}
import txlog.inspect.{Finding, ListingRules, Rules}
import txlog.replay.SnapshotLoader
import txlog.table.TableContext
import txlog.protocol.WriterGate
import txlog.util.Jobs

/** REPAIR (FSCK) of a table, as named Spark jobs:
  *
  *   1. the log's own files, by [[LogRepairs]]: bad checkpoints set aside and written again from
  *      the commits, disagreeing version checksums written again, `_last_checkpoint` rebuilt;
  *   1. the live files of the latest version whose data file is missing ([[LostFiles]], checked by
  *      tasks) removed by one `FSCK` commit through the transaction API (a concurrent commit
  *      removing the same files is a conflict, and nothing is committed); those whose deletion
  *      vector file is missing only with `removeFilesWithMissingDv` (removing the file drops its
  *      surviving rows too); never more than [[MaxRemovedShare]] of the live files unless `force`
  *      (an unmounted path or a wrong root loses every file at once);
  *   1. what it cannot repair reported: version gaps, checkpoints nothing rebuilds, files whose
  *      size differs from the log's, a latest version that cannot be read.
  *
  * A dry run (the default) lists every action and writes, moves and commits nothing. An existing
  * commit is never rewritten; replaced log files are moved to [[SetAside]]'s directory, not
  * deleted. Duplicate actions, in-commit timestamps out of order and other faults inside commits
  * are `validate`'s to report: repairing them would mean rewriting commits.
  */
private[txlog] object Repair {

  /** @param dryRun
    *   list the actions, change nothing
    * @param force
    *   remove lost files even when they are more than [[MaxRemovedShare]] of the live files
    * @param removeFilesWithMissingDv
    *   also remove the files whose deletion vector file is missing (their surviving rows go too)
    */
  final case class Options(
      dryRun: Boolean = true,
      force: Boolean = false,
      removeFilesWithMissingDv: Boolean = false
  )

  /** The share of the live files one repair removes at most, unless forced. */
  val MaxRemovedShare = 0.1

  /** Runs `body` as a Spark job group named after the table and the step, telling `progress`. */
  final class Steps(spark: SparkSession, root: String, progress: String => Unit) {
    def apply[T](name: String)(body: => T): T = {
      progress(name)
      Jobs.named(spark, s"repair $root: $name")(body)
    }
  }

  def run(
      ctx: TableContext,
      options: Options,
      progress: String => Unit = _ => ()
  ): RepairResult = {
    val spark = ctx.spark
    val dryRun = options.dryRun
    val table = ctx.table
    val step = new Steps(spark, table.root, progress)
    val aside = new SetAside(table, ZonedDateTime.now())
    val repairs = new LogRepairs(ctx, aside, dryRun, step)
    val listing = step("list the log")(LogListing.list(table))
    def latestOf(l: LogListing): Either[TxlogException, Snapshot] =
      try Right(SnapshotLoader.load(spark, l, LogSegment.build(l, None)))
      catch { case e: TxlogException if !LogRepairs.refused(e) => Left(e) }

    val gaps = ListingRules.contiguity(listing).filter(_.severity == Finding.Error).map { f =>
      RepairAction(
        RepairAction.NotRepairable,
        f.version,
        f.file,
        f.rule,
        s"${f.detail} Commits are never rewritten.",
        done = false
      )
    }
    val clean = repairs.planCheckpoints(listing)
    // Refuse before writing anything when the table has writer features txlog does not support.
    val predicted = step("replay the latest version")(latestOf(clean))
    predicted.foreach(s => WriterGate.check(table.root, s.version, s.protocol, "repair"))
    repairs.checkpoints()
    val afterCheckpoints = if (dryRun) clean else step("list the log again")(LogListing.list(table))
    repairs.checksums(afterCheckpoints)
    if (dryRun) repairs.lastCheckpoint(listing, listing.checkpoints)
    else {
      val now = LogListing.list(table)
      repairs.lastCheckpoint(now, now.checkpoints)
    }

    val (latest, txn): (Either[TxlogException, Snapshot], Option[Transaction]) =
      if (dryRun) (predicted, None)
      else
        try {
          val t = Transaction.start(ctx.detached())
          (Right(t.readSnapshot.get), Some(t))
        } catch { case e: TxlogException if !LogRepairs.refused(e) => (Left(e), None) }
    val unreadable = latest.left.toSeq.map { e =>
      RepairAction(
        RepairAction.NotRepairable,
        Some(listing.latestVersion),
        e.file,
        Rules.SnapshotUnreadable,
        s"${e.getMessage} Its files were not checked.",
        done = false
      )
    }
    val driverRows = gaps ++ repairs.actions ++ unreadable
    val lost = latest.toOption.map { s =>
      step("check data and deletion vector files")(
        LostFiles.find(spark, s).persist(StorageLevel.MEMORY_AND_DISK)
      )
    }
    val removableRules =
      if (options.removeFilesWithMissingDv) LostFiles.Removable
      else LostFiles.Removable - Rules.MissingDvFile
    val removable = col(LostFiles.Rule).isin(removableRules.toSeq: _*)
    val (numRemoved, bytesRemoved, numStuckFiles) = lost.fold((0L, 0L, 0L)) { df =>
      val r = step("count lost files")(
        df.agg(
          count(when(removable, 1)),
          coalesce(sum(when(removable, col("size"))), lit(0L)),
          count(when(!removable, 1))
        ).head()
      )
      (r.getLong(0), r.getLong(1), r.getLong(2))
    }
    val liveFiles = latest.toOption.fold(0L)(_.numFiles)
    val tooMany = numRemoved > MaxRemovedShare * liveFiles && !options.force
    if (tooMany && !dryRun) {
      lost.foreach(_.unpersist())
      throw TxlogErrors.repairTooManyLostFiles(table.root, numRemoved, liveFiles, MaxRemovedShare)
    }
    val capRow =
      if (!tooMany) Nil
      else
        Seq(
          RepairAction(
            RepairAction.NotRepairable,
            latest.toOption.map(_.version),
            None,
            Rules.MissingDataFile,
            s"$numRemoved of the $liveFiles live files would be removed, more than " +
              s"${(MaxRemovedShare * 100).round}%: an unmounted path or a wrong table root looks " +
              "like this. Nothing is removed unless forced.",
            done = false
          )
        )
    val committed = for {
      t <- txn if numRemoved > 0
      df <- lost
    } yield {
      t.removeFiles(df.where(removable).drop(LostFiles.Rule, LostFiles.Detail))
      step("commit")(
        t.commit(
          "FSCK",
          Map.empty,
          Map("numRemovedFiles" -> numRemoved.toString, "removedFilesSize" -> bytesRemoved.toString)
        ).version
      )
    }
    val actions = (RepairAction.toDF(spark, (driverRows ++ capRow).toSeq) +: lost.toSeq.map { df =>
      val v = latest.toOption.get.version
      df.select(
        when(removable, lit(RepairAction.RemoveFile))
          .otherwise(lit(RepairAction.NotRepairable))
          .as("action"),
        lit(v).as("version"),
        col("path").as("file"),
        col(LostFiles.Rule).as("rule"),
        when(
          col(LostFiles.Rule) === Rules.MissingDvFile && !removable,
          concat(
            col(LostFiles.Detail),
            lit(
              " Its data file is kept (removing it drops its surviving rows too): repair with " +
                "removeFilesWithMissingDv to remove it."
            )
          )
        ).otherwise(col(LostFiles.Detail)).as("detail"),
        (removable && lit(committed.isDefined)).as("done")
      )
    }).reduce(_ unionByName _)
    import RepairAction._
    def counted(action: String) = driverRows.count(_.action == action).toLong
    new RepairResult(
      table.root,
      dryRun,
      counted(WriteCheckpoint),
      counted(WriteChecksum),
      counted(WriteLastCheckpoint) + counted(DeleteLastCheckpoint) > 0,
      numRemoved,
      bytesRemoved,
      counted(NotRepairable) + capRow.size + numStuckFiles,
      committed,
      if (!dryRun && table.fs.exists(aside.dir)) Some(aside.dir.toString) else None,
      actions,
      () => lost.foreach(_.unpersist())
    )
  }
}
