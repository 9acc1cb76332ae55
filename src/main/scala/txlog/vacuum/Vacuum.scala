package txlog.vacuum

import scala.util.Try
import scala.util.control.NonFatal

import org.apache.spark.sql.{DataFrame, SparkSession}
import org.apache.spark.sql.functions.{coalesce, col, count, lit, sum}
import org.apache.spark.storage.StorageLevel

import txlog.{Snapshot, VacuumResult}
import txlog.errors.TxlogErrors
import txlog.log.LogListing
import txlog.replay.ReadErrors
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

    val candidates =
      if (options.lite) {
        val window = LiteWindow.of(listing, snapshot, windowEnd, LastVacuumInfo.read(table))
        step("read the remove actions")(
          LiteCandidates.of(spark, listing, window, root, hidden, skipped)
        )
      } else TreeListing.list(spark, root, conf, hidden, directories)
    // Persisted in the shape of a dry run's result, so that the result is what was persisted.
    val diff = VacuumDiff
      .of(
        spark,
        candidates,
        ValidFiles.of(snapshot, root, deleteBefore, skipped, unrelated),
        deleteBefore,
        withParents = !options.lite
      )
      .withColumn("deleted", lit(false))
      .persist(StorageLevel.MEMORY_AND_DISK)
    val (numFiles, size) =
      try
        step(if (options.lite) "find removed files" else "list the table and find files") {
          val r = diff.agg(count(lit(1)), coalesce(sum(col("size")), lit(0L))).head()
          (r.getLong(0), r.getLong(1))
        }
      catch { case NonFatal(e) => diff.unpersist(); throw e }
    val dirs = if (options.lite) 1L else directories.sum + 1
    val (unrelatedCount, unrelatedExamples) = unrelated.value
    if (unrelatedCount > 0 && !options.allowUnrelatedPaths) {
      diff.unpersist()
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
      result(diff, () => diff.unpersist(), 0L, None, Nil)
    } else {
      val started = step("record VACUUM START") {
        VacuumCommits.start(ctx, !options.force, specified, configured, numFiles, size)
      }
      val deleted =
        try
          step("delete files") {
            ParallelDelete.run(spark, diff, root, conf)
          }
        catch {
          case NonFatal(e) =>
            try VacuumCommits.end(ctx, None)
            catch { case NonFatal(f) => e.addSuppressed(f) }
            diff.unpersist()
            throw e
        }
      diff.unpersist()
      val ended = step("record VACUUM END")(VacuumCommits.end(ctx, Some(deleted._2 -> dirs)))
      val problems = windowEnd.flatMap(LastVacuumInfo.write(table, _)).toSeq
      result(deleted._1, deleted._3, deleted._2, Some(started -> ended), problems)
    }
  }
}
