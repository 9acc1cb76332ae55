package txlog.protocol

import java.util.Locale

import scala.util.control.NonFatal

import com.fasterxml.jackson.databind.ObjectMapper
import org.apache.spark.sql.catalyst.parser.CatalystSqlParser
import org.apache.spark.sql.types.{ArrayType, DataType, MapType, StructField, StructType}

import txlog.Metadata
import txlog.errors.TxlogErrors

/** The spec's "CHECK Constraints" (`delta.constraints.<name>` table properties) and "Column
  * Invariants" (`delta.invariants` field metadata, `{"expression": {"expression": "<SQL>"}}`), as
  * SQL conditions over the table's columns.
  *
  * {{{
  * Constraints.of(root, md) // Seq(Constraint("CHECK positive", "id > 0"))
  * Constraints.validate(root, md) // INVALID_METADATA unless each one parses
  * }}}
  *
  * @param name
  *   how an error names it: `CHECK <name>` or `INVARIANT <column path>`
  * @param sql
  *   the condition
  */
private[txlog] final case class Constraint(name: String, sql: String)

private[txlog] object Constraints {

  /** The property key prefix of CHECK constraints. */
  val CheckKey = "delta.constraints."

  /** The field metadata key of column invariants. */
  val InvariantKey = "delta.invariants"

  /** The CHECK constraints of `md` (by property key), then its column invariants (at every depth of
    * structs, in schema order). An invariant whose JSON is not the spec's shape is INVALID_METADATA
    * naming the column.
    */
  def of(table: String, md: Metadata): Seq[Constraint] = checks(md) ++ invariants(table, md.schema)

  /** The CHECK constraints of `md`, by property key. */
  def checks(md: Metadata): Seq[Constraint] =
    md.configuration.toSeq.sortBy(_._1).collect {
      case (k, v) if k.toLowerCase(Locale.ROOT).startsWith(CheckKey) =>
        Constraint(s"CHECK ${k.drop(CheckKey.length)}", v)
    }

  /** The column invariants of `schema`. */
  def invariants(table: String, schema: StructType): Seq[Constraint] =
    fields(schema, Nil).flatMap { case (path, f) =>
      if (!f.metadata.contains(InvariantKey)) None
      else {
        val name = path.mkString(".")
        Some(Constraint(s"INVARIANT $name", invariantSql(table, name, f)))
      }
    }

  /** INVALID_METADATA unless every CHECK constraint and column invariant of `md` parses as a SQL
    * expression, before anything is committed (a staged metadata, a new table's).
    */
  def validate(table: String, md: Metadata): Unit =
    of(table, md).foreach { c =>
      if (c.sql == null || c.sql.trim.isEmpty) {
        throw TxlogErrors.invalidMetadata(table, s"${c.name} has no condition")
      }
      try CatalystSqlParser.parseExpression(c.sql)
      catch {
        case NonFatal(e) =>
          throw TxlogErrors.invalidMetadata(
            table,
            s"the condition of ${c.name} does not parse as SQL (${c.sql}): ${firstLine(e)}"
          )
      }
    }

  private def firstLine(e: Throwable): String =
    String.valueOf(e.getMessage).linesIterator.toSeq.headOption.getOrElse("")

  private val mapper = new ObjectMapper()

  private def invariantSql(table: String, column: String, f: StructField): String = {
    val json =
      try f.metadata.getString(InvariantKey)
      catch { case NonFatal(_) => String.valueOf(f.metadata.json) }
    val sql =
      try
        Option(mapper.readTree(json))
          .flatMap(n => Option(n.get("expression")))
          .flatMap(e => Option(e.get("expression")))
          .filter(_.isTextual)
          .map(_.asText)
      catch { case NonFatal(_) => None }
    sql.getOrElse {
      throw TxlogErrors.invalidMetadata(
        table,
        s"the invariant of column $column is not the spec's " +
          "{\"expression\": {\"expression\": \"<SQL>\"}}: " + json
      )
    }
  }

  /** The array elements and map keys and values of `schema` whose type holds a NOT NULL (a struct
    * field, or an inner array's element or map's value), as `path.element` / `.key` / `.value`:
    * such a NOT NULL cannot be enforced, so delta-spark refuses to commit a schema that has one
    * (DELTA_NESTED_NOT_NULL_CONSTRAINT). An array of a primitive type whose elements may not be
    * null is allowed (and, as in delta-spark, not enforced). Example:
    * `Constraints.unenforceableNotNull(md.schema)`.
    */
  def unenforceableNotNull(schema: StructType): Seq[String] = {
    def walk(t: DataType, path: String): Seq[String] = t match {
      case s: StructType =>
        s.fields.toSeq.flatMap(f =>
          walk(f.dataType, if (path.isEmpty) f.name else s"$path.${f.name}")
        )
      case a: ArrayType => inside(a.elementType, s"$path.element")
      case m: MapType   => inside(m.keyType, s"$path.key") ++ inside(m.valueType, s"$path.value")
      case _            => Nil
    }
    def inside(t: DataType, path: String): Seq[String] =
      if (t != nullable(t)) Seq(path) else walk(t, path)
    walk(schema, "")
  }

  /** INVALID_METADATA for a NOT NULL inside an array element or map key or value
    * ([[unenforceableNotNull]]) that `before` (the current schema) does not have. One the table
    * already has is left as it is (a table another writer made).
    */
  def checkEnforceableNotNull(
      table: String,
      before: Option[StructType],
      after: StructType
  ): Unit = {
    val had = before.fold(Set.empty[String])(b => unenforceableNotNull(b).toSet)
    val added = unenforceableNotNull(after).filterNot(had)
    if (added.nonEmpty) {
      throw TxlogErrors.invalidMetadata(
        table,
        s"${added.mkString(", ")} may not be null, inside an array or a map: a NOT NULL there " +
          "cannot be enforced (delta-spark refuses it too); make it nullable"
      )
    }
  }

  private def nullable(t: DataType): DataType = t match {
    case s: StructType =>
      StructType(s.fields.map(f => f.copy(dataType = nullable(f.dataType), nullable = true)))
    case a: ArrayType => ArrayType(nullable(a.elementType), containsNull = true)
    case m: MapType => MapType(nullable(m.keyType), nullable(m.valueType), valueContainsNull = true)
    case other      => other
  }

  private def fields(t: DataType, path: Seq[String]): Seq[(Seq[String], StructField)] =
    t match {
      case s: StructType =>
        s.fields.toSeq.flatMap(f => ((path :+ f.name) -> f) +: fields(f.dataType, path :+ f.name))
      case _ => Nil
    }
}
