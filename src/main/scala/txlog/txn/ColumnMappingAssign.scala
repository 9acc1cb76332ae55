package txlog.txn

import java.util.UUID

import org.apache.spark.sql.types._

import txlog.Metadata
import txlog.errors.TxlogErrors
import txlog.protocol.ColumnMapping

/** Column mapping on write ("Column Mapping"): every field, nested ones included, carries
  * `delta.columnMapping.id` and `delta.columnMapping.physicalName`; the table's
  * `delta.columnMapping.maxColumnId` is the largest id given out.
  */
private[txlog] object ColumnMappingAssign {
  import ColumnMapping.{IdKey, MaxIdProperty, PhysicalNameKey}

  /** `schema` with ids and physical names given to the fields that have none, counting on from
    * `maxId`; returns the schema and the new largest id. Fields that have them keep them. A field
    * without them that `current` (the schema in force, at the same place) has under the same name
    * is the same column: it takes that field's id and physical name when it has them (a schema
    * given without column mapping metadata, e.g. as DDL), and keeps its name as its physical name
    * when it has none (column mapping enabled on an existing table: data files already name it so,
    * as delta-spark does on that upgrade).
    *
    * With `overwriting` (a commit that replaces every file of the table with a new schema, as
    * delta-spark's `overwriteSchema`), a field takes the current field's id and physical name only
    * when its type is the current one's (nullability may loosen); any other field gets a fresh id
    * and physical name, as delta-spark assigns them on an overwrite.
    *
    * {{{
    * val (s, max) = ColumnMappingAssign.assign(schema, 4L, Some(current.schema))
    * }}}
    */
  def assign(
      schema: StructType,
      maxId: Long,
      current: Option[StructType] = None,
      overwriting: Boolean = false
  ): (StructType, Long) = {
    var next = maxId
    def same(cur: Option[StructType], name: String): Option[StructField] =
      cur.flatMap(_.fields.find(_.name.equalsIgnoreCase(name)))
    def kept(w: StructField, f: StructField): Boolean =
      !overwriting || fits(w.dataType, f.dataType)
    // Pre-order, as delta-spark numbers them: a field before the fields nested in it.
    def field(f: StructField, cur: Option[StructType]): StructField = {
      val was = same(cur, f.name)
      val metadata =
        if (f.metadata.contains(IdKey)) f.metadata
        else {
          val (id, physical) = was match {
            case Some(w)
                if w.metadata.contains(IdKey) && w.metadata.contains(PhysicalNameKey) &&
                  kept(w, f) =>
              (w.metadata.getLong(IdKey), w.metadata.getString(PhysicalNameKey))
            case Some(w) if !overwriting => next += 1; (next, w.name)
            case _                       => next += 1; (next, s"col-${UUID.randomUUID()}")
          }
          new MetadataBuilder()
            .withMetadata(f.metadata)
            .putLong(IdKey, id)
            .putString(PhysicalNameKey, physical)
            .build()
        }
      f.copy(dataType = dataType(f.dataType, was.map(_.dataType)), metadata = metadata)
    }
    def dataType(t: DataType, cur: Option[DataType]): DataType = (t, cur) match {
      case (s: StructType, c) =>
        StructType(s.fields.map(field(_, c.collect { case x: StructType => x })))
      case (a: ArrayType, c) =>
        val element = c.collect { case x: ArrayType => x.elementType }
        a.copy(elementType = dataType(a.elementType, element))
      case (m: MapType, c) =>
        val cm = c.collect { case x: MapType => x }
        m.copy(
          keyType = dataType(m.keyType, cm.map(_.keyType)),
          valueType = dataType(m.valueType, cm.map(_.valueType))
        )
      case (other, _) => other
    }
    val out = StructType(schema.fields.map(field(_, current)))
    (out, next)
  }

  /** Whether data of type `to` reads as `from`: equal types, nested nullability loosened only
    * (delta-spark's `equalsIgnoreCompatibleNullability`), struct field names equal.
    */
  private def fits(from: DataType, to: DataType): Boolean = (from, to) match {
    case (a: ArrayType, b: ArrayType) =>
      (b.containsNull || !a.containsNull) && fits(a.elementType, b.elementType)
    case (a: MapType, b: MapType) =>
      (b.valueContainsNull || !a.valueContainsNull) && fits(a.keyType, b.keyType) &&
      fits(a.valueType, b.valueType)
    case (a: StructType, b: StructType) =>
      a.length == b.length && a.fields.zip(b.fields).forall { case (x, y) =>
        x.name == y.name && (y.nullable || !x.nullable) &&
        fits(x.dataType, y.dataType)
      }
    case _ => from == to
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
        .flatMap(v => scala.util.Try(v.trim.toLong).toOption)
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
