package txlog.scan

import org.apache.spark.sql.sources._
import org.apache.spark.sql.types._

import txlog.protocol.ColumnMapping

/** The schema a table's data files are read with ("Reader Requirements for Column Mapping"): under
  * column mapping every field, nested ones included, carries its physical name, and in id mode its
  * field id as the parquet reader's `parquet.field.id` metadata; without column mapping the logical
  * schema itself.
  *
  * {{{
  * val inFiles = PhysicalSchema.project(requiredSchema, md.schema, mode = "name")
  * }}}
  */
private[txlog] object PhysicalSchema {

  /** The field metadata key Spark's parquet reader matches field ids by. */
  val ParquetFieldIdKey = "parquet.field.id"

  /** Whether `mode` (the table's `delta.columnMapping.mode`) maps columns. */
  def maps(mode: String): Boolean = mode == "name" || mode == "id"

  /** `read` (the table schema or a part of it Spark pruned, logical names) with the physical names
    * (and field ids in id mode) its fields have in `table`, the table schema with its column
    * mapping metadata, at every level.
    */
  def project(read: StructType, table: StructType, mode: String): StructType =
    if (!maps(mode)) read else struct(read, table, mode == "id")

  /** The schema data files are written with ("Writer Requirements for Column Mapping"): under
    * column mapping, physical names and, in either mode, field ids (as delta-spark writes them);
    * `data` is a part of the table schema, with its column mapping metadata.
    */
  def forWrite(data: StructType, mode: String): StructType =
    if (!maps(mode)) data else struct(data, data, ids = true)

  private def struct(read: StructType, table: StructType, ids: Boolean): StructType =
    StructType(read.fields.map { f =>
      val t = table.fields
        .find(_.name == f.name)
        .orElse(table.fields.find(_.name.equalsIgnoreCase(f.name)))
        .getOrElse(f)
      val meta = new MetadataBuilder()
      if (ids && t.metadata.contains(ColumnMapping.IdKey)) {
        meta.putLong(ParquetFieldIdKey, t.metadata.getLong(ColumnMapping.IdKey))
      }
      StructField(
        ColumnMapping.physicalName(t),
        dataType(f.dataType, t.dataType, ids),
        f.nullable,
        meta.build()
      )
    })

  private def dataType(read: DataType, table: DataType, ids: Boolean): DataType =
    (read, table) match {
      case (r: StructType, t: StructType) => struct(r, t, ids)
      case (r: ArrayType, t: ArrayType) =>
        r.copy(elementType = dataType(r.elementType, t.elementType, ids))
      case (r: MapType, t: MapType) =>
        r.copy(
          keyType = dataType(r.keyType, t.keyType, ids),
          valueType = dataType(r.valueType, t.valueType, ids)
        )
      case (r, _) => r
    }

  /** The schema users see: the logical names, without the column mapping keys in field metadata (as
    * delta-spark shows it).
    */
  def logical(schema: StructType): StructType = StructType(schema.fields.map { f =>
    val meta = new MetadataBuilder()
      .withMetadata(f.metadata)
      .remove(ColumnMapping.IdKey)
      .remove(ColumnMapping.PhysicalNameKey)
      .remove(ColumnMapping.NestedIdsKey)
      .build()
    StructField(f.name, logicalType(f.dataType), f.nullable, meta)
  })

  private def logicalType(t: DataType): DataType = t match {
    case s: StructType => logical(s)
    case a: ArrayType  => a.copy(elementType = logicalType(a.elementType))
    case m: MapType =>
      m.copy(keyType = logicalType(m.keyType), valueType = logicalType(m.valueType))
    case other => other
  }

  /** Filters on top-level columns with their names replaced by `rename`; a filter naming a column
    * `rename` does not know (a nested one) is dropped, never pushed down under a name the files do
    * not use: Spark evaluates every filter again on the rows read.
    */
  def renameFilters(filters: Seq[Filter], rename: Map[String, String]): Seq[Filter] =
    filters.flatMap(f => renamed(f, rename, strict = false))

  /** `f` renamed; with `strict`, all of it or nothing (under a NOT, a part left out would make the
    * filter narrower, and drop rows it must keep); otherwise a filter that keeps at least the rows
    * `f` keeps.
    */
  private def renamed(f: Filter, r: Map[String, String], strict: Boolean): Option[Filter] = {
    def n(a: String) = r.get(a)
    f match {
      case EqualTo(a, v)            => n(a).map(EqualTo(_, v))
      case EqualNullSafe(a, v)      => n(a).map(EqualNullSafe(_, v))
      case GreaterThan(a, v)        => n(a).map(GreaterThan(_, v))
      case GreaterThanOrEqual(a, v) => n(a).map(GreaterThanOrEqual(_, v))
      case LessThan(a, v)           => n(a).map(LessThan(_, v))
      case LessThanOrEqual(a, v)    => n(a).map(LessThanOrEqual(_, v))
      case In(a, vs)                => n(a).map(In(_, vs))
      case IsNull(a)                => n(a).map(IsNull(_))
      case IsNotNull(a)             => n(a).map(IsNotNull(_))
      case StringStartsWith(a, v)   => n(a).map(StringStartsWith(_, v))
      case StringEndsWith(a, v)     => n(a).map(StringEndsWith(_, v))
      case StringContains(a, v)     => n(a).map(StringContains(_, v))
      case And(x, y) =>
        (renamed(x, r, strict), renamed(y, r, strict)) match {
          case (Some(a), Some(b)) => Some(And(a, b))
          case (a, b) if !strict  => a.orElse(b)
          case _                  => None
        }
      case Or(x, y) =>
        for { a <- renamed(x, r, strict); b <- renamed(y, r, strict) } yield Or(a, b)
      case Not(x) => renamed(x, r, strict = true).map(Not(_))
      case _      => None
    }
  }
}
