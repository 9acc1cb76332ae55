package txlog.txn

import java.util.UUID

import org.apache.spark.sql.types._

/** Column mapping on write ("Column Mapping"): every field, nested ones included, carries
  * `delta.columnMapping.id` and `delta.columnMapping.physicalName`; the table's
  * `delta.columnMapping.maxColumnId` is the largest id given out.
  */
private[txlog] object ColumnMappingAssign {
  val IdKey = "delta.columnMapping.id"
  val PhysicalNameKey = "delta.columnMapping.physicalName"
  val MaxIdProperty = "delta.columnMapping.maxColumnId"

  /** `schema` with ids and physical names given to the fields that have none, counting on from
    * `maxId`; returns the schema and the new largest id. Fields that have them keep them.
    */
  def assign(schema: StructType, maxId: Long): (StructType, Long) = {
    var next = maxId
    def field(f: StructField): StructField = {
      val typed = f.copy(dataType = dataType(f.dataType))
      if (typed.metadata.contains(IdKey)) typed
      else {
        next += 1
        val md = new MetadataBuilder()
          .withMetadata(typed.metadata)
          .putLong(IdKey, next)
          .putString(PhysicalNameKey, s"col-${UUID.randomUUID()}")
          .build()
        typed.copy(metadata = md)
      }
    }
    def dataType(t: DataType): DataType = t match {
      case s: StructType => StructType(s.fields.map(field))
      case a: ArrayType  => a.copy(elementType = dataType(a.elementType))
      case m: MapType    => m.copy(keyType = dataType(m.keyType), valueType = dataType(m.valueType))
      case other         => other
    }
    val out = StructType(schema.fields.map(field))
    (out, next)
  }

  /** The largest id in `schema` (0 when none). */
  def maxIdIn(schema: StructType): Long = {
    def ids(t: DataType): Seq[Long] = t match {
      case s: StructType =>
        s.fields.toSeq.flatMap(f =>
          (if (f.metadata.contains(IdKey)) Seq(f.metadata.getLong(IdKey)) else Nil) ++
            ids(f.dataType)
        )
      case a: ArrayType => ids(a.elementType)
      case m: MapType   => ids(m.keyType) ++ ids(m.valueType)
      case _            => Nil
    }
    (0L +: ids(schema)).max
  }
}
