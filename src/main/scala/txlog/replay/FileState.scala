package txlog.replay

import java.net.URI

import org.apache.hadoop.fs.Path
import org.apache.spark.sql.{Column, DataFrame, SparkSession}
import org.apache.spark.sql.functions.{broadcast, col, struct, when}
import org.apache.spark.sql.types.StructType

import txlog.protocol.ActionSchemas
import txlog.log.LogSegment

/** The reconciled file actions of a segment, as a lazy DataFrame of (pathKey, dvId, add, remove).
  * Built in two shapes from the same plan: `full` (every field, for `allFiles` and `tombstones`)
  * and `lean` (paths, sizes, deletion vector ids and deletion times only, for counts and sizes), so
  * that counting never reads stats.
  */
private[txlog] object FileState {

  def schema(lean: Boolean): StructType =
    if (lean) ActionSchemas.leanFileActions else ActionSchemas.fileActions

  /** The file actions of `tail`: reconciled on the driver when it is held there. */
  def tailFiles(tail: Tail, root: String): TailFiles = tail match {
    case t: DriverTail         => DriverTailFiles(FileOverlay.of(t.rows, root))
    case DistributedTail(_, d) => DistributedTailFiles(d)
  }

  /** The keyed file actions of `segment`'s checkpoint, whose V2 checkpoint (if any) names
    * `sidecars`.
    */
  def checkpointBase(
      spark: SparkSession,
      segment: LogSegment,
      sidecars: Seq[String],
      lean: Boolean
  ): Option[DataFrame] = {
    val table = segment.table
    segment.checkpoint.map { cp =>
      val inline = LogActions
        .checkpoint(spark, table, cp, schema(lean))
        .select("version", "idx", "add", "remove")
      val all =
        if (sidecars.isEmpty) inline
        else
          inline.unionByName(
            LogActions.sidecars(
              spark,
              table,
              cp.version,
              sidecars.map(sidecarPath(segment, _)),
              schema(lean)
            )
          )
      FileReconciler
        .keyed(all, table.root)
        .select(FileKeys.PathKey, FileKeys.DvKey, "add", "remove")
    }
  }

  /** The `tail` reconciled onto `base`, an already reconciled file state (or nothing). */
  def onto(
      spark: SparkSession,
      segment: LogSegment,
      base: Option[DataFrame],
      tail: TailFiles,
      lean: Boolean
  ): DataFrame = tail match {
    case DriverTailFiles(files) =>
      val winners = files.winners(spark, lean)
      base.fold(winners)(b => replace(spark, b, files).unionByName(winners))
    case t @ DistributedTailFiles(deltas) =>
      val root = segment.table.root
      // Only a base needs the hashes: they are what keeps it unshuffled.
      val hashes = base.flatMap { _ =>
        t.touchedHashes {
          val keys =
            FileReconciler.keyed(LogActions.tail(spark, segment.table, deltas, schema(true)), root)
          ReadErrors.translate(segment) {
            TouchedKeyHashes.collect(
              spark,
              keys,
              DriverBudgets.maxKeyHashBytes(spark),
              s"hash the keys ${deltas.size} commits of $root touch (v${segment.version})"
            )
          }
        }
      }
      FileReconciler.reconcile(
        base,
        LogActions.tail(spark, segment.table, deltas, schema(lean)),
        root,
        hashes
      )
  }

  /** The rows of `base` (keyed, any shape) whose keys `files` does not touch. */
  private def replace(spark: SparkSession, base: DataFrame, files: FileOverlay): DataFrame =
    if (files.size == 0) base
    else {
      base.join(broadcast(files.touched(spark)), Seq(FileKeys.PathKey, FileKeys.DvKey), "left_anti")
    }

  /** The counts of `files` reconciled onto `counted` (a base in the [[FileCounts.counting]] shape):
    * the base is counted in one job without the rows `files` replaces, `files` on the driver.
    */
  def count(
      spark: SparkSession,
      counted: Option[DataFrame],
      files: FileOverlay,
      tombstoneCutoff: Long,
      job: String
  ): FileCounts = {
    val base = counted.fold(FileCounts.zero) { b =>
      FileCounts.aggregate(spark, replace(spark, b, files), tombstoneCutoff, job)
    }
    base + files.counts(tombstoneCutoff)
  }

  /** A full file state narrowed to the lean shape (for counting a cached full state). */
  def narrow(full: DataFrame): DataFrame = {
    def shape(path: String, t: StructType): Column =
      when(
        col(path).isNotNull,
        struct(t.fields.toSeq.map { f =>
          f.dataType match {
            case s: StructType => shape(s"$path.${f.name}", s).as(f.name)
            case _             => col(s"$path.${f.name}").as(f.name)
          }
        }: _*)
      )
    val lean = ActionSchemas.leanFileActions
    full.select(
      col(FileKeys.PathKey),
      col(FileKeys.DvKey),
      shape("add", lean("add").dataType.asInstanceOf[StructType]).as("add"),
      shape("remove", lean("remove").dataType.asInstanceOf[StructType]).as("remove")
    )
  }

  /** Sidecar paths are relative to `_delta_log/_sidecars` unless absolute. */
  def sidecarPath(segment: LogSegment, path: String): String = {
    val p = new Path(new URI(path))
    if (p.isAbsolute) p.toString else new Path(segment.table.sidecarDir, p).toString
  }
}
