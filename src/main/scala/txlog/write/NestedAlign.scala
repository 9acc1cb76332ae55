package txlog.write

import org.apache.spark.sql.Column
import org.apache.spark.sql.functions.{lit, struct, transform, transform_values, when}
import org.apache.spark.sql.types._

import txlog.errors.TxlogErrors

/** A column of the data rebuilt as the table's type when its structs lack fields of the table's (a
  * `mergeSchema` write: the table keeps fields the data does not give, null in the new rows) or
  * order them otherwise; fields are matched by name ignoring case, through structs, array elements
  * and map values. Any other difference is SCHEMA_MISMATCH.
  */
private[write] object NestedAlign {

  /** `c` (of type `from`) as type `to`, named `name`. Example: `NestedAlign(root, "s", col("s"),
    * df.schema("s").dataType, md.schema("s").dataType)`.
    */
  def apply(table: String, name: String, c: Column, from: DataType, to: DataType): Column =
    convert(table, name, c, from, to).as(name)

  private def convert(
      table: String,
      name: String,
      c: Column,
      from: DataType,
      to: DataType
  ): Column =
    if (TableSchemaCheck.sameType(from, to)) c
    else
      (from, to) match {
        case (f: StructType, t: StructType) =>
          val fields = t.fields.toSeq.map { tf =>
            f.fields.find(_.name.equalsIgnoreCase(tf.name)) match {
              case Some(ff) =>
                convert(table, s"$name.${tf.name}", c.getField(ff.name), ff.dataType, tf.dataType)
                  .as(tf.name)
              case None if tf.nullable => lit(null).cast(tf.dataType).as(tf.name)
              case None =>
                throw TxlogErrors.schemaMismatch(
                  table,
                  s"Column $name.${tf.name} is missing from the data and is not nullable in " +
                    "the table."
                )
            }
          }
          val extra = f.fields.filterNot(ff => t.fields.exists(_.name.equalsIgnoreCase(ff.name)))
          if (extra.nonEmpty) mismatch(table, name, from, to)
          when(c.isNull, lit(null).cast(t)).otherwise(struct(fields: _*))
        case (f: ArrayType, t: ArrayType) =>
          transform(c, x => convert(table, s"$name.element", x, f.elementType, t.elementType))
        case (f: MapType, t: MapType) if TableSchemaCheck.sameType(f.keyType, t.keyType) =>
          transform_values(
            c,
            (_, v) => convert(table, s"$name.value", v, f.valueType, t.valueType)
          )
        case _ => mismatch(table, name, from, to)
      }

  private def mismatch(table: String, name: String, from: DataType, to: DataType): Nothing =
    throw TxlogErrors.schemaMismatch(
      table,
      s"Column $name is ${from.simpleString} in the data and ${to.simpleString} in the table."
    )
}
