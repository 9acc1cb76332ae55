package txlog.vacuum

import scala.util.Try
import scala.util.control.NonFatal

import org.apache.hadoop.fs.Path
import org.apache.spark.sql.DataFrame

import txlog.{Snapshot, VacuumResult}
import txlog.errors.TxlogErrors
import txlog.log.LogListing
import txlog.config.TxlogConf
import txlog.replay.{DriverBudgets, ReadErrors}
import txlog.table.TableContext
import txlog.protocol.WriterGate
import txlog.util.{Jobs, SerializableConf}

/** VACUUM: deletes the files no version within the retention needs, as named Spark jobs.
  *
  *   1. The protocol's writer features must all be known to txlog (the spec's "VACUUM Protocol
  *      Check": a vacuum checks the writer protocol, whatever the table says). 2. The retention:
  *      the one asked for (checked by [[Retention]]) or the table's; `deleteBefore` is now minus
  *      it, or the snapshot's tombstone cutoff. 3. Candidates: the table directory listed by tasks
  *      ([[TreeListing]], full mode), or the files of the remove and cdc actions of the commits
  *      older than the cutoff ([[LiteCandidates]]). 4. [[VacuumDiff]] against [[ValidFiles]];
  *      persisted, counted by one job. 5. Unless a dry run: a `VACUUM START` commit, deletes by
  *      tasks ([[ParallelDelete]]), a `VACUUM END` commit, and `_delta_log/_last_vacuum_info`.
  *
  * Nothing that grows with the table reaches the driver: paths stay in RDDs and DataFrames; the
  * driver holds counts, at most [[SkippedPaths.Examples]] skipped paths, and the log listing.
  *
  * A small table's full vacuum runs on the driver instead, without Spark jobs ([[DriverVacuum]]:
  * steps 3 to 5 with the same rules), when its snapshot's file actions are readable there and the
  * paths it keeps and deletes fit the driver's replay budget; `spark.txlog.vacuum.onDriver` false
  * turns that off.
  */
private[txlog] object Vacuum {

  /** @param allowUnrelatedPaths
    *   go on when the log names paths on a store the root's cannot be related to (they are then
    *   only counted as skipped); by default such a path is VACUUM_UNRELATED_PATHS before anything
    *   is deleted, as it may name a live file below the root under another spelling
    */
  final case class Options(
      retentionHours: Option[Double],
      dryRun: Boolean,
      lite: Boolean,
      force: Boolean,
      allowUnrelatedPaths: Boolean = false
  )

  def run(
      ctx: TableContext,
      listing: LogListing,
      snapshot: Snapshot,
      options: Options,
      progress: String => Unit = _ => ()
  ): VacuumResult = {
    val spark = ctx.spark
    val table = listing.table
    val version = snapshot.version
    WriterGate.check(table.root, version, snapshot.protocol, "vacuum")
    val configured = snapshot.config.deletedFileRetentionMillis
    val specified =
      Retention.specified(table.root, options.retentionHours, configured, options.force)
    val now = ctx.now()
    val deleteBefore = specified.fold(snapshot.tombstoneCutoff)(now - _)
    val root = TableRoot(table.root)
    val md = snapshot.metadata
    val hidden = HiddenNames.of(md.partitionColumns, md.configuration)
    val conf = new SerializableConf(table.hadoopConf)
    val sc = spark.sparkContext
    val skipped = new SkippedPaths()
    sc.register(skipped, "txlog vacuum: skipped paths")
    val unrelated = new SkippedPaths()
    sc.register(unrelated, "txlog vacuum: paths not related to the root")
    val directories = sc.longAccumulator("txlog vacuum: directories listed")
    // The newest commit older than the cutoff: what a lite vacuum reads up to, and what any
    // vacuum records for the next lite one. A full vacuum does not need it, so a failure to find
    // it (an unreadable in-commit timestamp) only leaves nothing recorded.
    val windowEnd =
      if (options.lite) LiteWindow.latestOutside(listing, snapshot, deleteBefore)
      else Try(LiteWindow.latestOutside(listing, snapshot, deleteBefore)).toOption.flatten
    val mode = if (options.lite) "lite" else "full"
    def step[T](name: String)(body: => T): T = {
      progress(name)
      Jobs.named(spark, s"vacuum ${table.root}: $name") {
        ReadErrors.translate(snapshot.segment, snapshot.state.sidecars)(body)
      }
    }

    val onDriver = !options.lite && TxlogConf.VacuumOnDriver.get(spark)
    val found = snapshot.driverFileActions.filter(_ => onDriver).flatMap { actions =>
      val fs = new Path(table.root).getFileSystem(table.hadoopConf)
      val budget = DriverBudgets.maxReplayBytes(spark)
      step("list the table and find files on the driver") {
        DriverVacuum.find(snapshot, actions, root, fs, hidden, deleteBefore, budget).map { f =>
          skipped.merge(f.skipped)
          unrelated.merge(f.unrelated)
          new OnDriver(spark, f, root, fs)
        }
      }
    }
    val plan = found.getOrElse {
      val candidates =
        if (options.lite) {
          val window = LiteWindow.of(listing, snapshot, windowEnd, LastVacuumInfo.read(table))
          step("read the remove actions")(
            LiteCandidates.of(spark, listing, window, root, hidden, skipped)
          )
        } else TreeListing.list(spark, root, conf, hidden, directories)
      val distributed = new Distributed(
        spark,
        VacuumDiff.of(
          spark,
          candidates,
          ValidFiles.of(snapshot, root, deleteBefore, skipped, unrelated),
          deleteBefore,
          withParents = !options.lite
        ),
        root,
        conf,
        if (options.lite) None else Some(directories)
      )
      step(if (options.lite) "find removed files" else "list the table and find files") {
        distributed.tally()
      }
      distributed
    }
    val (numFiles, size) = (plan.numFiles, plan.size)
    val dirs = plan.dirs
    val (unrelatedCount, unrelatedExamples) = unrelated.value
    if (unrelatedCount > 0 && !options.allowUnrelatedPaths) {
      plan.release()
      throw TxlogErrors.vacuumUnrelatedPaths(table.root, unrelatedCount, unrelatedExamples)
    }
    val (skippedCount, examples) = {
      val (n, shown) = skipped.value
      (n + unrelatedCount, (shown ++ unrelatedExamples).distinct.sorted.take(SkippedPaths.Examples))
    }
    def result(
        files: DataFrame,
        release: () => Unit,
        deleted: Long,
        commits: Option[(Long, Long)],
        problems: Seq[String]
    ) = new VacuumResult(
      table.root,
      mode,
      options.dryRun,
      specified.getOrElse(configured),
      deleteBefore,
      numFiles,
      size,
      deleted,
      dirs,
      skippedCount,
      examples,
      commits.map(_._1),
      commits.map(_._2),
      problems,
      files,
      release
    )

    if (options.dryRun) {
      result(plan.found, () => plan.release(), 0L, None, Nil)
    } else {
      val started = step("record VACUUM START") {
        VacuumCommits.start(ctx, !options.force, specified, configured, numFiles, size)
      }
      val deleted =
        try
          step("delete files")(plan.delete())
        catch {
          case NonFatal(e) =>
            try VacuumCommits.end(ctx, None)
            catch { case NonFatal(f) => e.addSuppressed(f) }
            plan.release()
            throw e
        }
      plan.release()
      val ended = step("record VACUUM END")(VacuumCommits.end(ctx, Some(deleted._2 -> dirs)))
      val problems = windowEnd.flatMap(LastVacuumInfo.write(table, _)).toSeq
      result(deleted._1, deleted._3, deleted._2, Some(started -> ended), problems)
    }
  }
}
