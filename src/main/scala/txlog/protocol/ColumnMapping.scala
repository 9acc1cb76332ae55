package txlog.protocol

import org.apache.spark.sql.types.{ArrayType, DataType, MapType, StructField, StructType}

import txlog.errors.TxlogErrors

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

  /** Whether the top-level columns `names` of `schema` are `before`'s columns `beforeNames`, in
    * order, by physical name (renamed at most): a partition column renamed under column mapping,
    * whose values the files' adds key by physical name. Example: `samePhysical(s0, Seq("p"), s1,
    * Seq("region"))`.
    */
  def samePhysical(
      before: StructType,
      beforeNames: Seq[String],
      schema: StructType,
      names: Seq[String]
  ): Boolean = {
    def physical(s: StructType, name: String) =
      s.fields.find(_.name.equalsIgnoreCase(name)).flatMap(physicalNameOf)
    beforeNames.size == names.size && beforeNames.zip(names).forall { case (a, b) =>
      physical(before, a).exists(p => physical(schema, b).contains(p))
    }
  }

  /** The table's `delta.columnMapping.mode`, lower case (`none` when unset): the one reading of it,
    * asked through [[TableConfiguration.columnMappingMode]].
    */
  private[protocol] def mode(configuration: Map[String, String]): String =
    configuration.getOrElse(ModeProperty, "none").trim.toLowerCase(java.util.Locale.ROOT)

  /** Characters a column name may hold only under column mapping: parquet's field names may not,
    * and delta-spark refuses them without it (DELTA_INVALID_CHARACTERS_IN_COLUMN_NAMES).
    */
  val UnmappedNameChars = " ,;{}()\n\t="

  /** INVALID_METADATA for a column name (at any depth) holding one of [[UnmappedNameChars]] that
    * `before` (the current schema) does not have, unless `configuration` turns column mapping on.
    * Names a table already has are left as they are (a table another writer made). Example:
    * `ColumnMapping.checkNames(root, Some(cur.schema), md.schema, md.configuration)`.
    */
  def checkNames(
      table: String,
      before: Option[StructType],
      after: StructType,
      configuration: Map[String, String]
  ): Unit = {
    if (mode(configuration) == "none") {
      val had = before.fold(Set.empty[String])(b => paths(b, "").toSet)
      val bad = paths(after, "").filterNot(had).filter { p =>
        p.split(Sep).last.exists(c => UnmappedNameChars.indexOf(c) >= 0)
      }
      if (bad.nonEmpty) {
        val names = bad.map(_.replace(Sep, '.')).map(n => s"'$n'").mkString(", ")
        throw TxlogErrors.invalidMetadata(
          table,
          s"column names $names hold characters among ' ,;{}()\\n\\t=', which a column name " +
            "may hold only with column mapping on (delta.columnMapping.mode = name); rename " +
            "them or create the table with column mapping"
        )
      }
    }
  }

  private val Sep = '\u0000'

  /** Every field's path, its names joined by NUL (a name may hold a dot). */
  private def paths(t: DataType, prefix: String): Seq[String] = t match {
    case s: StructType =>
      s.fields.toSeq.flatMap { f =>
        val p = if (prefix.isEmpty) f.name else prefix + Sep + f.name
        p +: paths(f.dataType, p)
      }
    case a: ArrayType => paths(a.elementType, prefix)
    case m: MapType   => paths(m.keyType, prefix) ++ paths(m.valueType, prefix)
    case _            => Nil
  }
}
