package txlog.replay

import java.net.URI

import org.apache.hadoop.fs.Path
import org.apache.spark.sql.{Column, DataFrame, SparkSession}
import org.apache.spark.sql.functions.{broadcast, coalesce, col, lit, struct, to_json, when}
import org.apache.spark.sql.types.{StringType, StructField, StructType}

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
    case t: DriverTail      => DriverTailFiles(FileOverlay.of(t.rows, root))
    case t: DistributedTail => DistributedTailFiles(t.deltas, t.lines)
  }

  /** The keyed file actions of `segment`'s checkpoint, whose V2 checkpoint (if any) names
    * `sidecars`. The full shape turns `add.stats_parsed` back into JSON `stats` where a checkpoint
    * file has no `stats` column (a checkpoint written with `delta.checkpoint.writeStatsAsJson =
    * false`), so that no reader of the file state and no checkpoint written from it loses them.
    * With `typed`, a scan's read: the adds' typed statistics of the leaves it compares beside them,
    * as column [[TypedStatsColumn]].
    */
  def checkpointBase(
      spark: SparkSession,
      segment: LogSegment,
      sidecars: Seq[String],
      lean: Boolean,
      typed: Option[TypedStatsRead] = None
  ): Option[DataFrame] = {
    val table = segment.table
    val sidecarPaths = sidecars.map(sidecarPath(segment, _))
    lazy val layout = CheckpointStatsColumns.of(spark, segment, sidecarPaths)
    val stats: Option[StatsShape] =
      if (lean) None
      else
        typed match {
          case Some(t) => Some(StatsShape(t.schema, json = t.json, restore = false))
          case None =>
            layout.filter(_.restoresJson).flatMap(_.typed).map(StatsShape(_, json = true, true))
        }
    val readSchema = stats.fold(schema(lean))(_.readSchema)
    segment.checkpoint.map { cp =>
      val inline = LogActions
        .checkpoint(spark, table, cp, readSchema)
        .select("version", "idx", "add", "remove")
      val all =
        if (sidecars.isEmpty) inline
        else
          inline.unionByName(
            LogActions.sidecars(spark, table, cp.version, sidecarPaths, readSchema)
          )
      val shaped = stats.fold(all)(_.shape(all))
      FileReconciler
        .keyed(shaped, table.root, if (typed.isDefined) Seq(TypedStatsColumn) else Nil)
        .select(
          (Seq(FileKeys.PathKey, FileKeys.DvKey, "add", "remove") ++
            (if (typed.isDefined) Seq(TypedStatsColumn) else Nil)).map(col): _*
        )
    }
  }

  /** A scan's read of a checkpoint's typed statistics: `add.stats_parsed` as `schema` (physical
    * names, the writer's types, only the leaves the scan compares), and with `json` the adds'
    * `stats` too (for adds without typed statistics).
    */
  final case class TypedStatsRead(schema: StructType, json: Boolean)

  /** The column of a scan's file state holding a checkpoint add's typed statistics. */
  val TypedStatsColumn = "typedStats"

  /** How a checkpoint's adds are read with `add.stats_parsed` (as `typed`, physical names): with
    * `json`, their `stats` too; with `restore`, `stats` made from `stats_parsed` where null;
    * otherwise `stats_parsed` moved out of `add` into [[TypedStatsColumn]].
    */
  private final case class StatsShape(typed: StructType, json: Boolean, restore: Boolean) {
    private val add = ActionSchemas.fileActions("add").dataType.asInstanceOf[StructType]

    def readSchema: StructType = {
      val fields = add.fields.toSeq.filter(f => json || f.name != "stats")
      StructType(
        Seq(
          StructField("add", StructType(fields :+ StructField("stats_parsed", typed))),
          ActionSchemas.fileActions("remove")
        )
      )
    }

    def shape(rows: DataFrame): DataFrame = {
      val parsed = col("add.stats_parsed")
      val stats =
        if (restore) coalesce(col("add.stats"), to_json(parsed, JsonStatsOptions))
        else if (json) col("add.stats")
        else lit(null).cast(StringType)
      val rebuilt = when(
        col("add").isNotNull,
        struct(add.fields.toSeq.map { f =>
          if (f.name == "stats") stats.as("stats") else col(s"add.${f.name}").as(f.name)
        }: _*)
      )
      val withTyped = if (restore) rows else rows.withColumn(TypedStatsColumn, parsed)
      withTyped.withColumn("add", rebuilt)
    }
  }

  /** Typed statistics written as the JSON statistics delta-spark writes: UTC timestamps. */
  private val JsonStatsOptions = Map(
    "timeZone" -> "UTC",
    "timestampFormat" -> "yyyy-MM-dd'T'HH:mm:ss.SSSXXX"
  )

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
      base.fold(winners) { b =>
        replace(spark, b, files).unionByName(winners, allowMissingColumns = extra(b))
      }
    case ListedTailFiles(files, lines) =>
      val winners = FileReconciler
        .keyed(LogActions.parseLines(lines, schema(lean)), segment.table.root)
        .select(FileKeys.PathKey, FileKeys.DvKey, "add", "remove")
      base.fold(winners) { b =>
        replace(spark, b, files).unionByName(winners, allowMissingColumns = extra(b))
      }
    case t @ DistributedTailFiles(deltas, lines) =>
      val root = segment.table.root
      // Only a base needs the hashes: they are what keeps it unshuffled.
      val hashes = base.flatMap { _ =>
        t.touchedHashes {
          val keys =
            FileReconciler.keyed(LogActions.parseLines(lines, schema(true)), root)
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
        LogActions.parseLines(lines, schema(lean)),
        root,
        hashes
      )
  }

  /** Whether `base` carries columns beyond the four of a file state (a scan's typed stats). */
  private def extra(base: DataFrame): Boolean = base.columns.length > 4

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
