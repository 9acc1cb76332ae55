package txlog.write

import scala.util.Try

import org.apache.hadoop.conf.Configuration
import org.apache.spark.sql.{DataFrame, Row, SparkSession}
import org.apache.spark.sql.functions.{col, to_json}
import org.apache.spark.sql.types.{StringType, StructType}

import txlog.Snapshot
import txlog.deletionvectors.DvDescriptor
import txlog.protocol.DvPaths
import txlog.replay.FileKeys
import txlog.scan.FileGroups
import txlog.table.TableContext
import txlog.util.Jobs

/** DELETE, UPDATE and MERGE on a table that does not enable deletion vectors: copy-on-write, as
  * delta-spark's. The row-level operation runs as on a table with them (Spark finds the changed
  * rows by file and row index; the tasks write each touched file's deleted rows as a vector, and
  * the updated and inserted rows into new files), but the vectors are only the tasks' note of which
  * rows to drop: one more Spark job rewrites every touched file without them ([[rewrite]]), the
  * commit removes the touched files whole and adds the rewritten ones, and the vectors' files,
  * which no version names, are deleted ([[dropVectors]]). A file is rewritten only when a row of it
  * changed, as delta-spark's; one whose every row is gone is just removed.
  *
  * The rewrite packs the touched files into tasks as Spark's file scan packs a read of them
  * (`spark.sql.files.maxPartitionBytes`, `openCostInBytes`, the default parallelism), as
  * delta-spark rewrites them through such a scan; files of one size may be packed in another order
  * than delta-spark's, so the number of files written can differ. A file is never split. Driver
  * memory: one entry per touched file (its path, size and partition values).
  *
  * {{{
  * if (CopyOnWrite.applies(snap)) CopyOnWrite.rewrite(ctx, snap, touchedFiles)
  * }}}
  */
private[txlog] object CopyOnWrite {

  /** Whether a DML on `snap` rewrites files: the table does not support or enable deletion vectors.
    */
  def applies(snap: Snapshot): Boolean = {
    val c = snap.config
    !(c.deletionVectorsSupported && c.deletionVectorsEnabled)
  }

  /** The rows the touched files (`files`: rows of the read snapshot's files, one per entry of
    * `touched`) keep once their new vectors drop the changed rows, written into new files,
    * `dataChange` true; the files whose every row is gone yield none.
    */
  def rewrite(
      ctx: TableContext,
      snap: Snapshot,
      files: DataFrame,
      touched: Seq[DvDelete.Touched]
  ): WrittenFiles = {
    val spark = ctx.spark
    val dvs = touched.map(t => t.path -> t.dv).toMap
    val listed = Jobs.named(spark, s"list the files a copy-on-write change rewrites, ${ctx.root}") {
      files.select(col("path"), col("size"), to_json(col("partitionValues"))).collect().toSeq
    }
    val entries = listed.map { r =>
      val uri = FileKeys.canonicalPath(ctx.root, r.getString(0)).toUri.toString
      Entry(r.getString(0), uri, r.getLong(1), r.getString(2), dvs(r.getString(0)))
    }
    val paths = spark.createDataFrame(
      java.util.Arrays.asList(entries.map(e => Row(e.path)): _*),
      new StructType().add("path", StringType)
    )
    val groups = pack(spark, entries).map(_.sortBy(_.partition).map(_.uri))
    val vectors = entries.map(e => e.uri -> e.dv).toMap
    // on a table with row tracking the copied rows keep their ids and commit versions
    val tracking = RowIdsKept.columns(snap)
    val (rows, schema) = FileGroups.rows(snap, paths, groups, vectors, tracking.nonEmpty)
    val plan = FilePlan.withRowIds(
      FilePlan.of(ctx.root, snap.protocol, snap.metadata, dataChange = true),
      tracking
    )
    DataFiles.writeRows(spark, rows, schema, ctx.table, plan, Nil)
  }

  /** A touched file: its add path, URI, size, partition values (JSON) and new vector. */
  private final case class Entry(
      path: String,
      uri: String,
      size: Long,
      partition: String,
      dv: DvDescriptor
  )

  /** `entries` in groups as Spark's file scan packs files into partitions: largest first, each
    * group closed when the next file would take it past the split size.
    */
  private def pack(spark: SparkSession, entries: Seq[Entry]): Seq[Seq[Entry]] = {
    val conf = spark.sessionState.conf
    val openCost = conf.filesOpenCostInBytes
    val parallelism = conf.filesMinPartitionNum.getOrElse(spark.sparkContext.defaultParallelism)
    val total = entries.map(_.size + openCost).sum
    val split = math.min(conf.filesMaxPartitionBytes, math.max(openCost, total / parallelism))
    val groups = Seq.newBuilder[Seq[Entry]]
    var current = Vector.empty[Entry]
    var size = 0L
    entries.sortBy(e => (-e.size, e.path)).foreach { e =>
      if (current.nonEmpty && size + e.size > split) {
        groups += current
        current = Vector.empty
        size = 0L
      }
      current :+= e
      size += e.size + openCost
    }
    if (current.nonEmpty) groups += current
    groups.result()
  }

  /** Deletes the files of `vectors` that are in files (`u`) under `root`: a copy-on-write change's
    * notes of the rows it dropped, or the vectors of a change that was never committed. Best
    * effort: a file left behind is named by no version, and VACUUM removes it.
    */
  def dropVectors(root: String, vectors: Seq[DvDescriptor], conf: Configuration): Unit =
    vectors.filter(_.storageType == "u").map(_.pathOrInlineDv).distinct.foreach { text =>
      DvPaths.absolutePath(root, "u", text).foreach { p =>
        Try(p.getFileSystem(conf).delete(p, false))
      }
    }
}
