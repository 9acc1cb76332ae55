package txlog.write

import java.util.Locale

import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.types._

import txlog.{Metadata, WriteOptions}
import txlog.errors.TxlogErrors
import txlog.scan.PhysicalSchema
import txlog.txn.WriterRules

/** Schema evolution of a data write into an existing table, as delta-spark's write options do it:
  * `mergeSchema` adds the DataFrame's columns the table lacks (nullable, at the end of their
  * struct, nested fields too) and changes no type; `overwriteSchema` (mode overwrite) makes the
  * DataFrame's schema the table's, and its partitioning `partitionBy`, every file being removed.
  * Column mapping ids and physical names are given before the files are written, which name the new
  * columns by them.
  */
private[txlog] object SchemaEvolution {

  /** What a write into an existing table commits: the metadata the data is written under (staged
    * when it differs from the table's), the DataFrame aligned to it, and whether the commit
    * replaces the whole table (a new schema or partitioning under `overwriteSchema`).
    */
  final case class Target(metadata: Metadata, data: DataFrame, replacesTable: Boolean) {
    def changed(md: Metadata): Boolean = metadata != md
  }

  /** The [[Target]] of writing `df` with `options` to a table whose metadata is `md`. Example:
    * `SchemaEvolution.target(root, df, snap.metadata, options)`.
    */
  def target(table: String, df: DataFrame, md: Metadata, options: WriteOptions): Target =
    if (options.overwriteSchema) overwritten(table, df, md, options.partitionBy)
    else if (options.mergeSchema) {
      val schema = merge(table, md.schema, df.schema, "")
      if (schema == md.schema) Target(md, TableSchemaCheck.align(table, df, md.schema), false)
      else {
        val evolved =
          WriterRules.withColumnMapping(
            Some(md),
            md.copy(schemaString = schema.json),
            schema,
            false
          )
        Target(evolved, TableSchemaCheck.align(table, df, evolved.schema, nested = true), false)
      }
    } else Target(md, TableSchemaCheck.align(table, df, md.schema), false)

  private def overwritten(
      table: String,
      df: DataFrame,
      md: Metadata,
      partitionBy: Seq[String]
  ): Target = {
    duplicates(table, df.schema, "")
    val schema = TableSchemaCheck.nullable(withoutMapping(df.schema))
    // Partition columns named as the schema names them; none given: the new table has none,
    // as delta-spark's overwriteSchema without partitionBy.
    val parts = partitionBy.map { p =>
      schema.fields.find(_.name.equalsIgnoreCase(p)).map(_.name).getOrElse {
        throw TxlogErrors.schemaMismatch(
          table,
          s"partitionBy column $p is not a column of the data (${schema.simpleString})."
        )
      }
    }
    if (withoutMapping(md.schema) == schema && md.partitionColumns == parts) {
      Target(md, TableSchemaCheck.align(table, df, md.schema), false)
    } else {
      val next = md.copy(schemaString = schema.json, partitionColumns = parts)
      val evolved = WriterRules.withColumnMapping(Some(md), next, schema, true)
      Target(evolved, TableSchemaCheck.align(table, df, evolved.schema), true)
    }
  }

  /** `current` with the fields of `data` it lacks added (nullable, at the end of their struct;
    * matched by name ignoring case, nested structs, array elements and map values merged too).
    * SCHEMA_MISMATCH for a column whose type differs (txlog writes no type widening) or a name
    * given twice. Example: `SchemaEvolution.merge(root, md.schema, df.schema, "")`.
    */
  def merge(table: String, current: StructType, data: StructType, prefix: String): StructType = {
    duplicates(table, data, prefix)
    val kept = current.fields.map { t =>
      data.fields.find(_.name.equalsIgnoreCase(t.name)) match {
        case Some(d) => t.copy(dataType = mergeType(table, t.dataType, d.dataType, prefix + t.name))
        case None    => t
      }
    }
    val added = data.fields.filterNot(d => current.fields.exists(_.name.equalsIgnoreCase(d.name)))
    StructType(kept ++ TableSchemaCheck.nullable(withoutMapping(StructType(added))).fields)
  }

  private def mergeType(table: String, t: DataType, d: DataType, name: String): DataType =
    (t, d) match {
      case (a: StructType, b: StructType) => merge(table, a, b, name + ".")
      case (a: ArrayType, b: ArrayType) =>
        a.copy(elementType = mergeType(table, a.elementType, b.elementType, name + ".element"))
      case (a: MapType, b: MapType) =>
        a.copy(
          keyType = mergeType(table, a.keyType, b.keyType, name + ".key"),
          valueType = mergeType(table, a.valueType, b.valueType, name + ".value")
        )
      case _ if t == d => t
      case _ =>
        throw TxlogErrors.schemaMismatch(
          table,
          s"Column $name is ${d.simpleString} in the data and ${t.simpleString} in the table; " +
            "mergeSchema adds columns but changes no type (txlog writes no type widening; " +
            "overwriteSchema with mode overwrite replaces the table's schema)."
        )
    }

  private def duplicates(table: String, s: StructType, prefix: String): Unit = {
    val dup = s.fieldNames.groupBy(_.toLowerCase(Locale.ROOT)).collect {
      case (_, ns) if ns.length > 1 => prefix + ns.head
    }
    if (dup.nonEmpty) {
      throw TxlogErrors.schemaMismatch(table, s"Columns ${dup.mkString(", ")} are given twice.")
    }
  }

  /** `s` without column mapping metadata on any field (a DataFrame read from a table may carry it):
    * the table's ids and physical names are given by [[WriterRules.withColumnMapping]].
    */
  private def withoutMapping(s: StructType): StructType = PhysicalSchema.logical(s)
}
