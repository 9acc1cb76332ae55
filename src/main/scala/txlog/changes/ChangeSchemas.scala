package txlog.changes

import java.util.Locale

import org.apache.spark.sql.types.{ArrayType, DataType, MapType, NullType, StructType}

import txlog.protocol.TableConfiguration
import txlog.Metadata
import txlog.errors.TxlogErrors
import txlog.protocol.ColumnMapping

/** The schema of one metadata in force in a change data feed's range: the version it takes effect
  * at, its schema, partition columns and column mapping mode (`none`, `id` or `name`).
  *
  * {{{
  * RangeSchema(4L, md.schema, md.partitionColumns, "name")
  * }}}
  */
private[txlog] final case class RangeSchema(
    version: Long,
    schema: StructType,
    partitionColumns: Seq[String],
    mappingMode: String
) {

  def mapped: Boolean = mappingMode != "none"
}

/** What the change data feed refuses of a range's schemas, as delta-spark's batch reads do (its
  * rows are all read with the end version's schema, the read schema):
  *   - a metadata of the range (one committed after the start, and the one in force at the start)
  *     whose schema is not read-compatible with the read schema: only added columns may lead from
  *     it to the read schema, common columns keep their type (no type widening: delta-spark refuses
  *     it here too) and a nullable column does not become non-null; on a column mapping table no
  *     column is renamed (a physical name with another logical name) or dropped (a physical name
  *     gone) and the partition columns stay; column mapping is not turned off;
  *   - a read schema with a column named as one the feed adds (`_change_type`, `_commit_version`,
  *     `_commit_timestamp`, in any case): the feed would return two columns of that name.
  *
  * Either is CHANGE_DATA_SCHEMA_INCOMPATIBLE.
  *
  * {{{
  * ChangeSchemas.refuseReserved(root, end, endMetadata.schema)
  * ChangeSchemas.refuseIncompatible(root, start, end, read, atStart, changed, None)
  * }}}
  */
private[txlog] object ChangeSchemas {

  /** The columns the feed adds to the table's. */
  val Reserved: Seq[String] =
    Seq(ChangeScan.ChangeType, ChangeScan.CommitVersion, ChangeScan.CommitTimestamp)

  /** The schema of `md`, in force from `version`. Example: `ChangeSchemas.of(end, endMetadata)`. */
  def of(version: Long, md: Metadata): RangeSchema =
    RangeSchema(
      version,
      md.schema,
      md.partitionColumns,
      TableConfiguration.columnMappingMode(md.configuration)
    )

  /** CHANGE_DATA_SCHEMA_INCOMPATIBLE when the read schema (of version `end`) has a column the feed
    * adds.
    */
  def refuseReserved(table: String, end: Long, schema: StructType): Unit = {
    val clash = schema.fieldNames.filter(n => Reserved.exists(_.equalsIgnoreCase(n)))
    if (clash.nonEmpty) {
      throw TxlogErrors.changeDataSchemaIncompatible(
        table,
        end,
        s"The change data feed of $table (version $end) cannot be read: the table has " +
          s"column${if (clash.length > 1) "s" else ""} ${clash.mkString(", ")}, a name the feed " +
          s"gives its own columns (${Reserved.mkString(", ")}).",
        "The feed would return two columns of the same name; delta-spark refuses to turn the " +
          "feed on for such a table, so it was written by another writer.",
        "Read the table's rows instead, or rename the column (column mapping) and read the " +
          "versions after the rename."
      )
    }
  }

  /** CHANGE_DATA_SCHEMA_INCOMPATIBLE when `read`, the schema of version `end`, cannot read one of
    * the range's schemas: `changes`, those of the metaData actions after the start (only those
    * before `off`, the first version with the feed off, as delta-spark checks commit by commit)
    * and, when no version has the feed off, `atStart`, the one in force at the start. The error's
    * version is the schema change after the last schema that cannot be read: from it on, the range
    * can be read.
    */
  def refuseIncompatible(
      table: String,
      start: Long,
      end: Long,
      read: RangeSchema,
      atStart: RangeSchema,
      changes: Seq[RangeSchema],
      off: Option[Long]
  ): Unit = {
    val all = atStart +: changes.sortBy(_.version)
    val checked =
      changes.filter(c => off.forall(c.version < _)) ++ (if (off.isEmpty) Seq(atStart) else Nil)
    val bad = checked.flatMap(s => incompatibility(s, read).map(s -> _))
    if (bad.nonEmpty) {
      val (last, why) = bad.maxBy(_._1.version)
      val change = all.find(_.version > last.version).fold(end)(_.version)
      throw TxlogErrors.changeDataSchemaIncompatible(
        table,
        change,
        s"The change data feed of $table from version $start to $end cannot be read with the " +
          s"schema of version $end: the schema change at version $change leaves rows before " +
          "it that this schema cannot read.",
        s"Between the schema in force at version ${last.version} and that of version $end, " +
          s"$why. Rows written under the earlier schema cannot be read faithfully with the " +
          "later one, so the range is refused, as delta-spark refuses it.",
        s"Read versions $start to ${change - 1} and $change to $end as separate ranges."
      )
    }
  }

  /** Why `read` cannot read the rows written under `old`, if it cannot. */
  def incompatibility(old: RangeSchema, read: RangeSchema): Option[String] =
    mappingChange(old, read).orElse(readIncompatibility(old.schema, read.schema, ""))

  /** A rename, drop or partition change of a column mapping table, or mapping turned off. */
  private def mappingChange(old: RangeSchema, read: RangeSchema): Option[String] =
    if (old.mapped && !read.mapped) Some("column mapping was turned off")
    else if (!read.mapped) None
    else {
      // before column mapping was turned on, a column's physical name is its name
      val before = physicalPaths(old.schema, Nil, old.mapped)
      val after = physicalPaths(read.schema, Nil, mapped = true)
      before
        .collectFirst {
          case (p, name) if !after.contains(p) => s"column ${name.mkString(".")} was dropped"
          case (p, name) if after(p).last != name.last =>
            s"column ${name.mkString(".")} was renamed to ${after(p).mkString(".")}"
        }
        .orElse {
          if (old.partitionColumns == read.partitionColumns) None
          else {
            Some(
              s"the partition columns changed from (${old.partitionColumns.mkString(", ")}) " +
                s"to (${read.partitionColumns.mkString(", ")})"
            )
          }
        }
    }

  /** Every field's path of physical names, with its path of names (arrays and maps step through
    * `element`, `key` and `value`).
    */
  private def physicalPaths(
      t: DataType,
      prefix: Seq[(String, String)],
      mapped: Boolean
  ): Map[Seq[String], Seq[String]] = {
    def at(p: Seq[(String, String)]) = p.map(_._1) -> p.map(_._2)
    t match {
      case s: StructType =>
        s.fields.flatMap { f =>
          val p = prefix :+ ((if (mapped) ColumnMapping.physicalName(f) else f.name) -> f.name)
          physicalPaths(f.dataType, p, mapped) + at(p)
        }.toMap
      case a: ArrayType => physicalPaths(a.elementType, prefix :+ ("element" -> "element"), mapped)
      case m: MapType =>
        physicalPaths(m.keyType, prefix :+ ("key" -> "key"), mapped) ++
          physicalPaths(m.valueType, prefix :+ ("value" -> "value"), mapped)
      case _ => Map.empty
    }
  }

  /** Why `read` cannot read rows of `old`: a column gone, a column's name spelt otherwise, a type
    * changed, a nullable column (array element, map value) made non-null.
    */
  private def readIncompatibility(old: StructType, read: StructType, at: String): Option[String] = {
    def key(n: String) = n.toLowerCase(Locale.ROOT)
    val readFields = read.fields.map(f => key(f.name) -> f).toMap
    old.fields.find(f => !readFields.contains(key(f.name))) match {
      case Some(gone) => Some(s"column $at${gone.name} is not in the later schema")
      case None =>
        old.fields.iterator
          .flatMap { o =>
            val r = readFields(key(o.name))
            val name = at + r.name
            if (o.name != r.name) Some(s"column $at${o.name} is spelt ${r.name} later")
            else if (o.nullable && !r.nullable) Some(s"column $name became non-null")
            else typeIncompatibility(o.dataType, r.dataType, name)
          }
          .find(_ => true)
    }
  }

  private def typeIncompatibility(old: DataType, read: DataType, name: String): Option[String] =
    (old, read) match {
      case (o: StructType, r: StructType) => readIncompatibility(o, r, name + ".")
      case (o: ArrayType, r: ArrayType) =>
        if (o.containsNull && !r.containsNull) Some(s"the elements of $name became non-null")
        else typeIncompatibility(o.elementType, r.elementType, name + ".element")
      case (o: MapType, r: MapType) =>
        if (o.valueContainsNull && !r.valueContainsNull) {
          Some(s"the values of $name became non-null")
        } else {
          typeIncompatibility(o.keyType, r.keyType, name + ".key")
            .orElse(typeIncompatibility(o.valueType, r.valueType, name + ".value"))
        }
      case (NullType, _)    => None
      case (o, r) if o == r => None
      case (o, r)           => Some(s"column $name changed type from ${o.sql} to ${r.sql}")
    }
}
