package txlog.write

import org.apache.spark.sql.{DataFrame, Row}
import org.apache.spark.sql.functions.{broadcast, col, lit}
import org.apache.spark.sql.types._

import txlog.{OptimizeResult, Snapshot, Transaction, TxlogErrors}
import txlog.protocol.WriterGate
import txlog.replay.FileKeys
import txlog.scan.TableScan
import txlog.table.TableContext
import txlog.util.Jobs

/** OPTIMIZE (bin-packing compaction), as delta-spark's: the files of each partition smaller than
  * `minFileSize`, or whose deletion vector deletes more than 5% of their rows, are grouped in size
  * order into bins of at most `targetSize` bytes; every bin of two files or more (or holding a file
  * with such a deletion vector) is rewritten as one file, its rows read with deletion vectors
  * applied, and the commit removes the bins' files and adds the new ones, both with `dataChange`
  * false. The files considered reach the driver (path, size, partition values; a few hundred bytes
  * each): at most [[MaxFiles]] per run, the rest counted in `numFilesRemaining` for the next run.
  */
private[txlog] object Optimize {

  /** delta-spark's defaults: `spark.databricks.delta.optimize.maxFileSize` and `minFileSize`. */
  val DefaultTargetSize: Long = 1L << 30
  val MaxDeletedRowsRatio = 0.05

  /** Files one run considers at most. */
  val MaxFiles = 100000

  private final case class Candidate(
      path: String,
      size: Long,
      partitionValues: Map[String, String],
      deletedRatio: Double
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
    val txn = Transaction.start(ctx)
    val snap = txn.readSnapshot.get
    WriterGate.check(ctx.root, snap.version, snap.protocol, "optimize")
    if (txlog.txn.RowTracking.enabled(snap.protocol, snap.metadata)) {
      throw TxlogErrors.unsupportedWriteFeature(ctx.root, "row tracking (for OPTIMIZE)")
    }
    val files = where.fold(txn.readFiles()) { w =>
      txn.readFiles(PartitionPredicate.onFiles(ctx.spark, "where", w, snap.metadata))
    }
    val (candidates, total) = candidatesOf(ctx, snap, files, minFileSize)
    val bins = binsOf(candidates, targetSize)
    val removedBytes = bins.flatten.map(_.size).sum
    val remaining = (total - candidates.size).max(0L)
    if (dryRun || bins.isEmpty) {
      OptimizeResult(
        snap.version,
        false,
        dryRun,
        bins.size,
        bins.map(_.size.toLong).sum,
        removedBytes,
        0L,
        0L,
        total,
        remaining
      ) // fmt: skip
    } else {
      val written = rewrite(ctx, snap, bins)
      val removes = ctx.spark.createDataFrame(
        java.util.Arrays.asList(bins.flatten.map { c =>
          Row(c.path, c.partitionValues, c.size, true, false)
        }: _*),
        new StructType()
          .add("path", StringType)
          .add("partitionValues", MapType(StringType, StringType))
          .add("size", LongType)
          .add("extendedFileMetadata", BooleanType)
          .add("dataChange", BooleanType)
      )
      txn.addFiles(written.adds).removeFiles(removes)
      val removedFiles = bins.map(_.size.toLong).sum
      val r = txn.commit(
        "OPTIMIZE",
        Map(
          "predicate" -> FilePlan.jsonArray(where.toSeq),
          "zOrderBy" -> "[]",
          "auto" -> "false"
        ),
        Map(
          "numRemovedFiles" -> removedFiles.toString,
          "numAddedFiles" -> written.numFiles.toString,
          "numRemovedBytes" -> removedBytes.toString,
          "numAddedBytes" -> written.bytes.toString,
          "numBins" -> bins.size.toString,
          "totalConsideredFiles" -> total.toString
        )
      )
      OptimizeResult(
        r.version,
        r.committed,
        dryRun = false,
        bins.size,
        removedFiles,
        removedBytes,
        written.numFiles,
        written.bytes,
        total,
        remaining
      ) // fmt: skip
    }
  }

  /** The files worth compacting (at most [[MaxFiles]]), and how many there are in all. */
  private def candidatesOf(
      ctx: TableContext,
      snap: Snapshot,
      files: DataFrame,
      minFileSize: Long
  ): (Seq[Candidate], Long) = {
    val dvRatio = col("deletionVector.cardinality") / col("stats_parsed.numRecords")
    val chosen = files
      .select(
        col("path"),
        col("size"),
        col("partitionValues"),
        (if (files.columns.contains("deletionVector")) dvRatio else lit(null).cast("double"))
          .as("ratio")
      )
      .where(col("size") < minFileSize || col("ratio") > MaxDeletedRowsRatio)
    Jobs.named(ctx.spark, s"choose the files OPTIMIZE compacts in ${ctx.root}") {
      val total = chosen.count()
      val rows = chosen.orderBy("path").limit(MaxFiles).collect()
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
    * file are kept only for a file whose deletion vector is worth applying.
    */
  private def binsOf(files: Seq[Candidate], target: Long): Seq[Seq[Candidate]] =
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
        bins.result().filter(b => b.size > 1 || b.exists(_.deletedRatio > MaxDeletedRowsRatio))
    }

  /** One Spark job: the bins' rows (deletion vectors applied) written one file per bin. */
  private def rewrite(
      ctx: TableContext,
      snap: Snapshot,
      bins: Seq[Seq[Candidate]]
  ): WrittenFiles = {
    val spark = ctx.spark
    val byFile = bins.zipWithIndex.flatMap { case (b, i) =>
      b.map(c => Row(c.path, FileKeys.canonicalPath(ctx.root, c.path).toUri.toString, i))
    }
    val keys = spark.createDataFrame(
      java.util.Arrays.asList(byFile: _*),
      new StructType()
        .add("path", StringType)
        .add("__txlog_file", StringType)
        .add(DataFiles.BinColumn, IntegerType)
    )
    val table = TableScan.dataFrame(snap, keys.select("path"))
    val names = table.columns.toSeq
    val rows = table
      .select(
        names.map(n => col(RowChecks.quote(n))) :+ col("_metadata.file_path").as("__file"): _*
      )
      .join(broadcast(keys), col("__file") === keys("__txlog_file"))
      .select(names.map(n => col(RowChecks.quote(n))) :+ col(DataFiles.BinColumn): _*)
      .repartition(bins.size, col(DataFiles.BinColumn))
    val plan = FilePlan.of(ctx.root, snap.protocol, snap.metadata, dataChange = false)
    DataFiles.write(rows, ctx.table, plan, Nil)
  }

}
