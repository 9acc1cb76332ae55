package txlog.txn

import java.util.Locale

import org.apache.spark.sql.types._

import txlog.errors.TxlogErrors
import txlog.protocol.ColumnMapping

/** Schema changes a commit may not make to the columns a table already has: a changed type (the
  * data files hold the old type, and txlog writes no type widening) and a nullability tightened (a
  * nullable column, array element or map value made non-null: the rows already written are not
  * checked, as the spec asks of a new CHECK constraint). Columns are matched by their column
  * mapping physical name when the new schema gives one, else by name (case-insensitively); new
  * columns, dropped ones and loosened nullability are not changes this refuses. A commit that
  * replaces every file of the table (overwriteSchema) is not checked: no file of the old schema
  * stays (see [[WriterRules.prepare]]'s `replacing`, which the committer verifies).
  */
private[txn] object SchemaChanges {

  /** INVALID_METADATA naming the first column (by path) whose type or nullability `after` changes
    * from `before` in a way above. Example: `SchemaChanges.check(table, current.schema, staged)`.
    */
  def check(table: String, before: StructType, after: StructType): Unit =
    problems(before, after, "").headOption.foreach { p =>
      throw TxlogErrors.invalidMetadata(table, p)
    }

  private def problems(before: StructType, after: StructType, prefix: String): Seq[String] =
    after.fields.toSeq.flatMap { f =>
      matching(before, f).toSeq.flatMap { old =>
        val name = prefix + f.name
        val nullability =
          if (old.nullable && !f.nullable) Seq(notNull(name, "column")) else Nil
        nullability ++ types(old.dataType, f.dataType, name)
      }
    }

  private def matching(before: StructType, f: StructField): Option[StructField] = {
    def physical(x: StructField) = ColumnMapping.physicalNameOf(x)
    physical(f) match {
      case Some(p) => before.fields.find(physical(_).contains(p))
      case None =>
        val lower = f.name.toLowerCase(Locale.ROOT)
        before.fields.find(_.name.toLowerCase(Locale.ROOT) == lower)
    }
  }

  private def types(before: DataType, after: DataType, name: String): Seq[String] =
    (before, after) match {
      case (b: StructType, a: StructType) => problems(b, a, name + ".")
      case (b: ArrayType, a: ArrayType) =>
        (if (b.containsNull && !a.containsNull) Seq(notNull(name, "array's elements")) else Nil) ++
          types(b.elementType, a.elementType, name + ".element")
      case (b: MapType, a: MapType) =>
        (if (b.valueContainsNull && !a.valueContainsNull) Seq(notNull(name, "map's values"))
         else Nil) ++ types(b.keyType, a.keyType, name + ".key") ++
          types(b.valueType, a.valueType, name + ".value")
      case (b, a) if b.sql != a.sql =>
        Seq(
          s"column $name would change type from ${b.sql} to ${a.sql}: the data files already " +
            "written hold the old type (txlog does not write type widening); add a new column " +
            "instead, or rewrite the table"
        )
      case _ => Nil
    }

  private def notNull(name: String, what: String): String =
    s"the $what of $name would become non-null: the rows already written are not checked; " +
      "keep it nullable (or rewrite the table with the new schema)"
}
