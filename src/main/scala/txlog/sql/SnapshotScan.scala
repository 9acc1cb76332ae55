package txlog.sql

import org.apache.spark.rdd.RDD
import org.apache.spark.sql.{DataFrame, Row, SQLContext}
import org.apache.spark.sql.connector.read.streaming.MicroBatchStream
import org.apache.spark.sql.connector.read.{
  Scan,
  ScanBuilder,
  SupportsPushDownFilters,
  SupportsPushDownRequiredColumns,
  V1Scan
}
import org.apache.spark.sql.functions.{col, expr, lit}
import org.apache.spark.sql.sources.{BaseRelation, Filter, TableScan => SourceScan}
import org.apache.spark.sql.types.StructType

import txlog.Snapshot
import txlog.errors.TxlogErrors
import txlog.streaming.StreamScan

/** A batch scan of a snapshot: the table's rows through txlog's one reader
  * ([[txlog.scan.TableScan]], Spark's file source over the snapshot's files), with the columns
  * Spark asks for (the metadata column `_metadata` among them, [[FileMetadata]]) and the filters it
  * pushes applied to that reader's plan, so partition pruning, data skipping, deletion vectors and
  * column mapping are the reader's own. Filters stay checked by Spark after the scan too (skipping
  * is by file, not by row). `schema` is the table's (the snapshot's, or a MERGE's evolved one whose
  * added columns read as null).
  */
private[txlog] final class SnapshotScanBuilder(
    snapshot: Snapshot,
    schema: StructType,
    options: Map[String, String] = Map.empty
) extends ScanBuilder
    with SupportsPushDownFilters
    with SupportsPushDownRequiredColumns {

  private var pushed = Array.empty[Filter]
  private val topLevel = snapshot.metadata.schema.fieldNames.toSet
  private var columns: StructType = schema

  override def pushFilters(filters: Array[Filter]): Array[Filter] = {
    pushed = filters.filter(f => FilterSql.of(f, topLevel).isDefined)
    filters
  }

  override def pushedFilters(): Array[Filter] = pushed

  // Top-level columns only: a pruned struct is read whole (the reader prunes nested fields); of
  // `_metadata` only the fields asked for.
  override def pruneColumns(required: StructType): Unit = {
    val names = required.fieldNames.toSet
    val metadata =
      required.fields.filter(f => FileMetadata.asked(f, schema) || RowLevelColumns.asked(f, schema))
    columns = StructType(schema.filter(f => names(f.name)) ++ metadata)
  }

  override def build(): Scan = new SnapshotScan(snapshot, columns, pushed.toSeq, options)
}

/** The scan [[SnapshotScanBuilder]] builds; `options` are refused in a batch read and are a
  * stream's options in a stream of the table ([[toMicroBatchStream]]).
  */
private[txlog] final class SnapshotScan(
    snapshot: Snapshot,
    columns: StructType,
    filters: Seq[Filter],
    options: Map[String, String]
) extends V1Scan {

  override def readSchema(): StructType = columns

  override def description(): String =
    s"txlog ${snapshot.tablePath} v${snapshot.version} [${filters.mkString(", ")}]"

  override def toV1TableScan[T <: BaseRelation with SourceScan](context: SQLContext): T = {
    if (options.nonEmpty) {
      throw TxlogErrors.invalidArgument(
        options.keys.toSeq.sorted.mkString(", "),
        "a read of a txlog table by name takes no options"
      )
    }
    new SnapshotRows(context, snapshot, columns, filters).asInstanceOf[T]
  }

  /** The stream of the table at its location (`spark.readStream.table(name)`): the table's rows
    * from its latest version when the query starts, with the stream's options
    * (`txlog.streaming.StreamScan`), its columns those the query was planned with. Its change data
    * feed (`readChangeFeed`) has other columns: INVALID_ARGUMENT, naming the stream by path.
    */
  override def toMicroBatchStream(checkpointLocation: String): MicroBatchStream = {
    val parameters = options + ("path" -> snapshot.tablePath)
    if (txlog.streaming.StreamOptions(parameters).readChangeFeed) {
      throw TxlogErrors.invalidArgument(
        "readChangeFeed",
        "a stream of a table by name has the table's columns; stream its change data feed by " +
          "path: spark.readStream.format(\"txlog\").option(\"readChangeFeed\", \"true\")" +
          ".load(\"" + snapshot.tablePath + "\")."
      )
    }
    new StreamScan(snapshot.spark, parameters, columns).toMicroBatchStream(checkpointLocation)
  }
}

/** The rows of the scan, as Spark's internal rows of the reader's plan (no conversion). */
private[txlog] final class SnapshotRows(
    context: SQLContext,
    snapshot: Snapshot,
    columns: StructType,
    filters: Seq[Filter]
) extends BaseRelation
    with SourceScan {

  override def sqlContext: SQLContext = context
  override def schema: StructType = columns
  override def needConversion: Boolean = false

  /** The reader's plan: the snapshot's rows, the pushed filters, the columns asked for; the fields
    * of `_metadata` asked for are the reader's own ([[FileMetadata]]), in the same scan.
    */
  def rows: DataFrame = {
    val schema = snapshot.metadata.schema
    val rowLevel = columns.fields.exists(RowLevelColumns.asked(_, schema))
    val all = txlog.scan.TableScan.dataFrame(snapshot, rowLevel)
    val top = schema.fieldNames.toSet
    val kept = filters.flatMap(FilterSql.of(_, top)).foldLeft(all)((df, p) => df.where(expr(p)))
    kept.select(columns.fields.toSeq.map { f =>
      f.dataType match {
        case fields: StructType if FileMetadata.asked(f, schema) => FileMetadata.select(fields)
        case _ if RowLevelColumns.asked(f, schema)               => RowLevelColumns.select(f.name)
        // a column a MERGE's schema evolution adds: no file has it yet
        case t if !top(f.name) => lit(null).cast(t).as(f.name)
        case _                 => col(s"`${f.name.replace("`", "``")}`")
      }
    }: _*)
  }

  override def buildScan(): RDD[Row] = rows.queryExecution.toRdd.asInstanceOf[RDD[Row]]
}
