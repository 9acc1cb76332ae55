package txlog.replay

import scala.util.control.{NoStackTrace, NonFatal}

import org.apache.spark.sql.{DataFrame, SparkSession}
import org.apache.spark.sql.catalyst.{CatalystTypeConverters, InternalRow}
import org.apache.spark.sql.catalyst.expressions.{
  AttributeReference,
  BoundReference,
  Cast,
  EvalMode,
  Expression,
  JsonToStructs,
  Literal
}
import org.apache.spark.sql.catalyst.txlog.AnalyzedRelations
import org.apache.spark.sql.catalyst.util.MapData
import org.apache.spark.sql.txlog.{SparkJson, SparkPlans}
import org.apache.spark.sql.types.{StringType, StructField, StructType}
import org.apache.spark.unsafe.types.UTF8String

import txlog.Metadata
import txlog.protocol.{ActionSchemas, FileColumns}
import txlog.util.Lru

/** The live files of a small table whose log the driver read (a tail of commits it holds, and the
  * checkpoint under it, if any, read there too), as `Snapshot.allFiles` gives them, built there as
  * a local relation: collecting the file list of a small table (`collect()`, `toPandas()`) then
  * runs no Spark job, and plans a local scan instead of a projection of JSON and casts. Each column
  * is computed by the expression Spark would run (`JsonToStructs` for `stats_parsed`, a `try_cast`
  * per partition value), evaluated here; anything that fails to parse leaves the list to Spark,
  * which raises the error a user sees. Up to [[MaxFiles]] files: past them the planned DataFrame is
  * cheaper than the rows it would hold.
  *
  * {{{
  * DriverFileList.of(spark, md, overlay).getOrElse(plannedAllFiles)
  * }}}
  */
private[txlog] object DriverFileList {

  /** The most files listed this way (about 10 MiB of rows with statistics). */
  val MaxFiles = 10000

  private val addType = ActionSchemas.add

  /** `allFiles` of a snapshot whose file actions the driver holds or can stream: the adds of
    * `checkpoint` (a checkpoint read on the driver, with its V2 sidecars) that the tail does not
    * replace, then the winners of `overlay` (the tail's), for a table of `md`. None past
    * [[MaxFiles]] (at once when the checkpoint's tally already shows more live files), when an
    * action does not parse here, or when the checkpoint's statistics are typed only
    * (`restoresJson`: Spark's plan turns them back into JSON, which this does not).
    */
  def of(
      spark: SparkSession,
      md: Metadata,
      overlay: FileOverlay,
      checkpoint: Option[(DriverCheckpoint, Seq[String])] = None,
      restoresJson: => Boolean = false
  ): Option[DataFrame] =
    if (
      overlay.size > MaxFiles ||
      checkpoint.exists(_._1.ownLiveFiles(overlay).exists(_ > MaxFiles)) ||
      (checkpoint.isDefined && restoresJson)
    ) None
    else {
      val zone = Tail.timeZone(spark)
      try {
        val columns = new Columns(Shapes.of(md), zone)
        val rows = Vector.newBuilder[InternalRow]
        var listed = 0
        def list(row: InternalRow): Unit = {
          listed += 1
          if (listed > MaxFiles) throw TooMany
          rows += columns.row(row)
        }
        val read = checkpoint.forall { case (cp, sidecars) =>
          val toRow = CatalystTypeConverters.createToCatalystConverter(addType)
          cp.eachAdd(sidecars, overlay)(add => list(toRow(add).asInstanceOf[InternalRow])).isDefined
        }
        if (!read) None
        else {
          val parse = SparkJson.parser(ActionSchemas.fileActions, zone, LogActions.CorruptColumn)
          overlay.newest.valuesIterator.foreach { a =>
            if (a.add != null) {
              val action = parse(a.text).headOption.getOrElse(throw new NoSuchElementException)
              if (action.isNullAt(0)) throw new NoSuchElementException
              list(action.getStruct(0, addType.length).copy())
            }
          }
          Some(SparkPlans.dataFrame(spark, AnalyzedRelations.local(columns.output, rows.result())))
        }
      } catch {
        case NonFatal(_) => None
      }
    }

  /** More files than [[MaxFiles]]: the planned list is cheaper than the rows. */
  private object TooMany extends RuntimeException with NoStackTrace

  /** The types of `allFiles`' extra columns for a table of one metadata. */
  private final class Shapes(md: Metadata) {
    val partitions: Seq[StructField] = FileColumns.partitionFields(md)
    val (physicalStats, logicalStats) = FileColumns.statsSchemas(md, None)
    val physicalNames: Seq[String] = partitions.map(FileColumns.physicalName)

    private val partitionType: StructType =
      if (partitions.isEmpty) new StructType()
      else StructType(partitions.map(f => StructField(f.name, f.dataType)))

    /** `allFiles`' schema: the add's fields, `partitionValues_parsed` (never null, but for an
      * unpartitioned table's null struct) and `stats_parsed`.
      */
    val schema: StructType = StructType(
      addType.fields ++ Seq(
        StructField("partitionValues_parsed", partitionType, nullable = partitions.isEmpty),
        StructField("stats_parsed", logicalStats)
      )
    )
  }

  /** The [[Shapes]] of the last [[Shapes.Max]] metadata listed (a maintenance job over many small
    * tables of one schema, or one table listed again, derives them once): immutable, so shared.
    */
  private object Shapes {
    val Max = 16
    private val recent = new Lru[Metadata, Shapes](Max)
    def of(md: Metadata): Shapes = recent.getOrElseUpdate(md, new Shapes(md))
  }

  /** The extra columns of `allFiles` for a table of `shapes`: their attributes (new for each
    * relation) and how a row gets them (expressions evaluated by one thread).
    */
  private final class Columns(shapes: Shapes, zone: String) {
    import shapes.{logicalStats, partitions, physicalNames, physicalStats, schema}

    val output: Seq[AttributeReference] =
      schema.fields.toSeq.map(f => AttributeReference(f.name, f.dataType, f.nullable)())

    private val stats: Expression = Cast(
      JsonToStructs(
        physicalStats,
        Map("mode" -> "PERMISSIVE"),
        BoundReference(0, StringType, nullable = true),
        Some(zone)
      ),
      logicalStats,
      Some(zone)
    )

    /** The value of the first key `name` (as `GetMapValue` finds it), cast as `try_cast` does. */
    private def partitionValue(values: MapData, name: String, field: StructField): Any = {
      val (keys, vs) = (values.keyArray(), values.valueArray())
      val key = UTF8String.fromString(name)
      var i = 0
      while (i < keys.numElements() && keys.getUTF8String(i) != key) i += 1
      val raw = if (i == keys.numElements() || vs.isNullAt(i)) null else vs.getUTF8String(i)
      // "An empty string for any type translates to a null partition value."
      if (raw == null || raw.numBytes() == 0) null
      else Cast(Literal(raw, StringType), field.dataType, Some(zone), EvalMode.TRY).eval()
    }

    /** The row of `allFiles` for `add` (an add action's struct). */
    def row(add: InternalRow): InternalRow = {
      val values = new Array[Any](addType.length + 2)
      var i = 0
      while (i < addType.length) {
        values(i) = add.get(i, addType.fields(i).dataType)
        i += 1
      }
      values(addType.length) =
        if (partitions.isEmpty) null
        else {
          val pv = if (add.isNullAt(1)) null else add.getMap(1)
          InternalRow.fromSeq(partitions.zip(physicalNames).map { case (f, name) =>
            if (pv == null) null else partitionValue(pv, name, f)
          })
        }
      values(addType.length + 1) =
        if (add.isNullAt(5)) null
        else {
          stats.eval(InternalRow(add.getUTF8String(5))) match {
            case r: InternalRow => r.copy() // a parser may reuse its row
            case other          => other
          }
        }
      InternalRow.fromSeq(values.toSeq)
    }
  }
}
