package txlog.txn

import java.util.UUID

import org.apache.spark.sql.types._

import txlog.{Metadata, TxlogErrors}

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

  /** INVALID_METADATA unless the ids and physical names of `after` are unique and every id that
    * `before` had keeps its physical name: data files name columns by physical name (or id), so a
    * rename keeps both and only the logical name changes; a dropped column's id is never reused.
    */
  def checkIdentity(table: String, before: Option[Metadata], after: StructType): Unit = {
    def bad(detail: String) = throw TxlogErrors.invalidMetadata(table, detail)
    val now = identities(after)
    now.groupBy(_._2).foreach { case (id, fs) =>
      if (fs.size > 1) bad(s"column mapping id $id is used by ${fs.map(_._1).mkString(", ")}")
    }
    now.groupBy(_._3).foreach { case (name, fs) =>
      if (fs.size > 1) {
        bad(s"physical name $name is used by ${fs.map(_._1).mkString(", ")}")
      }
    }
    before.foreach { md =>
      val b = md.schema
      val was = identities(b).map(f => f._2 -> f).toMap
      now.foreach { case (path, id, physical) =>
        was.get(id).foreach { case (oldPath, _, oldPhysical) =>
          if (oldPhysical != physical) {
            bad(
              s"column $path (id $id, formerly $oldPath) changes its physical name from " +
                s"$oldPhysical to $physical"
            )
          }
        }
      }
      val maxBefore = md.configuration
        .get(MaxIdProperty)
        .flatMap(_.trim.toLongOption)
        .getOrElse(0L)
        .max(maxIdIn(b))
      val reused = now.filter { case (_, id, _) => id <= maxBefore && !was.contains(id) }
      if (reused.nonEmpty) {
        bad(s"column ${reused.head._1} reuses id ${reused.head._2} of a dropped column")
      }
    }
  }

  /** (dotted path, id, physical name) of every field of `schema` that has both. */
  private def identities(schema: StructType): Seq[(String, Long, String)] = {
    def of(t: DataType, prefix: String): Seq[(String, Long, String)] = t match {
      case s: StructType =>
        s.fields.toSeq.flatMap { f =>
          val path = if (prefix.isEmpty) f.name else s"$prefix.${f.name}"
          val here =
            if (f.metadata.contains(IdKey) && f.metadata.contains(PhysicalNameKey)) {
              Seq((path, f.metadata.getLong(IdKey), f.metadata.getString(PhysicalNameKey)))
            } else Nil
          here ++ of(f.dataType, path)
        }
      case a: ArrayType => of(a.elementType, s"$prefix.element")
      case m: MapType   => of(m.keyType, s"$prefix.key") ++ of(m.valueType, s"$prefix.value")
      case _            => Nil
    }
    of(schema, "")
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
