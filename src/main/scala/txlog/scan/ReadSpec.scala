package txlog.scan

import org.apache.spark.sql.types.{ArrayType, DataType, MapType, StructField, StructType}

import txlog.Snapshot
import txlog.errors.TxlogErrors
import txlog.protocol.{ColumnMapping, FileColumns}
import txlog.protocol.SparkTypes

/** What reading one snapshot's rows needs to know of the table, worked out once on the driver: the
  * schemas users see (logical names, no column mapping metadata), the column mapping mode in force
  * ("Reader Requirements for Column Mapping"), whether deletion vectors may be present, whether row
  * tracking is enabled, and how data filters map to statistics.
  *
  * {{{
  * val t = ReadSpec(snapshot); t.dataSchema.fieldNames
  * }}}
  */
private[txlog] final case class ReadSpec(
    root: String,
    version: Long,
    /** The table schema with its column mapping metadata, to find physical names in. */
    tableSchema: StructType,
    /** The table's columns as users see them, partition columns in their schema position. */
    dataSchema: StructType,
    /** The partition columns, in the order of the metadata's partitionColumns. */
    partitionSchema: StructType,
    /** `none`, `name` or `id`. */
    columnMappingMode: String,
    deletionVectors: Boolean,
    /** The materialized row tracking columns when row tracking is enabled ([[RowTrackingRead]]). */
    rowTracking: Option[RowTrackingColumns] = None
) {

  @transient lazy val skipping: DataSkipping = {
    val partitions = partitionSchema.fieldNames.toSet
    DataSkipping(dataSchema.fields.toSeq.filterNot(f => partitions(f.name)))
  }

  /** Logical top-level column name to the name in data files. */
  lazy val physicalNames: Map[String, String] =
    tableSchema.fields.map(f => f.name -> ColumnMapping.physicalName(f)).toMap
}

private[txlog] object ReadSpec {

  /** The field metadata key under which type widening records a column's type changes. */
  val TypeChangesKey = "delta.typeChanges"

  def apply(snapshot: Snapshot): ReadSpec = {
    val md = snapshot.metadata
    if (!SparkTypes.hasVariant && widened(md.schema)) {
      // Spark 3.5's parquet readers do not widen a file's narrower type; its rows would fail to
      // convert, so the table is refused before any is read.
      throw TxlogErrors.unsupportedReaderFeatures(
        snapshot.tablePath,
        Seq(
          "typeWidening (rows of widened columns on Spark 3.5: its parquet reader cannot " +
            "widen types; read them on Spark 4.0 or later)"
        )
      )
    }
    val p = snapshot.protocol
    val readers = p.readerFeatures.getOrElse(Set.empty)
    val mapped = p.minReaderVersion == 2 ||
      (p.minReaderVersion == 3 && readers.contains("columnMapping"))
    val mode =
      if (!mapped) "none"
      else md.configuration.getOrElse(ColumnMapping.ModeProperty, "none").trim.toLowerCase
    val partitionFields: Seq[StructField] = FileColumns.partitionFields(md)
    val logical = PhysicalSchema.logical(md.schema)
    ReadSpec(
      root = snapshot.tablePath,
      version = snapshot.version,
      tableSchema = md.schema,
      dataSchema = logical,
      // in the order of partitionColumns, as the typed partition values are built
      partitionSchema =
        StructType(partitionFields.flatMap(p => logical.fields.find(_.name == p.name))),
      columnMappingMode = mode,
      deletionVectors = readers.contains("deletionVectors"),
      rowTracking = RowTrackingRead.columns(p, md)
    )
  }

  /** Whether a field at any level had its type widened. */
  private def widened(t: DataType): Boolean = t match {
    case s: StructType =>
      s.fields.exists(f => f.metadata.contains(TypeChangesKey) || widened(f.dataType))
    case a: ArrayType => widened(a.elementType)
    case m: MapType   => widened(m.keyType) || widened(m.valueType)
    case _            => false
  }
}
