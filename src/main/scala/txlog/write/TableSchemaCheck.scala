package txlog.write

import org.apache.spark.sql.{Column, DataFrame}
import org.apache.spark.sql.functions.{col, expr, lit}
import org.apache.spark.sql.types._

import txlog.errors.TxlogErrors

/** Schema enforcement for writes into an existing table, as delta-spark enforces it: the
  * DataFrame's columns are matched to the table's by name (case-insensitively, nested fields too),
  * each of the table's type; a table column the DataFrame lacks is computed when it is generated,
  * written as its default value when it has one (`CURRENT_DEFAULT`), as nulls when it is nullable;
  * a column the table lacks is SCHEMA_MISMATCH (schema evolution is not done here).
  */
private[txlog] object TableSchemaCheck {

  /** `df` as the table's columns, in the table's order and with its names. With `nested` (a write
    * with `mergeSchema`), a struct column, array element or map value whose struct lacks fields of
    * the table's or orders them otherwise is rebuilt as the table's type, the fields it lacks null
    * (as delta-spark writes them); without it, such a column is SCHEMA_MISMATCH. Example:
    * `TableSchemaCheck.align(root, df, md.schema)`.
    */
  def align(
      table: String,
      df: DataFrame,
      schema: StructType,
      nested: Boolean = false
  ): DataFrame = {
    val provided = df.schema.fields
    val extra = provided.filterNot(f => schema.fields.exists(_.name.equalsIgnoreCase(f.name)))
    if (extra.nonEmpty) {
      throw TxlogErrors.schemaMismatch(
        table,
        s"Columns ${extra.map(_.name).mkString(", ")} are not in the table's schema " +
          s"(${schema.simpleString})."
      )
    }
    val dup = provided.groupBy(_.name.toLowerCase(java.util.Locale.ROOT)).collect {
      case (n, fs) if fs.length > 1 => n
    }
    if (dup.nonEmpty) {
      throw TxlogErrors.schemaMismatch(table, s"Columns ${dup.mkString(", ")} are given twice.")
    }
    def kept(t: StructField, g: StructField): Column =
      if (sameType(g.dataType, t.dataType)) col(quote(g.name)).as(t.name)
      else if (nested) NestedAlign(table, t.name, col(quote(g.name)), g.dataType, t.dataType)
      else {
        throw TxlogErrors.schemaMismatch(
          table,
          s"Column ${t.name} is ${g.dataType.simpleString} in the data and " +
            s"${t.dataType.simpleString} in the table."
        )
      }
    val identity = txlog.protocol.IdentityColumns.of(table, schema).map(c => c.name -> c).toMap
    val cols: Seq[Column] = schema.fields.toSeq.map { t =>
      provided.find(_.name.equalsIgnoreCase(t.name)) match {
        case g if identity.contains(t.name) =>
          // values generated where the data gives none; given ones (a NULL too) only where the
          // column allows them
          val c = identity(t.name)
          def generated = IdentityWrites.generated(df.sparkSession, table, c)
          g.fold(generated) { g =>
            IdentityWrites.supplied(df, g.name) match {
              case IdentityWrites.Generated => col(quote(g.name)).as(t.name)
              case IdentityWrites.Explicit if !c.allowExplicitInsert =>
                IdentityWrites.explicitInsert(table, t.name)
              case IdentityWrites.Explicit => kept(t, g)
            }
          }
        case Some(g)                                                   => kept(t, g)
        case None if t.metadata.contains("delta.generationExpression") =>
          // a generated column left out is computed, as delta-spark computes it
          expr(t.metadata.getString("delta.generationExpression")).cast(t.dataType).as(t.name)
        case None if t.metadata.contains(DefaultKey) => default(table, t)
        case None if t.nullable                      => lit(null).cast(t.dataType).as(t.name)
        case None =>
          throw TxlogErrors.schemaMismatch(
            table,
            s"Column ${t.name} is missing from the data and is not nullable in the table."
          )
      }
    }
    try df.select(cols: _*)
    catch {
      case e: org.apache.spark.sql.AnalysisException =>
        throw TxlogErrors.invalidMetadata(
          table,
          s"a generated column's expression or a column default does not resolve: ${e.getMessage}"
        )
    }
  }

  /** Spark's key for a column's default value, a SQL expression (`allowColumnDefaults`). */
  val DefaultKey = "CURRENT_DEFAULT"

  /** A left-out column's default value, as delta-spark writes it (the expression cast). */
  private def default(table: String, t: StructField): Column = {
    val text = t.metadata.getString(DefaultKey)
    try expr(text).cast(t.dataType).as(t.name)
    catch {
      case e: Exception =>
        throw TxlogErrors.invalidMetadata(
          table,
          s"column ${t.name}'s default value '$text' does not parse: ${e.getMessage}"
        )
    }
  }

  /** Equal types but for nullability and the case of field names (fields in the same order). */
  def sameType(a: DataType, b: DataType): Boolean = (a, b) match {
    case (x: StructType, y: StructType) =>
      x.size == y.size && x.fields.zip(y.fields).forall { case (f, g) =>
        f.name.equalsIgnoreCase(g.name) && sameType(f.dataType, g.dataType)
      }
    case (x: ArrayType, y: ArrayType) => sameType(x.elementType, y.elementType)
    case (x: MapType, y: MapType) =>
      sameType(x.keyType, y.keyType) && sameType(x.valueType, y.valueType)
    case _ => a == b
  }

  /** SCHEMA_MISMATCH when a column of `schema` (or a field, element or value in one) has no type
    * (`void`: a NULL literal not cast), before anything is written: the protocol's schemas have no
    * such type, and parquet none to write it as. delta-spark records it and leaves it out of its
    * files; txlog asks for a cast instead. Example: `TableSchemaCheck.typed(root, df.schema)`.
    */
  def typed(table: String, schema: StructType): Unit = {
    def untyped(t: DataType, path: String): Option[String] = t match {
      case NullType      => Some(path)
      case s: StructType => first(s, path + ".")
      case a: ArrayType  => untyped(a.elementType, s"$path.element")
      case m: MapType =>
        untyped(m.keyType, s"$path.key").orElse(untyped(m.valueType, s"$path.value"))
      case _ => None
    }
    def first(s: StructType, prefix: String): Option[String] =
      s.fields.iterator.map(f => untyped(f.dataType, prefix + f.name)).collectFirst {
        case Some(c) =>
          c
      }
    first(schema, "").foreach { c =>
      throw TxlogErrors.schemaMismatch(
        table,
        s"Column $c has no type (void: a NULL literal without a cast); Delta schemas have none " +
          "such. Cast it to the type it should have, as CAST(NULL AS STRING)."
      )
    }
  }

  /** `t` with every field, element and value nullable (a new table's schema from a DataFrame). */
  def nullable(t: StructType): StructType = StructType(t.fields.map { f =>
    f.copy(dataType = nullableType(f.dataType), nullable = true)
  })

  private def nullableType(t: DataType): DataType = t match {
    case s: StructType => nullable(s)
    case a: ArrayType  => ArrayType(nullableType(a.elementType), containsNull = true)
    case m: MapType    => MapType(m.keyType, nullableType(m.valueType), valueContainsNull = true)
    case other         => other
  }

  private def quote(name: String): String = "`" + name.replace("`", "``") + "`"
}
