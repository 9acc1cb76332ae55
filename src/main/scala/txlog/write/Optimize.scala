package txlog.write

import org.apache.spark.sql.{DataFrame, Row}
import org.apache.spark.sql.functions.{col, lit}
import org.apache.spark.sql.types._

import txlog.{OptimizeResult, Snapshot}
import txlog.errors.TxlogErrors
import txlog.replay.FileKeys
import txlog.scan.FileGroups
import txlog.table.TableContext
import txlog.util.Jobs

/** OPTIMIZE (bin-packing compaction), as delta-spark's: the files of each partition smaller than
  * `minFileSize`, or whose deletion vector deletes more than 5% of their rows, are grouped in size
  * order into bins of at most `targetSize` bytes; every bin of two files or more (or holding a file
  * with such a deletion vector) is rewritten as one file, its rows read with deletion vectors
  * applied, and the commit removes the bins' files and adds the new ones, both with `dataChange`
  * false ([[OptimizeCommit]]: a bin a concurrent commit changed is left out, not the run). Purging
  * deletion vectors (REORG TABLE ... APPLY (PURGE)) is the same job over the files that have one,
  * each rewritten even alone in its bin. The files considered reach the driver (path, size,
  * partition values; a few hundred bytes each): at most [[MaxFiles]] per run, the rest counted in
  * `numFilesRemaining` for the next run.
  */
private[txlog] object Optimize {

  /** delta-spark's defaults: `spark.databricks.delta.optimize.maxFileSize` and `minFileSize`. */
  val DefaultTargetSize: Long = 1L << 30
  val MaxDeletedRowsRatio = 0.05

  /** Files one run considers at most. */
  val MaxFiles = 100000

  private[write] final case class Candidate(
      path: String,
      size: Long,
      partitionValues: Map[String, String],
      deletedRatio: Double
  )

  /** What a run compacts: `bins` of the files of `snap` (a bin's index names it in the job). */
  private[write] final case class Plan(
      snap: Snapshot,
      where: Option[String],
      purge: Boolean,
      bins: Seq[Seq[Candidate]],
      total: Long,
      remaining: Long
  )

  def optimize(
      ctx: TableContext,
      where: Option[String],
      targetSize: Long,
      minFileSize: Long,
      dryRun: Boolean
  ): OptimizeResult = {
    if (targetSize <= 0) throw TxlogErrors.invalidArgument("targetSize", s"$targetSize <= 0")
    if (minFileSize < 0) throw TxlogErrors.invalidArgument("minFileSize", s"$minFileSize < 0")
    run(ctx, plan(ctx, where, targetSize, minFileSize, purge = false), dryRun)
  }

  /** REORG TABLE ... APPLY (PURGE): the files with deletion vectors rewritten without them. */
  def purge(ctx: TableContext, where: Option[String], dryRun: Boolean): OptimizeResult =
    run(ctx, plan(ctx, where, DefaultTargetSize, 0L, purge = true), dryRun)

  private[write] def plan(
      ctx: TableContext,
      where: Option[String],
      targetSize: Long,
      minFileSize: Long,
      purge: Boolean
  ): Plan = {
    val snap = ctx.snapshots.update()
    // what the commit would refuse, refused before a bin is rewritten
    txlog.txn.WriterRules.checkDataCommit(
      ctx.root,
      snap.version,
      snap.protocol,
      snap.metadata,
      if (purge) "purge" else "optimize"
    )
    val all = snap.allFiles
    val files = where.fold(all) { w =>
      all.where(PartitionPredicate.onFiles(ctx.spark, "where", w, snap.metadata))
    }
    val (candidates, total) = candidatesOf(ctx, files, minFileSize, purge)
    val bins = binsOf(candidates, targetSize, purge)
    Plan(snap, where, purge, bins, total, (total - candidates.size).max(0L))
  }

  private[write] def run(ctx: TableContext, plan: Plan, dryRun: Boolean): OptimizeResult = {
    val bins = plan.bins
    if (dryRun || bins.isEmpty) {
      OptimizeResult(
        plan.snap.version,
        false,
        dryRun,
        bins.size,
        bins.map(_.size.toLong).sum,
        bins.flatten.map(_.size).sum,
        0L,
        0L,
        plan.total,
        plan.remaining,
        0L
      ) // fmt: skip
    } else OptimizeCommit.commit(ctx, plan, rewrite(ctx, plan.snap, bins))
  }

  /** The files worth compacting (at most [[MaxFiles]]), and how many there are in all: small ones
    * or those whose deletion vector deletes enough rows, or (purge) every one with a deletion
    * vector deleting rows (or without a row count), as delta-spark's REORG picks them.
    */
  private def candidatesOf(
      ctx: TableContext,
      files: DataFrame,
      minFileSize: Long,
      purge: Boolean
  ): (Seq[Candidate], Long) = {
    val hasDv = files.columns.contains("deletionVector")
    val dvRatio = col("deletionVector.cardinality") / col("stats_parsed.numRecords")
    val picked =
      if (purge) {
        if (!hasDv) lit(false)
        else
          col("deletionVector").isNotNull &&
          (col("deletionVector.cardinality") > 0 || col("numRecords").isNull)
      } else col("size") < minFileSize || col("ratio") > MaxDeletedRowsRatio
    val chosen = files
      .select(
        col("path"),
        col("size"),
        col("partitionValues"),
        (if (hasDv) dvRatio else lit(null).cast("double")).as("ratio"),
        (if (hasDv) col("deletionVector") else lit(null)).as("deletionVector"),
        col("stats_parsed.numRecords").as("numRecords")
      )
      .where(picked)
    Jobs.named(ctx.spark, s"choose the files OPTIMIZE compacts in ${ctx.root}") {
      val total = chosen.count()
      val rows = chosen
        .select("path", "size", "partitionValues", "ratio")
        .orderBy("path")
        .limit(MaxFiles)
        .collect()
      val c = rows.toSeq.map { r =>
        Candidate(
          r.getString(0),
          r.getLong(1),
          Option(r.getMap[String, String](2)).map(_.toMap).getOrElse(Map.empty),
          if (r.isNullAt(3)) 0.0 else r.getDouble(3)
        )
      }
      (c, total)
    }
  }

  /** Per partition, files in size order packed into bins of at most `target` bytes; bins of one
    * file are kept only for a file whose deletion vector is worth applying (any, when purging).
    */
  private def binsOf(files: Seq[Candidate], target: Long, purge: Boolean): Seq[Seq[Candidate]] =
    files.groupBy(_.partitionValues).toSeq.sortBy(_._1.toSeq.sorted.mkString(",")).flatMap {
      case (_, inPartition) =>
        val bins = Vector.newBuilder[Vector[Candidate]]
        var current = Vector.empty[Candidate]
        var size = 0L
        inPartition.sortBy(c => (c.size, c.path)).foreach { c =>
          if (current.nonEmpty && size + c.size > target) {
            bins += current
            current = Vector.empty
            size = 0L
          }
          current :+= c
          size += c.size
        }
        if (current.nonEmpty) bins += current
        bins
          .result()
          .filter(b => purge || b.size > 1 || b.exists(_.deletedRatio > MaxDeletedRowsRatio))
    }

  /** One Spark job: each bin's rows (deletion vectors applied) read and written by one task, into
    * one file, as delta-spark's per-bin jobs do (`coalesce(1)`): no shuffle, and no query planned
    * per bin ([[FileGroups]]). A bin's rows need no sort (one partition's values, one bin).
    */
  private def rewrite(
      ctx: TableContext,
      snap: Snapshot,
      bins: Seq[Seq[Candidate]]
  ): WrittenFiles = {
    val spark = ctx.spark
    val paths = spark.createDataFrame(
      java.util.Arrays.asList(bins.flatten.map(c => Row(c.path)): _*),
      new StructType().add("path", StringType)
    )
    val uris = bins.map(_.map(c => FileKeys.canonicalPath(ctx.root, c.path).toUri.toString))
    // on a table with row tracking the rows keep their ids and commit versions
    val tracking = RowIdsKept.columns(snap)
    val (rows, schema) = FileGroups.rows(snap, paths, uris, rowIds = tracking.nonEmpty)
    val plan = FilePlan.withRowIds(
      FilePlan.of(ctx.root, snap.protocol, snap.metadata, dataChange = false),
      tracking
    )
    DataFiles.writeRows(spark, rows, schema, ctx.table, plan, Nil)
  }

}
