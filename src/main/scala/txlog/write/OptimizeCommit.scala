package txlog.write

import org.apache.spark.sql.Row
import org.apache.spark.sql.functions.broadcast
import org.apache.spark.sql.types.{StringType, StructType}

import txlog.{ErrorClasses, OptimizeResult, Snapshot, Transaction, TxlogException}
import txlog.replay.FileKeys
import txlog.table.TableContext
import txlog.util.Jobs

/** OPTIMIZE's commit: the rewritten bins' files removed and their new files added in one commit
  * with `dataChange` false. The transaction reads only the bins' files, so concurrent appends, and
  * deletes of other files, commit beside it. When a concurrent commit removed (or gave another
  * deletion vector to) a file of a bin, the commit fails with CONCURRENT_DELETE_READ or
  * CONCURRENT_DELETE_DELETE; then the bins whose files are no longer all live in the table's latest
  * snapshot are left out (their new files are named by no version: VACUUM removes them) and the
  * others are committed on top of it. Each round leaves out at least one bin, so it ends.
  */
private[write] object OptimizeCommit {

  private val Conflicts =
    Set(ErrorClasses.ConcurrentDeleteRead, ErrorClasses.ConcurrentDeleteDelete)

  def commit(ctx: TableContext, plan: Optimize.Plan, written: WrittenFiles): OptimizeResult = {
    var kept = plan.bins.indices.toSet
    var snap = plan.snap
    var outcome: Option[OptimizeResult] = None
    while (outcome.isEmpty) {
      try outcome = Some(attempt(ctx, plan, written, snap, kept))
      catch {
        case e: TxlogException if Conflicts(e.errorClass) =>
          val latest = ctx.snapshots.update()
          val gone = goneFiles(ctx, plan, kept, latest)
          val lost = kept.filter(b => plan.bins(b).exists(c => gone(c.path)))
          if (lost.isEmpty) throw e
          kept --= lost
          snap = latest
          if (kept.isEmpty) outcome = Some(nothingCommitted(plan, latest.version))
      }
    }
    outcome.get
  }

  private def attempt(
      ctx: TableContext,
      plan: Optimize.Plan,
      written: WrittenFiles,
      snap: Snapshot,
      kept: Set[Int]
  ): OptimizeResult = {
    val bins = kept.toSeq.sorted.map(plan.bins)
    val files = filesOf(ctx, snap, bins)
    val added = written.files.filter(f => kept(f.bin))
    val txn = new Transaction(ctx, Some(snap))
    txn.readFilesOnly(files)
    txn
      .addFiles(DataFiles.addsOf(ctx.spark, added))
      .removeFiles(FilePlan.removes(files, dataChange = false))
    val removedFiles = bins.map(_.size.toLong).sum
    val removedBytes = bins.flatten.map(_.size).sum
    val addedBytes = added.map(_.add.getLong(2)).sum
    val metrics = Map(
      "numRemovedFiles" -> removedFiles.toString,
      "numAddedFiles" -> added.size.toString,
      "numRemovedBytes" -> removedBytes.toString,
      "numAddedBytes" -> addedBytes.toString,
      "numBins" -> bins.size.toString,
      "totalConsideredFiles" -> plan.total.toString
    )
    val predicate = "predicate" -> txlog.util.JsonText.array(plan.where.toSeq)
    val r =
      if (plan.purge) txn.commit("REORG", Map(predicate, "applyPurge" -> "true"), metrics)
      else txn.commit("OPTIMIZE", Map(predicate, "zOrderBy" -> "[]", "auto" -> "false"), metrics)
    OptimizeResult(
      r.version,
      r.committed,
      dryRun = false,
      bins.size,
      removedFiles,
      removedBytes,
      added.size.toLong,
      addedBytes,
      plan.total,
      plan.remaining,
      (plan.bins.size - bins.size).toLong
    ) // fmt: skip
  }

  /** The files of `snap` the bins name (rows of its `allFiles`). */
  private def filesOf(ctx: TableContext, snap: Snapshot, bins: Seq[Seq[Optimize.Candidate]]) = {
    val paths = ctx.spark.createDataFrame(
      java.util.Arrays.asList(bins.flatten.map(c => Row(c.path)): _*),
      new StructType().add("path", StringType)
    )
    snap.allFiles.join(broadcast(paths), Seq("path"), "left_semi")
  }

  /** The paths of the kept bins' files that are not live, with the same deletion vector, in
    * `latest`.
    */
  private def goneFiles(
      ctx: TableContext,
      plan: Optimize.Plan,
      kept: Set[Int],
      latest: Snapshot
  ): Set[String] = {
    val ours = FileKeys.keyedFiles(filesOf(ctx, plan.snap, kept.toSeq.map(plan.bins)), ctx.root)
    val live = FileKeys.keyedFiles(latest.allFiles, ctx.root).drop("path")
    Jobs.named(ctx.spark, s"find the files OPTIMIZE compacted that a concurrent commit removed") {
      ours
        .join(live, Seq("_k_path", "_k_dv"), "left_anti")
        .select("path")
        .collect()
        .map(_.getString(0))
        .toSet
    }
  }

  private def nothingCommitted(plan: Optimize.Plan, version: Long): OptimizeResult =
    OptimizeResult(
      version,
      false,
      false,
      0L,
      0L,
      0L,
      0L,
      0L,
      plan.total,
      plan.remaining,
      plan.bins.size.toLong
    ) // fmt: skip
}
