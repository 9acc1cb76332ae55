package txlog.replay

import java.net.URI

import org.apache.hadoop.fs.Path
import org.apache.spark.sql.{Column, DataFrame, SparkSession}
import org.apache.spark.sql.functions.{col, struct, when}
import org.apache.spark.sql.types.StructType

import txlog.actions.ActionSchemas
import txlog.log.LogSegment

/** The reconciled file actions of a segment, as a lazy DataFrame of (pathKey, dvId, add, remove).
  * Built in two shapes from the same plan: `full` (every field, for `allFiles` and `tombstones`)
  * and `lean` (paths, sizes, deletion vector ids and deletion times only, for counts and sizes), so
  * that counting never reads stats.
  */
private[txlog] object FileState {

  /** Tails up to this many bytes of JSON are broadcast to the checkpoint anti-join. */
  private val BroadcastTailBytes = 64L * 1024 * 1024

  def schema(lean: Boolean): StructType =
    if (lean) ActionSchemas.leanFileActions else ActionSchemas.fileActions

  /** The file state of `segment`, whose V2 checkpoint (if any) names `sidecars`. */
  def of(
      spark: SparkSession,
      segment: LogSegment,
      sidecars: Seq[String],
      tail: TailActions,
      lean: Boolean
  ): DataFrame = {
    val table = segment.table
    val base = segment.checkpoint.map { cp =>
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
      FileReconciler.keyed(all, table.root)
    }
    onto(spark, segment, base, tail, lean)
  }

  /** The `tail` reconciled onto `base`, an already reconciled file state (or nothing). */
  def onto(
      spark: SparkSession,
      segment: LogSegment,
      base: Option[DataFrame],
      tail: TailActions,
      lean: Boolean
  ): DataFrame = tail match {
    case LocalTail(rows, _, _) =>
      FileReconciler.reconcileLocal(spark, base, rows, segment.table.root, lean)
    case DistributedTail(_, deltas) =>
      // Parsed again against the narrower schema: cheaper than keeping the full parse.
      FileReconciler.reconcile(
        base,
        LogActions.tail(spark, segment.table, deltas, schema(lean)),
        segment.table.root,
        deltas.map(_.file.size).sum <= BroadcastTailBytes
      )
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
  private def sidecarPath(segment: LogSegment, path: String): String = {
    val p = new Path(new URI(path))
    if (p.isAbsolute) p.toString else new Path(segment.table.sidecarDir, p).toString
  }
}
