package txlog.write

import org.apache.spark.sql.catalyst.util.CharVarcharUtils
import org.apache.spark.sql.types._

/** The length limits of CHAR(n) and VARCHAR(n) columns, as row checks. Delta schemas store such a
  * column as a string with Spark's `__CHAR_VARCHAR_TYPE_STRING` field metadata holding the column's
  * declared type (`varchar(3)`, `struct<w:varchar(2)>`), and delta-spark checks every written value
  * against it as a constraint of its own: `v IS NULL OR length(v) <= n` for both types (no padding
  * or trimming on write), through struct fields, array elements and map keys and values.
  *
  * {{{
  * CharLimits.of(md.schema) // RowCheck("VARCHAR(3) v (...)", "`v` IS NULL OR length(`v`) <= 3")
  * }}}
  */
private[txlog] object CharLimits {

  /** The checks of `schema`'s columns whose declared type holds a CHAR or VARCHAR. */
  def of(schema: StructType): Seq[RowCheck] = schema.fields.toSeq.flatMap { f =>
    CharVarcharUtils.getRawType(f.metadata).flatMap(t => check(RowChecks.quote(f.name), t, 0)).map {
      sql => RowCheck(s"CHAR/VARCHAR ${f.name} ($sql)", sql)
    }
  }

  /** The condition on `c` (SQL) of declared type `t`, when `t` holds a limit; `depth` numbers the
    * lambda variables of nested arrays and maps.
    */
  private def check(c: String, t: DataType, depth: Int): Option[String] = t match {
    case v: VarcharType => Some(s"($c IS NULL OR length($c) <= ${v.length})")
    case ch: CharType   => Some(s"($c IS NULL OR length($c) <= ${ch.length})")
    case s: StructType =>
      val inner = s.fields.toSeq.flatMap { f =>
        check(s"$c.${RowChecks.quote(f.name)}", f.dataType, depth)
      }
      if (inner.isEmpty) None else Some(s"($c IS NULL OR (${inner.mkString(" AND ")}))")
    case a: ArrayType =>
      val x = s"x$depth"
      check(x, a.elementType, depth + 1).map(e => s"($c IS NULL OR forall($c, $x -> $e))")
    case m: MapType =>
      val x = s"x$depth"
      val keys = check(x, m.keyType, depth + 1).map(e => s"forall(map_keys($c), $x -> $e)")
      val values = check(x, m.valueType, depth + 1).map(e => s"forall(map_values($c), $x -> $e)")
      val both = keys.toSeq ++ values.toSeq
      if (both.isEmpty) None else Some(s"($c IS NULL OR (${both.mkString(" AND ")}))")
    case _ => None
  }
}
