package txlog.write

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types.StructType

/** The table's NOT NULL fields, checked by the task writing a row before the row is written: a
  * top-level column, and a field of a struct at any depth. As delta-spark checks them, a NOT NULL
  * field is null when a struct holding it is null (`s` null breaks `s.a`'s NOT NULL, even where `s`
  * may be null). NOT NULL inside an array element or a map key or value is not enforced, as
  * delta-spark does not enforce it (it refuses to commit such a schema:
  * [[txlog.protocol.Constraints.unenforceableNotNull]]). The checks are built once per job and
  * serialized to the tasks; a table without NOT NULL fields costs nothing per row.
  *
  * {{{
  * val nulls = NullChecks.of(md.schema, df.schema)
  * nulls.violation(row) // Some("s.a"): the path of the first NOT NULL field that is null
  * }}}
  */
private[txlog] final class NullChecks private (root: NullChecks.Fields) extends Serializable {

  /** No field to check. */
  def isEmpty: Boolean = root.fields.isEmpty

  /** The path (`s.a`) of the first NOT NULL field that is null in `row`, if any. */
  def violation(row: InternalRow): Option[String] = Option(NullChecks.first(row, root))
}

private[txlog] object NullChecks {

  /** A NOT NULL rule on the field at `ordinal` of its struct (`path`: its dotted name), or a struct
    * holding such fields deeper (`nested`; `below`: the path of the first, broken when the struct
    * is null).
    */
  private final case class Field(
      ordinal: Int,
      path: String,
      notNull: Boolean,
      nested: Fields,
      below: String
  )

  /** The rules of one struct, which has `numFields` fields. */
  private final case class Fields(numFields: Int, fields: Array[Field])

  /** The checks of `table`'s NOT NULL fields over rows of `input`: the table's columns matched by
    * name (case-insensitively, as the write matched them), through structs.
    */
  def of(table: StructType, input: StructType): NullChecks = new NullChecks(
    fields(table, input, "")
  )

  private def fields(table: StructType, input: StructType, prefix: String): Fields = {
    val rules = table.fields.toSeq.flatMap { t =>
      val i = input.fields.indexWhere(_.name.equalsIgnoreCase(t.name))
      if (i < 0) {
        // never left unchecked: the write aligns its rows to every column of the table
        if (!t.nullable || hasNotNull(t.dataType)) {
          throw txlog.errors.TxlogErrors.schemaMismatch(
            "the table",
            s"Column $prefix${t.name}, NOT NULL or holding NOT NULL fields, is missing from the " +
              "rows written."
          )
        }
        None
      } else {
        val path = prefix + t.name
        val nested = (t.dataType, input(i).dataType) match {
          case (ts: StructType, is: StructType) => fields(ts, is, path + ".")
          case _                                => Fields(0, Array.empty)
        }
        if (!t.nullable || nested.fields.nonEmpty) {
          Some(Field(i, path, !t.nullable, nested, firstRequired(nested)))
        } else None
      }
    }
    Fields(input.size, rules.toArray)
  }

  private def hasNotNull(t: org.apache.spark.sql.types.DataType): Boolean = t match {
    case s: StructType => s.fields.exists(f => !f.nullable || hasNotNull(f.dataType))
    case _             => false
  }

  private def firstRequired(s: Fields): String =
    s.fields.iterator.map(f => if (f.notNull) f.path else f.below).find(_ != null).orNull

  private def first(row: InternalRow, s: Fields): String = {
    var i = 0
    while (i < s.fields.length) {
      val f = s.fields(i)
      if (row.isNullAt(f.ordinal)) {
        if (f.notNull) return f.path
        if (f.below != null) return f.below
      } else if (f.nested.fields.nonEmpty) {
        val inner = first(row.getStruct(f.ordinal, f.nested.numFields), f.nested)
        if (inner != null) return inner
      }
      i += 1
    }
    null
  }
}
