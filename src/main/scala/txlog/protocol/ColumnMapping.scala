package txlog.protocol

import org.apache.spark.sql.types.StructField

/** The keys of "Column Mapping": the table property choosing the mode, the largest id given out,
  * and the field metadata holding a column's id and physical name.
  *
  * {{{
  * val inFiles = ColumnMapping.physicalName(schema("id"))
  * }}}
  */
private[txlog] object ColumnMapping {
  val ModeProperty = "delta.columnMapping.mode"
  val MaxIdProperty = "delta.columnMapping.maxColumnId"
  val IdKey = "delta.columnMapping.id"
  val PhysicalNameKey = "delta.columnMapping.physicalName"

  /** The ids of array elements and map keys and values (Iceberg compatibility), by field. */
  val NestedIdsKey = "delta.columnMapping.nested.ids"

  /** The field's physical name, when it has one. */
  def physicalNameOf(f: StructField): Option[String] =
    if (f.metadata.contains(PhysicalNameKey)) Some(f.metadata.getString(PhysicalNameKey)) else None

  /** The column's name in data files and file actions: its physical name, else its name. */
  def physicalName(f: StructField): String = physicalNameOf(f).getOrElse(f.name)
}
